/**
 * Workers: `concurrency` fibers that take requests from a queue, handle them, and mark them
 * done, until the queue shuts down. The queue guarantees that no two workers hold the same
 * request at once.
 *
 * @module
 */
import { Effect } from "effect"
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
  const worker: Effect.Effect<void, E, R> = Effect.gen(function* () {
    while (true) {
      const next = yield* Effect.result(queue.take)
      if (next._tag === "Failure") return
      yield* Effect.ensuring(handle(next.success), queue.done(next.success))
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
