import { assert, describe, it } from "@effect/vitest"
import { Unreachable } from "../kube/errors.ts"
import { backoffDelay, ReflectorDefaults, reflectorTiming } from "./options.ts"
import { type Phase, step } from "./step.ts"

const error = new Unreachable({ verb: "watch", path: "/x", message: "refused" })
const watching = (attempt: number): Phase => ({ _tag: "Watch", resourceVersion: "5", attempt })

describe("step", () => {
  it("watches from the list's resourceVersion at once after a list", () => {
    assert.deepStrictEqual(step({ _tag: "List", attempt: 0 }, { _tag: "Listed", resourceVersion: "7" }), {
      next: { _tag: "Watch", resourceVersion: "7", attempt: 0 },
      backoffAttempt: undefined,
    })
  })

  it("backs off between failed lists with growing attempts", () => {
    const s = step({ _tag: "List", attempt: 2 }, { _tag: "ListFailed", error })
    assert.deepStrictEqual(s, { next: { _tag: "List", attempt: 3 }, backoffAttempt: 2 })
  })

  it("relists at once on 410 Gone, and backs off when 410s repeat without progress", () => {
    // The first 410 relists at once; the relist counts as an attempt, so a second 410 without progress waits.
    assert.deepStrictEqual(step(watching(0), { _tag: "Expired", progressed: false }), {
      next: { _tag: "List", attempt: 1 },
      backoffAttempt: undefined,
    })
    assert.deepStrictEqual(step(watching(3), { _tag: "Expired", progressed: true }), {
      next: { _tag: "List", attempt: 0 },
      backoffAttempt: undefined,
    })
    assert.deepStrictEqual(step(watching(2), { _tag: "Expired", progressed: false }), {
      next: { _tag: "List", attempt: 3 },
      backoffAttempt: 2,
    })
  })

  it("restarts a silent watch at once from the last resourceVersion", () => {
    assert.deepStrictEqual(step(watching(4), { _tag: "Silent", resourceVersion: "9" }), {
      next: { _tag: "Watch", resourceVersion: "9", attempt: 0 },
      backoffAttempt: undefined,
    })
  })

  it("re-watches at once after the server ends a watch that delivered events, with backoff after one that did not", () => {
    assert.deepStrictEqual(step(watching(3), { _tag: "Ended", resourceVersion: "9", progressed: true }), {
      next: { _tag: "Watch", resourceVersion: "9", attempt: 0 },
      backoffAttempt: undefined,
    })
    assert.deepStrictEqual(step(watching(3), { _tag: "Ended", resourceVersion: "9", progressed: false }), {
      next: { _tag: "Watch", resourceVersion: "9", attempt: 4 },
      backoffAttempt: 3,
    })
  })

  it("backs off after a failed watch, starting over when the watch had made progress", () => {
    assert.deepStrictEqual(
      step(watching(3), { _tag: "Failed", error, resourceVersion: "9", progressed: true }),
      {
        next: { _tag: "Watch", resourceVersion: "9", attempt: 1 },
        backoffAttempt: 0,
      },
    )
    assert.deepStrictEqual(
      step(watching(3), { _tag: "Failed", error, resourceVersion: "9", progressed: false }),
      { next: { _tag: "Watch", resourceVersion: "9", attempt: 4 }, backoffAttempt: 3 },
    )
  })
})

describe("backoffDelay", () => {
  it("doubles from 800 ms, caps at 30 s, and jitters down by at most 20% by default", () => {
    const b = ReflectorDefaults.backoff
    assert.deepStrictEqual(
      [0, 1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelay(b, n, 0)),
      [800, 1600, 3200, 6400, 12800, 25600, 30000, 30000],
    )
    assert.strictEqual(backoffDelay(b, 0, 0.999), Math.round(800 * (1 - 0.2 * 0.999)))
    assert.strictEqual(backoffDelay(b, 50, 0.5), 27000)
    assert.strictEqual(backoffDelay(b, -3, 0), 800, "a negative attempt counts as the first")
  })

  it("clamps the jitter share to 0 … 1", () => {
    const b = { ...ReflectorDefaults.backoff, jitter: 5 }
    assert.strictEqual(backoffDelay(b, 0, 0.5), 400)
    assert.strictEqual(backoffDelay({ ...b, jitter: -1 }, 0, 0.5), 800)
  })
})

describe("reflectorTiming", () => {
  it("is 500 per page, 5 min watches and inactivity timeout, 800 ms … 30 s backoff by 2 with 20% jitter", () => {
    assert.deepStrictEqual(reflectorTiming(), ReflectorDefaults)
    assert.deepStrictEqual(ReflectorDefaults, {
      pageSize: 500,
      watchTimeout: "5 minutes",
      inactivityTimeout: "5 minutes",
      backoff: { initial: "800 millis", max: "30 seconds", factor: 2, jitter: 0.2 },
    })
  })

  it("merges overrides over the defaults, the backoff field by field", () => {
    const t = reflectorTiming({ pageSize: 10, backoff: { jitter: 0 } })
    assert.strictEqual(t.pageSize, 10)
    assert.strictEqual(t.inactivityTimeout, "5 minutes")
    assert.deepStrictEqual(t.backoff, { initial: "800 millis", max: "30 seconds", factor: 2, jitter: 0 })
  })
})
