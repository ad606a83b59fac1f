/**
 * The limits every HTTP server of krtt keeps (webhooks, diagnostics, health probes), so that a
 * malformed, oversized, slow or overwhelming client costs bounded memory and time and the
 * controllers keep reconciling. The defaults are controller-runtime's where it has one: a 7 MiB
 * request body (its admission webhook's limit), 32 s to send the headers, 90 s of keep-alive
 * idleness, 1 MiB of headers; and, where it has none, 60 s for a whole request and at most 1,024
 * connections at once.
 *
 * @module
 */
import type { Server as HttpServer } from "node:http"
import type { Server as HttpsServer } from "node:https"
import * as ByteSize from "effect/ByteSize"
import * as Effect from "effect/Effect"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"

/** A server's limits. Durations in milliseconds. */
export interface ServerLimits {
  /** The largest request body read; a larger one is refused (413). */
  readonly maxRequestBytes: number
  /** How long a client may take to send the request's headers. */
  readonly headersTimeoutMs: number
  /** How long a client may take to send the whole request. */
  readonly requestTimeoutMs: number
  /** How long an idle keep-alive connection stays open. */
  readonly idleTimeoutMs: number
  /** The headers' largest total size, in bytes. */
  readonly maxHeaderBytes: number
  /** Connections open at once; more are closed as they come. */
  readonly maxConnections: number
}

export const ServerLimitDefaults: ServerLimits = {
  maxRequestBytes: 7 * 1024 * 1024,
  headersTimeoutMs: 32_000,
  requestTimeoutMs: 60_000,
  idleTimeoutMs: 90_000,
  maxHeaderBytes: 1024 * 1024,
  maxConnections: 1024,
}

/** The options of `http.createServer` / `https.createServer` that carry the limits. */
export const serverOptions = (limits: ServerLimits = ServerLimitDefaults) => ({
  maxHeaderSize: limits.maxHeaderBytes,
  headersTimeout: limits.headersTimeoutMs,
  requestTimeout: limits.requestTimeoutMs,
  keepAliveTimeout: limits.idleTimeoutMs,
  // Node enforces the two timeouts when it checks its connections, every 30 s by default: often
  // enough that a slow client is cut off close to its timeout.
  connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
})

/** Applies the limits that are set on a server rather than given at its creation. */
export const limitServer = <S extends HttpServer | HttpsServer>(
  server: S,
  limits: ServerLimits = ServerLimitDefaults,
): S => {
  server.maxConnections = limits.maxConnections
  server.headersTimeout = limits.headersTimeoutMs
  server.requestTimeout = limits.requestTimeoutMs
  server.keepAliveTimeout = limits.idleTimeoutMs
  return server
}

/**
 * The body limit of the request being handled: the one its server set (its middleware runs
 * the request {@link withBodyLimit}), else the default.
 */
export const currentBodyLimit: Effect.Effect<number> = Effect.gen(function* () {
  const size = yield* HttpIncomingMessage.MaxBodySize
  return size === undefined ? ServerLimitDefaults.maxRequestBytes : Number(size)
})

/** Runs an effect that reads a request's body with reading bounded at `bytes`. */
export const withBodyLimit = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  bytes: number,
): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, HttpIncomingMessage.MaxBodySize, ByteSize.bytes(bytes))
