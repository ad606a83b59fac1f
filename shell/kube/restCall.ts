/**
 * Sends the REST client's requests (requests.ts): one token of the client's bucket per request,
 * then the transport. A call answers the parsed body of a 2xx response and fails with the
 * `KubeError` its status maps to otherwise; a watch answers the stream of its events.
 *
 * # Guarantees
 * - A watch that does not answer within the client's timeout fails with a 504 `KubeError`; once
 *   it answered, the stream runs until the server ends it (the watch's own `timeoutSeconds`).
 * - Lines of a watch that do not parse as events are skipped.
 *
 * @module
 */
import type { KubeConfig } from "@kubernetes/client-node"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import { fromStatus, type KubeError } from "./errors.ts"
import type { ClientOptions } from "./options.ts"
import type { RateLimiter } from "./rateLimiter.ts"
import type { CallRequest, watchRequest } from "./requests.ts"
import type { KubeObject } from "./resource.ts"
import { networkError, open, readBody, send } from "./transport.ts"
import { parseWatchLine, type WatchEvent } from "./watch.ts"

/** What a REST client sends through: the kubeconfig (read on every request), its bucket and timeout. */
export interface Connection {
  readonly kc: KubeConfig
  readonly options: ClientOptions
  readonly limiter: RateLimiter
  readonly timeoutMs: number
}

/** Sends one request; a non-2xx status fails with its `KubeError`. */
export const call = (c: Connection, req: CallRequest): Effect.Effect<unknown, KubeError> =>
  Effect.gen(function* () {
    yield* c.limiter.take
    const { verb, path, body } = req
    const request = {
      verb,
      method: req.method,
      path,
      query: req.query,
      headers: body === undefined ? undefined : { "Content-Type": body.contentType },
      body: body === undefined ? undefined : JSON.stringify(body.value),
    }
    const res = yield* send(c.kc, request, {
      userAgent: c.options.userAgent,
      timeoutMs: req.timeoutMs ?? c.timeoutMs,
    })
    if (res.status >= 200 && res.status < 300) return res.body
    return yield* Effect.fail(fromStatus({ verb, path }, res.status, res.body))
  })

/** Opens a watch and streams its events, one per line of the response. */
export const watchStream = <T extends KubeObject>(
  c: Connection,
  request: ReturnType<typeof watchRequest>,
): Stream.Stream<WatchEvent<T>, KubeError> =>
  Stream.unwrap(
    Effect.gen(function* () {
      yield* c.limiter.take
      const res = yield* open(c.kc, request, c.options.userAgent).pipe(
        Effect.timeoutOrElse({
          duration: c.timeoutMs,
          orElse: () => Effect.fail(fromStatus(request, 504, `no response within ${c.timeoutMs} ms`)),
        }),
      )
      if (res.statusCode !== 200) {
        const body = yield* readBody(res, request)
        return yield* Effect.fail(fromStatus(request, res.statusCode ?? 0, body))
      }
      return Stream.fromAsyncIterable(res, (e) => networkError(request, e)).pipe(
        Stream.map((chunk) => chunk as Uint8Array),
        Stream.decodeText,
        Stream.splitLines,
        Stream.filterMap((line) => {
          const event = parseWatchLine(line)
          return event === undefined ? Result.failVoid : Result.succeed(event as WatchEvent<T>)
        }),
      )
    }),
  )
