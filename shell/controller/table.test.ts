import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import { describe, expect, it } from "vitest"
import { Outcome, TableLoopError } from "../../core/krtt/run.ts"
import type { TransitionResult } from "../../core/krtt/types.ts"
import { reconcileResult, runTable, type Table } from "./table.ts"

type Result = TransitionResult<string, number>
const answer = (n: number, actions: ReadonlyArray<string>): Result => ({ actions, status: n, row: `t#${n}` })

const table = (
  decide: (trigger: string) => Result,
  run: (action: string) => Outcome<string, string>,
): Table<string, string, number, string, never, never> => ({
  table: "t",
  maxTransitions: 4,
  decide: (t) => Effect.sync(() => decide(t)),
  run: (a) => Effect.sync(() => run(a)),
})

describe("runTable", () => {
  it("steps the core's loop with Effects", async () => {
    const ran: Array<string> = []
    const run = await Effect.runPromise(
      runTable(
        table(
          (t) => (t === "start" ? answer(1, ["connect", "patch"]) : answer(2, ["requeue"])),
          (a) => {
            ran.push(a)
            return a === "connect"
              ? Outcome.next("connected")
              : a === "requeue"
                ? Outcome.requeue(5)
                : Outcome.done
          },
        ),
        "start",
      ),
    )
    expect(ran).toEqual(["connect", "patch", "requeue"])
    expect(run.rows).toEqual(["t#1", "t#2"])
    expect(run.requeueAfter).toBe(5)
  })

  it("skips the rest of an answer after a refusal and logs every deciding row at debug level", async () => {
    const ran: Array<string> = []
    const logged: Array<unknown> = []
    const capture = Logger.layer([
      Logger.make((o) => {
        logged.push([o.message, o.fiber.getRef(References.CurrentLogAnnotations)])
      }),
    ])
    const run = await Effect.runPromise(
      runTable(
        table(
          (t) => (t === "start" ? answer(1, ["refused", "patch"]) : answer(2, ["patch"])),
          (a) => {
            ran.push(a)
            return a === "refused" ? Outcome.failed("failed", "forbidden") : Outcome.done
          },
        ),
        "start",
      ).pipe(Effect.provide(capture), Effect.provideService(References.MinimumLogLevel, "Debug")),
    )
    expect(ran).toEqual(["refused", "patch"])
    expect(run.failure).toBe("forbidden")
    expect(logged).toEqual([
      [["table decided"], { row: "t#1" }],
      [["table decided"], { row: "t#2" }],
    ])
  })

  it("fails with TableLoopError past the bound", async () => {
    const exit = await Effect.runPromiseExit(
      runTable(
        table(
          () => answer(1, ["a"]),
          () => Outcome.next("again"),
        ),
        "start",
      ),
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
    expect(error).toMatchObject({ error: { _tag: "TableLoopError", rows: ["t#1", "t#1", "t#1", "t#1"] } })
    expect(error !== undefined && "error" in error && error.error instanceof TableLoopError).toBe(true)
  })
})

describe("reconcileResult", () => {
  const last = answer(3, [])
  it("requeues when asked, even after a failure", async () => {
    const r = await Effect.runPromise(
      reconcileResult({ rows: [], last, requeueAfter: 10, failure: "x" }, (f) => new Error(f)),
    )
    expect(r).toEqual({ requeueAfter: 10, row: "t#3" })
  })
  it("fails with the failure and the row otherwise", async () => {
    const exit = await Effect.runPromiseExit(
      reconcileResult(
        { rows: [], last, requeueAfter: undefined, failure: "refused" },
        (f, row) => `${f} at ${row}`,
      ),
    )
    expect(exit).toEqual(Exit.fail("refused at t#3"))
  })
  it("is done with the row when nothing was asked", async () => {
    const r = await Effect.runPromise(
      reconcileResult({ rows: [], last, requeueAfter: undefined, failure: undefined }, (f) => f),
    )
    expect(r).toEqual({ row: "t#3" })
  })
})
