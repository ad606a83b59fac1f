// The queue drill (queueDrill.ts): silent over the runtime's work queue and controller, and a
// queue that breaks one of their promises is reported.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { make as makeQueue } from "../workqueue/workQueue.ts"
import { captureLogs } from "./logLines.ts"
import { runQueueDrill } from "./queueDrill.ts"
import type { MakeQueue } from "./queueRetries.ts"

/** Runs the drill to its end on the test clock (at most 2 min of it): its reports and log lines. */
const drill = (make?: MakeQueue) =>
  Effect.gen(function* () {
    const reports: Array<string> = []
    const [, logs] = yield* captureLogs(
      Effect.scoped(
        Effect.gen(function* () {
          const fiber = yield* Effect.forkScoped(runQueueDrill((m) => reports.push(m), make))
          for (let i = 0; i < 120 && fiber.pollUnsafe() === undefined; i++)
            yield* TestClock.adjust("1 second")
          yield* Fiber.join(fiber)
        }),
      ),
    )
    return { reports, logs }
  })

describe("the queue drill", () => {
  it.effect("reports nothing over the runtime's queue, and logs what it saw", () =>
    Effect.gen(function* () {
      const { reports, logs } = yield* drill()
      assert.deepStrictEqual(reports, [])
      const retries = logs.find((l) => l.includes("queue drill: retries after the bucket"))
      assert.include(
        retries,
        '"outcomes",{"fails-0":"retried after 5 ms","fails-1":"retried after 5 ms","interrupted":"not retried","fails-2":"retried after 5 ms","fails-3":"retried after 500 ms","dies":"retried after 1000 ms","late":"retried after 1400 ms","refilled":"retried after 5 ms"}',
      )
      assert.isTrue(
        logs.some((l) =>
          l.includes('"workqueue_adds_total{\\"name\\":\\"chaos-drill-backlog\\"} Counter 6"'),
        ),
      )
    }),
  )

  it.effect("reports a queue that ignores its bucket: retries beyond the burst come back at once", () =>
    Effect.gen(function* () {
      const { reports } = yield* drill((options) => makeQueue({ ...options, bucket: undefined }))
      assert.include(
        reports,
        'queue drill: fails-3 was retried after 5 ms, where with the bucket {"qps":2,"burst":3} it is retried after 500 ms',
      )
    }),
  )

  it.effect("reports a queue whose shutdown stops nothing: its backlog is reconciled after the stop", () =>
    Effect.gen(function* () {
      const { reports } = yield* drill((options) =>
        Effect.map(makeQueue(options), (q) => ({ ...q, shutdown: Effect.void })),
      )
      assert.isTrue(
        reports.some((r) =>
          r.startsWith(
            "queue drill: once stopped with a backlog: startedAfter is flaky,flaky,blocker,backlog-1",
          ),
        ),
        reports.join("\n"),
      )
    }),
  )

  it.effect("reports a queue that counts requests in flight as waiting", () =>
    Effect.gen(function* () {
      const { reports } = yield* drill((options) =>
        Effect.map(makeQueue(options), (q) => ({
          ...q,
          length: Effect.zipWith(q.length, q.processing, (ready, busy) => ready + busy),
        })),
      )
      assert.include(
        reports,
        "queue drill: while the blocker runs with three waiting: length is 4, where it must be 3",
      )
    }),
  )
})
