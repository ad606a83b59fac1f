import { describe, expect, it } from "vitest"
import { Outcome, runTableSync, TableLoopError } from "./run.ts"
import type { TransitionResult } from "./types.ts"

type Trigger = "start" | "connected" | "failed"
type Action = "connect" | "patch" | "requeue" | "refused" | "second"
type Result = TransitionResult<Action, string>

const answer = (n: number, actions: ReadonlyArray<Action>): Result => ({
  actions,
  status: `s${n}`,
  row: `t#${n}`,
})

const table = (
  decide: (trigger: Trigger) => Result,
  run: (action: Action) => Outcome<Trigger, string>,
  max = 4,
) => ({
  table: "t",
  maxTransitions: max,
  decide,
  run: (action: Action) => run(action),
})

describe("runTableSync", () => {
  it("carries out every action of an answer in order and ends when none names a trigger", () => {
    const ran: Array<Action> = []
    const run = runTableSync(
      table(
        () => answer(1, ["patch", "requeue", "patch"]),
        (a) => {
          ran.push(a)
          return a === "requeue" ? Outcome.requeue(50) : Outcome.done
        },
      ),
      "start",
    )
    expect(ran).toEqual(["patch", "requeue", "patch"])
    expect(run).toEqual({
      rows: ["t#1"],
      last: answer(1, ["patch", "requeue", "patch"]),
      requeueAfter: 50,
      failure: undefined,
    })
  })

  it("asks the table again with a trigger after the rest of the answer, and keeps the shortest requeue", () => {
    const ran: Array<Action> = []
    const decide = (t: Trigger): Result =>
      t === "start" ? answer(1, ["requeue", "connect", "requeue"]) : answer(2, ["requeue"])
    // The shortest asked, neither the first nor the last.
    const requeues = [20, 5, 30]
    const run = runTableSync(
      table(decide, (a) => {
        ran.push(a)
        if (a === "connect") return Outcome.next("connected")
        return Outcome.requeue(requeues.shift() ?? 0)
      }),
      "start",
    )
    expect(ran).toEqual(["requeue", "connect", "requeue", "requeue"])
    expect(run.rows).toEqual(["t#1", "t#2"])
    expect(run.last.row).toBe("t#2")
    expect(run.requeueAfter).toBe(5)
  })

  it("skips the rest of an answer after a refusal, tells the table, and ends in the failure", () => {
    const ran: Array<Action> = []
    const decide = (t: Trigger): Result =>
      t === "start" ? answer(1, ["refused", "patch"]) : answer(2, ["patch"])
    const run = runTableSync(
      table(decide, (a) => {
        ran.push(a)
        return a === "refused" ? Outcome.failed("failed", "forbidden") : Outcome.done
      }),
      "start",
    )
    expect(ran).toEqual(["refused", "patch"])
    expect(run.rows).toEqual(["t#1", "t#2"])
    expect(run.failure).toBe("forbidden")
  })

  it("ends at once with a second failure, and tells the table of one only", () => {
    const asked: Array<Trigger> = []
    const run = runTableSync(
      table(
        (t) => {
          asked.push(t)
          return answer(asked.length, t === "start" ? ["refused"] : ["second", "patch"])
        },
        (a) => (a === "patch" ? Outcome.done : Outcome.failed("failed", a)),
      ),
      "start",
    )
    expect(asked).toEqual(["start", "failed"])
    expect(run.failure).toBe("second")
    expect(run.last.row).toBe("t#2")
  })

  it("fails with TableLoopError naming its rows past the bound", () => {
    const loop = table(
      () => answer(7, ["connect"]),
      () => Outcome.next("connected"),
      3,
    )
    expect(() => runTableSync(loop, "start")).toThrow(TableLoopError)
    try {
      runTableSync(loop, "start")
    } catch (e) {
      expect(e).toMatchObject({ _tag: "TableLoopError", table: "t", bound: 3, rows: ["t#7", "t#7", "t#7"] })
      expect((e as Error).message).toBe(
        "t: a run did not end within 3 transitions (the table loops); rows t#7 t#7 t#7",
      )
    }
  })

  it("runs exactly the bound when the last transition ends the run", () => {
    let n = 0
    const run = runTableSync(
      table(
        () => answer(++n, n < 3 ? ["connect"] : ["patch"]),
        (a) => (a === "connect" ? Outcome.next("connected") : Outcome.done),
        3,
      ),
      "start",
    )
    expect(run.rows).toEqual(["t#1", "t#2", "t#3"])
  })
})
