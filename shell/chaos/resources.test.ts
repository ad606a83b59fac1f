// The work ledger's backoff check (shell/chaos/resources.ts): a first retry after a reconcile
// that reset the backoff must wait as long as any first retry; one that waits twice that is named.
import { describe, expect, it } from "vitest"
import { HubCluster, makeRequest, type Request } from "../workqueue/request.ts"
import { WorkLedger } from "./resources.ts"

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
    fail(ledger, p1, 11)
    ledger.booked("cluster", p1, "requeue_after")
    fail(ledger, p1, 12)
    expect(ledger.unresetBackoffs()).toEqual([
      "backoff: cluster retried chaos/p1 after 12 ms at its first failure since a reset, where a first failure waits 6 ms: its backoff was not reset",
    ])
  })
})
