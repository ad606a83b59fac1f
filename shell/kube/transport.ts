/**
 * HTTP to one API server over node:http(s), with authentication and TLS taken from a client-node
 * `KubeConfig` (`applyToHTTPSOptions`: CA, client certificates, bearer tokens, auth plugins,
 * proxies). Requests go through the connection pool of their TLS identity (agentPools.ts): clients
 * whose kubeconfigs differ only by token share keep-alive sockets, one parsed CA and TLS
 * sessions; 200 probes of one API server use one socket and one TLS handshake. Proxy agents are
 * used as client-node makes them.
 *
 * Network failures become `Unreachable` (with the system error code), never raw exceptions;
 * headers and kubeconfig contents never appear in errors or logs.
 *
 * @module
 */
import * as http from "node:http"
import * as https from "node:https"
import type { KubeConfig } from "@kubernetes/client-node"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { pooled } from "./agentPools.ts"
import { ApiError, type KubeError, Timeout, Unreachable } from "./errors.ts"

/** One request as the transport sends it. */
export interface HttpRequest {
  readonly method: string
  /** Absolute path, without query. */
  readonly path: string
  readonly query?: Readonly<Record<string, string>> | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly body?: string | undefined
  /** The verb that errors report. */
  readonly verb: string
}

/** A response whose body has been read (JSON-parsed when it parses). */
export interface HttpResponse {
  readonly status: number
  readonly body: unknown
}

const timeoutCodes = new Set(["ETIMEDOUT", "ESOCKETTIMEDOUT", "UND_ERR_CONNECT_TIMEOUT"])

/** The typed error for a socket-level failure. */
export const networkError = (request: { readonly verb: string; readonly path: string }, cause: unknown) => {
  const code =
    typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
      ? cause.code
      : undefined
  const message = cause instanceof Error ? cause.message : String(cause)
  const fields = { verb: request.verb, path: request.path, message: message || (code ?? "connection failed") }
  return code !== undefined && timeoutCodes.has(code)
    ? new Timeout(fields)
    : new Unreachable({ ...fields, code })
}

/** Joins the cluster's server URL (which may carry a path prefix) with an API path and query. */
export const requestUrl = (server: string, path: string, query?: Readonly<Record<string, string>>): URL => {
  const url = new URL(server)
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${path}`
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v)
  return url
}

/**
 * Sends a request and waits for the response headers. The response stays open until the scope
 * closes (which aborts the request if it is still running).
 */
export const open = (
  kc: KubeConfig,
  request: HttpRequest,
  userAgent: string,
): Effect.Effect<http.IncomingMessage, KubeError, Scope.Scope> =>
  Effect.gen(function* () {
    const fail = (message: string) =>
      new ApiError({ verb: request.verb, path: request.path, status: 0, message })
    const cluster = kc.getCurrentCluster()
    if (cluster === null) return yield* fail("the kubeconfig has no current cluster")
    const options: https.RequestOptions = {}
    yield* Effect.tryPromise({
      try: () => kc.applyToHTTPSOptions(options),
      catch: (e) =>
        fail(`the kubeconfig could not be applied: ${e instanceof Error ? e.message : String(e)}`),
    })
    const url = requestUrl(cluster.server, request.path, request.query)
    const controller = new AbortController()
    let response: http.IncomingMessage | undefined
    // Abort only what is still running when the scope closes: a watch, an unread body, a
    // timed-out request. A response read to its end has nothing left to abort.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        if (response === undefined || !response.complete) controller.abort()
      }),
    )
    const headers: Record<string, string> = {
      ...(options.headers as Record<string, string> | undefined),
      Accept: "application/json",
      "User-Agent": userAgent,
      ...request.headers,
    }
    if (request.body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(request.body))
    const send = url.protocol === "http:" ? http.request : https.request
    return yield* Effect.callback<http.IncomingMessage, KubeError>((resume) => {
      const req = send(
        url,
        { ...pooled(url, options), method: request.method, headers, signal: controller.signal },
        (res) => {
          response = res
          resume(Effect.succeed(res))
        },
      )
      req.on("error", (e) => resume(Effect.fail(networkError(request, e))))
      req.end(request.body)
    })
  })

/** Reads a whole body; JSON when it parses, else the text. */
export const readBody = (
  res: http.IncomingMessage,
  request: { readonly verb: string; readonly path: string },
): Effect.Effect<unknown, KubeError> =>
  Effect.tryPromise({
    try: async () => {
      const chunks: Array<Buffer> = []
      for await (const chunk of res) chunks.push(chunk as Buffer)
      const text = Buffer.concat(chunks).toString("utf8")
      if (text === "") return undefined
      try {
        return JSON.parse(text) as unknown
      } catch {
        return text
      }
    },
    catch: (e) => networkError(request, e),
  })

/** Sends a request and reads its body, failing with `Timeout` after `timeoutMs`. */
export const send = (
  kc: KubeConfig,
  request: HttpRequest,
  options: { readonly userAgent: string; readonly timeoutMs: number },
): Effect.Effect<HttpResponse, KubeError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const res = yield* open(kc, request, options.userAgent)
      const body = yield* readBody(res, request)
      return { status: res.statusCode ?? 0, body }
    }),
  ).pipe(
    Effect.timeoutOrElse({
      duration: options.timeoutMs,
      orElse: () =>
        Effect.fail(
          new Timeout({
            verb: request.verb,
            path: request.path,
            message: `no response within ${options.timeoutMs} ms`,
          }),
        ),
    }),
  )
