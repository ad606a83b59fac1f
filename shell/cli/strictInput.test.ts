/**
 * `krtt explain` inputs are strict: an unknown key is an error naming the
 * closest known key, negative durations and counts are refused, and a time later than `now` is
 * refused; the binary exits 2 for each, as for every input error, and for a command line the
 * CLI refuses.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { closestKey, decodeInput, explainReconcile, knownKeysAt, UsageError } from "./explain.ts"

const probeDue = {
  observed: {
    accessor: {
      connected: true,
      lastProbeTime: 0,
      lastProbeSuccessTime: 0,
      consecutiveFailures: 0,
      watches: [],
      lastEventSent: {},
      privateKeyGenerated: true,
    },
  },
  desired: { cluster: { _tag: "Found", infrastructureProvisioned: true, deleting: false }, sources: [] },
  trigger: { _tag: "Reconcile" },
  now: 10_000,
}

const refusal = (input: unknown): string => {
  try {
    decodeInput("clustercache.reconciler", JSON.stringify(input))
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError)
    return (e as Error).message
  }
  throw new Error("the input was accepted")
}

describe("strict explain inputs", () => {
  it("accepts the well-formed input", () => {
    expect(decodeInput("clustercache.reconciler", JSON.stringify(probeDue))).toBeDefined()
  })

  it("an unknown key names the path and the closest known key", () => {
    const typo = structuredClone(probeDue) as Record<string, unknown> & typeof probeDue
    ;(typo.observed.accessor as Record<string, unknown>).lastProbTime = 5
    const m = refusal(typo)
    expect(m).toContain('input.observed.accessor.lastProbTime: unknown key "lastProbTime"')
    expect(m).toContain('did you mean "lastProbeTime"?')
  })

  it("an unknown key inside a tagged union member is found through the union", () => {
    const m = refusal({ ...probeDue, trigger: { _tag: "Reconcile", forced: true } })
    expect(m).toContain('input.trigger.forced: unknown key "forced"')
  })

  it("an unknown top-level key names the closest of observed, desired, trigger, now", () => {
    const { now: _, ...rest } = probeDue
    expect(refusal({ ...rest, nwo: 1 })).toContain('did you mean "now"?')
  })

  it("negative counts and durations are refused", () => {
    const negCount = structuredClone(probeDue)
    negCount.observed.accessor.consecutiveFailures = -1
    expect(refusal(negCount)).toContain("input.observed.accessor.consecutiveFailures")
    const negDuration = {
      ...probeDue,
      trigger: { _tag: "PhasesComplete", didConnect: false, didDisconnect: false, requeueAfter: [-5] },
    }
    expect(refusal(negDuration)).toContain("input.trigger.requeueAfter[0]")
  })

  it("a time later than now is refused, naming the field", () => {
    const future = structuredClone(probeDue)
    future.observed.accessor.lastProbeTime = 10_001
    expect(refusal(future)).toContain("input.observed.accessor.lastProbeTime")
    // Exactly now is a time that has happened.
    const atNow = structuredClone(probeDue)
    atNow.observed.accessor.lastProbeTime = 10_000
    expect(decodeInput("clustercache.reconciler", JSON.stringify(atNow))).toBeDefined()
  })

  it("closestKey() suggests only near misses", () => {
    expect(closestKey("namspace", ["name", "namespace"])).toBe("namespace")
    expect(closestKey("zzzzzz", ["name", "namespace"])).toBeUndefined()
  })

  it("knownKeysAt() follows structs, unions and arrays", () => {
    const S = Schema.Struct({
      a: Schema.Array(Schema.Struct({ x: Schema.Number, y: Schema.Number })),
      u: Schema.Union([Schema.Struct({ p: Schema.Number }), Schema.Struct({ q: Schema.Number })]),
    })
    expect([...knownKeysAt(S.ast, [])]).toEqual(["a", "u"])
    expect([...knownKeysAt(S.ast, ["a", 0])]).toEqual(["x", "y"])
    expect([...knownKeysAt(S.ast, ["u"])].sort()).toEqual(["p", "q"])
  })
})

describe("krtt explain exit codes", () => {
  const dir = mkdtempSync(join(tmpdir(), "krtt-strict-"))
  const krtt = (...args: ReadonlyArray<string>) =>
    spawnSync(process.execPath, ["bin/krtt.js", ...args], { encoding: "utf8" })

  it("an input with an unknown key exits 2 with one message and no stack", () => {
    const file = join(dir, "typo.json")
    writeFileSync(file, JSON.stringify({ ...probeDue, nwo: 1 }))
    const r = krtt("explain", "clustercache.reconciler", "--input", file)
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('did you mean "now"?')
    expect(r.stderr).not.toMatch(/\n\s+at /)
  })

  it("a missing --input and an unknown flag exit 2", () => {
    expect(krtt("explain", "clustercache.reconciler").status).toBe(2)
    expect(krtt("explain", "clustercache.reconciler", "--inptu", "x").status).toBe(2)
  })
})

describe("infrastructureProvisioned", () => {
  it("may be absent, meaning false, as upstream reads it", () => {
    const input = {
      observed: {},
      desired: { cluster: { _tag: "Found", deleting: false }, sources: [] },
      trigger: { _tag: "Reconcile" },
      now: 10_000,
    }
    const decoded = decodeInput("clustercache.reconciler", JSON.stringify(input)) as {
      desired: { cluster: { infrastructureProvisioned: boolean } }
    }
    expect(decoded.desired.cluster.infrastructureProvisioned).toBe(false)
  })
})

describe("krtt explain --reconcile", () => {
  const fifthFailure = {
    observed: { accessor: { ...probeDue.observed.accessor, consecutiveFailures: 4 } },
    desired: { ...probeDue.desired, sources: [{ name: "machine", probeFailureDurations: [] }] },
    now: 10_000,
    world: { probe: "failure" },
  }
  it("runs a whole reconcile through the driver and names every step's row (Reconciler rows 7, 10, 12)", () => {
    const r = explainReconcile("clustercache.reconciler", JSON.stringify(fifthFailure))
    expect(r.steps.map((s) => s.row)).toEqual([
      "clustercache.reconciler#7",
      "clustercache.reconciler#10",
      "clustercache.reconciler#12",
    ])
    expect(r.steps[1]?.text["Reconciliation Action"]).toContain("Disconnect()")
    expect(r.requeueAfter).toBe(30_000)
    expect(r.disconnected).toBe(true)
    expect(r.events).toEqual([{ _tag: "SendEvent", source: "machine", reasons: ["disconnect"] }])
  })
  it("a connect goes through the clusterAccessor table's rows", () => {
    const r = explainReconcile(
      "clustercache.reconciler",
      JSON.stringify({ ...fifthFailure, observed: {}, world: { connect: { ok: true } } }),
    )
    expect(r.steps.some((s) => s.row.startsWith("clustercache.accessor#"))).toBe(true)
    expect(r.connectAttempt).toBe("succeeded")
  })
  it("an answer the reconcile needs but the input lacks is named", () => {
    expect(() =>
      explainReconcile("clustercache.reconciler", JSON.stringify({ ...fifthFailure, world: {} })),
    ).toThrow("input.world.probe")
  })
  it("is refused for other tables", () => {
    expect(() => explainReconcile("clustercache.health", JSON.stringify(fifthFailure))).toThrow(
      /use it with the table clustercache.reconciler/,
    )
  })
})
