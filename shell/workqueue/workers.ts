/**
 * Workers: `concurrency` fibers that take requests from a queue, handle them, and mark them
 * done, until the queue shuts down. The queue guarantees that no two workers hold the same
 * request at once.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { Request } from "./request.ts"
import type { WorkQueue } from "./workQueue.ts"

/**
 * Runs `concurrency` workers (at least 1) over `queue`; completes when the queue has shut down
 * and every worker has finished its current request. `done` is called even when `handle` fails,
 * dies or is interrupted; `handle` decides about `forget`/`addRateLimited`/`addAfter` itself.
 */
export const runWorkers = <E, R>(
  queue: WorkQueue,
  concurrency: number,
  handle: (request: Request) => Effect.Effect<void, E, R>,
): Effect.Effect<void, E, R> => {
  /** One round: take, handle, done. `done` is guaranteed once a request was taken. */
  const round: Effect.Effect<boolean, E, R> = Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.result(restore(queue.take)), (next) =>
      next._tag === "Failure"
        ? Effect.succeed(false)
        : Effect.as(Effect.ensuring(restore(handle(next.success)), queue.done(next.success)), true),
    ),
  )
  const worker: Effect.Effect<void, E, R> = Effect.gen(function* () {
    while (yield* round) {
      // next request
    }
  })
  return Effect.asVoid(
    Effect.all(
      Array.from({ length: Math.max(1, Math.floor(concurrency)) }, () => worker),
      {
        concurrency: "unbounded",
      },
    ),
  )
}
