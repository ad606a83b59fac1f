/**
 * `krtt explain scopedcache.<table>`: inputs are strict (an unknown key names the closest known
 * one, also inside dependents), a dependent listed twice is refused, and a good input names its
 * row. The examples of docs/scopedcache-inputs.md are checked by docs/inputs.test.ts.
 */
import { describe, expect, it } from "vitest"
import { decodeInput, explainInput, renderTables, UsageError } from "../../shell/cli/explain.ts"

const ref = {
  namespace: "team-a",
  gvk: { group: "apps", version: "v1", kind: "Deployment" },
  key: "apps/v1/Deployment",
}
const m1 = { uid: "m1", kind: "Memcached", namespace: "team-a", name: "cache-1" }
const lost = {
  observed: {
    started: true,
    coveredByCluster: false,
    peers: [],
    informer: { state: "Synced", dependents: [m1] },
  },
  desired: { ref, automaticTermination: true },
  trigger: { _tag: "PermissionLost", verb: "watch", message: "forbidden" },
  now: 1_767_225_600_000,
}
const fails = (table: string, input: unknown): string => {
  try {
    decodeInput(table, JSON.stringify(input))
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError)
    return (e as Error).message
  }
  throw new Error("the input was accepted")
}

describe("krtt explain scopedcache.*", () => {
  it("lists the three tables", () => {
    const text = renderTables()
    for (const id of ["scopedcache.informers#16", "scopedcache.lifecycle#4", "scopedcache.reads#6"])
      expect(text).toContain(id)
  })

  it("explains a 403: scopedcache.informers#7 stops the informer and tells its dependents", () => {
    const e = explainInput("scopedcache.informers", JSON.stringify(lost))
    expect(e.row).toBe("scopedcache.informers#7")
    expect(e.conforms).toBe(true)
    expect(e.actions).toContainEqual({ _tag: "StopInformer", ref, reason: "PermissionLost" })
    expect(e.actions.filter((a) => (a as { _tag: string })._tag === "NotifyDependents")).toHaveLength(1)
  })

  it("an unknown key names the closest known one, at the top and inside a dependent", () => {
    const typo = {
      ...lost,
      desird: {},
      observed: { ...lost.observed, informer: { state: "Synced", dependents: [{ uid: "m1", nmae: "x" }] } },
    }
    const msg = fails("scopedcache.informers", typo)
    expect(msg).toContain('input.desird: unknown key "desird"; did you mean "desired"?')
    expect(msg).toContain(
      'input.observed.informer.dependents[0].nmae: unknown key "nmae"; did you mean "name"?',
    )
    expect(msg).toContain("docs/scopedcache-inputs.md")
  })

  it("refuses a dependent listed twice, an unknown state and an unknown read", () => {
    const twice = {
      ...lost,
      observed: { ...lost.observed, informer: { state: "Synced", dependents: [m1, m1] } },
    }
    expect(fails("scopedcache.informers", twice)).toContain('dependent UID "m1" appears twice')
    const badState = {
      ...lost,
      observed: { ...lost.observed, informer: { state: "Running", dependents: [] } },
    }
    expect(fails("scopedcache.informers", badState)).toContain("input.observed.informer.state")
    const read = {
      observed: { started: true, informers: [] },
      desired: {},
      trigger: { _tag: "Watch" },
      now: 0,
    }
    expect(fails("scopedcache.reads", read)).toContain("input.trigger")
  })
})
