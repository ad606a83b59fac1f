import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { Outcome } from "../../../core/krtt/run.ts"
import { interpret, type Ledger } from "./interpret.ts"

describe("interpret: inventory.entry's actions on the data as read", () => {
  it("puts and removes keys, marking the ledger changed only when the data changes", () => {
    const ledger: Ledger = { data: { east: "a", west: "b" }, changed: false }
    const run = (a: Parameters<ReturnType<typeof interpret>>[0]) => Effect.runSync(interpret(ledger)(a))
    expect(run({ _tag: "PutEntry", key: "east", value: "a" })).toEqual(Outcome.done)
    expect(ledger.changed).toBe(false)
    expect(run({ _tag: "RemoveEntry", key: "north" })).toEqual(Outcome.done)
    expect(ledger.changed).toBe(false)
    run({ _tag: "PutEntry", key: "east", value: "c" })
    expect(ledger).toEqual({ data: { east: "c", west: "b" }, changed: true })
    run({ _tag: "RemoveEntry", key: "west" })
    expect(ledger.data).toEqual({ east: "c" })
  })
  it("a debounce's wait is a requeue of the run", () => {
    const ledger: Ledger = { data: {}, changed: false }
    expect(Effect.runSync(interpret(ledger)({ _tag: "RequeueAfter", delay: 1_500 }))).toEqual(
      Outcome.requeue(1_500),
    )
    expect(ledger.changed).toBe(false)
  })
})
