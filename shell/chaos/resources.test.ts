// The work ledger's checks (shell/chaos/resources.ts): a first retry after a reconcile that reset
// the backoff must wait as long as any first retry (one that waits twice that is named), and a
// process's reconcile and retry counters must say what the ledger saw.
import { assert, it as effectIt } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { describe, expect, it } from "vitest"
import * as ControllerMetrics from "../controller/metrics.ts"
import * as QueueMetrics from "../workqueue/metrics.ts"
import { HubCluster, makeRequest, type Request } from "../workqueue/request.ts"
import { ChaosDefaults } from "./perturbations.ts"
import { untruthfulMetrics, WorkLedger } from "./resources.ts"

const p1 = makeRequest({ namespace: "chaos", name: "p1" }, HubCluster)
const p2 = makeRequest({ namespace: "chaos", name: "p2" }, HubCluster)

/** One failed reconcile of `request`, retried after `delay`. */
const fail = (ledger: WorkLedger, request: Request, delay: number) => {
  ledger.started("cluster", request)
  ledger.finished("cluster", request)
  ledger.booked("cluster", request, "error")
  ledger.retried("cluster", request, delay)
}
const succeed = (ledger: WorkLedger, request: Request, outcome: "success" | "requeue" = "success") => {
  ledger.started("cluster", request)
  ledger.finished("cluster", request)
  ledger.booked("cluster", request, outcome)
}

describe("WorkLedger.unresetBackoffs", () => {
  it("accepts backoffs that start over after each success", () => {
    const ledger = new WorkLedger()
    fail(ledger, p1, 5)
    fail(ledger, p1, 10)
    fail(ledger, p1, 20)
    succeed(ledger, p1)
    fail(ledger, p1, 5)
    fail(ledger, p2, 5)
    expect(ledger.unresetBackoffs()).toEqual([])
    const immediate = new WorkLedger()
    fail(immediate, p1, 0)
    fail(immediate, p2, 0)
    expect(immediate.unresetBackoffs()).toEqual([])
  })

  it("names a first retry after a success that waits as long as a later retry would", () => {
    const ledger = new WorkLedger()
    fail(ledger, p2, 5)
    fail(ledger, p1, 5)
    fail(ledger, p1, 10)
    succeed(ledger, p1)
    fail(ledger, p1, 20)
    expect(ledger.unresetBackoffs()).toEqual([
      "backoff: cluster retried chaos/p1 after 20 ms at its first failure since a reset, where a first failure waits 5 ms: its backoff was not reset",
    ])
  })

  it("does not reset on a requeue: its retry is rate-limited, so the next one may wait longer", () => {
    const ledger = new WorkLedger()
    fail(ledger, p1, 5)
    succeed(ledger, p1, "requeue")
    ledger.retried("cluster", p1, 10)
    fail(ledger, p1, 20)
    expect(ledger.unresetBackoffs()).toEqual([])
  })

  it("resets on a terminal error and a requeue-after, and holds the factor of two at its edge", () => {
    const ledger = new WorkLedger()
    fail(ledger, p1, 6)
    ledger.booked("cluster", p1, "terminal")
    fail(ledger, p1, 13)
    ledger.booked("cluster", p1, "requeue_after")
    fail(ledger, p1, 12)
    fail(ledger, p2, 11)
    expect(ledger.unresetBackoffs()).toEqual([
      "backoff: cluster retried chaos/p1 after 12 ms at its first failure since a reset, where a first failure waits 6 ms: its backoff was not reset",
      "backoff: cluster retried chaos/p1 after 13 ms at its first failure since a reset, where a first failure waits 6 ms: its backoff was not reset",
    ])
  })
})

describe("untruthfulMetrics", () => {
  /** A registry holding what `update` counts, and the verdict against `ledger`. */
  const verdict = (ledger: WorkLedger, update: Effect.Effect<void>) =>
    Effect.gen(function* () {
      const registry: Metric.MetricRegistry = new Map()
      yield* Effect.provideService(update, Metric.MetricRegistry, registry)
      return yield* untruthfulMetrics(registry, ledger)
    })
  const series = ControllerMetrics.forController("cluster")
  const bookings = () => {
    const ledger = new WorkLedger()
    fail(ledger, p1, 5)
    fail(ledger, p1, 10)
    succeed(ledger, p1)
    ledger.booked("cluster", p2, "terminal")
    return ledger
  }

  effectIt.effect("accepts counters that say what the ledger saw, summed over clusters", () =>
    Effect.gen(function* () {
      const problems = yield* verdict(
        bookings(),
        Effect.all(
          [
            Metric.update(series.total("error"), 2),
            Metric.update(ControllerMetrics.forControllerCluster("cluster", "east").total("error"), 1),
            Metric.update(series.total("success"), 1),
            Metric.update(series.errors, 3),
            Metric.update(series.terminal, 1),
            Metric.update(QueueMetrics.forQueue("cluster").retries, 2),
          ],
          { discard: true },
        ),
      )
      assert.deepStrictEqual(problems, [])
    }),
  )

  effectIt.effect("names each counter that disagrees", () =>
    Effect.gen(function* () {
      const problems = yield* verdict(
        bookings(),
        Effect.all(
          [
            Metric.update(series.total("error"), 2),
            Metric.update(series.total("requeue"), 1),
            Metric.update(series.errors, 2),
            Metric.update(QueueMetrics.forQueue("cluster").retries, 1),
          ],
          { discard: true },
        ),
      )
      assert.deepStrictEqual(problems, [
        "metrics: controller_runtime_reconcile_errors_total{controller=cluster} reads 2, the controller booked 3",
        "metrics: controller_runtime_reconcile_total{controller=cluster,result=error} reads 2, the controller booked 3",
        "metrics: controller_runtime_reconcile_total{controller=cluster,result=requeue} reads 1, the controller booked 0",
        "metrics: controller_runtime_reconcile_total{controller=cluster,result=success} reads 0, the controller booked 1",
        "metrics: controller_runtime_terminal_reconcile_errors_total{controller=cluster} reads 0, the controller booked 1",
        "metrics: workqueue_retries_total{name=cluster} reads 1, the queue retried 2",
      ])
    }),
  )
})

describe("WorkLedger.busy", () => {
  const reconcile = (ledger: WorkLedger, request: typeof p1, times: number) => {
    for (let i = 0; i < times; i++) {
      ledger.started("cluster", request)
      ledger.finished("cluster", request)
    }
  }

  it("names a request reconciled more than busyReconciles times within busyWindowTicks", () => {
    let tick = 0
    const ledger = new WorkLedger(() => tick, 3)
    reconcile(ledger, p1, 3)
    tick = ChaosDefaults.busyWindowTicks - 1
    reconcile(ledger, p2, 3)
    expect(ledger.busy()).toEqual([])
    reconcile(ledger, p1, 1)
    expect(ledger.busy()).toEqual([
      `busy loop: cluster reconciled chaos/p1 more than 3 times within ${ChaosDefaults.busyWindowTicks} ticks (${(ChaosDefaults.busyWindowTicks * ChaosDefaults.tickMillis) / 1000} s)`,
    ])
    expect(ledger.peakInWindow).toBe(4)
  })

  it("counts only the reconciles of the last busyWindowTicks", () => {
    let tick = 0
    const ledger = new WorkLedger(() => tick, 3)
    reconcile(ledger, p1, 3)
    tick = ChaosDefaults.busyWindowTicks
    reconcile(ledger, p1, 3)
    expect(ledger.busy()).toEqual([])
    expect(ledger.peakInWindow).toBe(3)
  })

  it("slides its window from any tick, and lists each busy request once, sorted", () => {
    let tick = 5
    const ledger = new WorkLedger(() => tick, 3)
    reconcile(ledger, p1, 3)
    tick = 5 + ChaosDefaults.busyWindowTicks
    reconcile(ledger, p1, 3)
    expect(ledger.busy()).toEqual([])
    reconcile(ledger, p2, 5)
    reconcile(ledger, p1, 2)
    expect(ledger.busy().map((b) => b.split(" ")[4])).toEqual(["chaos/p1", "chaos/p2"])
  })

  it("holds the real controllers' numbers by default", () => {
    const ledger = new WorkLedger()
    reconcile(ledger, p1, ChaosDefaults.busyReconciles)
    expect(ledger.busy()).toEqual([])
    reconcile(ledger, p1, 1)
    expect(ledger.busy()).toHaveLength(1)
  })
})
