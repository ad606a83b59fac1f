/**
 * The status promise of every row (spec/cluster/status.ts) catches every way a row's status can be wrong:
 * a renamed reason (`NotDeleting`, `ProbeSucceeded`, any v1beta2 or v1beta1 one), a flipped
 * status, a wrong phase, for every row of every table that writes them. Each check takes the
 * core's real results and breaks one thing in them, as a mutant of `core/cluster/status.ts`
 * would, and the table's row must stop holding.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  ClusterControllerDefaults,
  type ClusterResult,
  type ClusterStatus,
  type Condition,
  transitions,
} from "../../core/cluster/index.ts"
import { explain } from "../../core/krtt/index.ts"
import { arbitraries } from "../../property-tests/cluster/arbitraries.ts"
import { tables } from "./index.ts"
import { expectedV1Beta1, NORMAL, statusWritten } from "./status.ts"

/** The owned conditions as the spec names them (seed 001, Conditions). */
const V1BETA2 = Object.keys(NORMAL)
const V1BETA1 = ["Ready", "ControlPlaneReady", "InfrastructureReady", "ControlPlaneInitialized"] as const

type Edit = (c: Condition) => Condition
const renamed: Edit = (c) => ({ ...c, reason: `${c.reason}X` })
const flipped: Edit = (c) => ({ ...c, status: c.status === "True" ? "False" : "True" })

/** The result with one condition edited, in the status and in the status patch alike. */
const edit = (r: ClusterResult, v1: boolean, type: string, f: Edit): ClusterResult | undefined => {
  const st = r.status
  if (st === undefined) return undefined
  const list = v1 ? st.deprecated?.v1beta1?.conditions : st.conditions
  if (list?.some((c) => c.type === type) !== true) return undefined
  const conditions = list.map((c) => (c.type === type ? f(c) : c))
  const status: ClusterStatus = v1
    ? { ...st, deprecated: { ...st.deprecated, v1beta1: { ...st.deprecated?.v1beta1, conditions } } }
    : { ...st, conditions }
  return withStatus(r, status)
}

const withStatus = (r: ClusterResult, status: ClusterStatus): ClusterResult => ({
  ...r,
  status,
  actions: r.actions.map((a) => (a._tag === "PatchStatus" ? { ...a, status } : a)),
})

describe("the status promise catches a broken status", () => {
  for (const spec of tables) {
    const id = spec.id as keyof typeof transitions
    const inputs = fc.sample(
      arbitraries[id] as fc.Arbitrary<Parameters<(typeof transitions)[typeof id]>[0]>,
      {
        numRuns: 200,
        seed: 11,
      },
    )
    const conforming = inputs.flatMap((i) => {
      const r = transitions[id](i)
      const e = explain(spec, i, r, ClusterControllerDefaults)
      return e.conforms && statusWritten(i) ? [{ i, r, row: e.row }] : []
    })
    const holds = (i: (typeof conforming)[number]["i"], r: ClusterResult, row: string) => {
      const n = Number(row.slice(row.indexOf("#") + 1))
      const rowSpec = spec.rows.find((x) => x.n === n)
      if (rowSpec === undefined) throw new Error(`no row ${row}`)
      return rowSpec.holds(i, r, ClusterControllerDefaults)
    }

    it(`${spec.id}: a renamed or flipped v1beta2/v1beta1 condition, or another phase, breaks the deciding row`, () => {
      expect(conforming.length).toBeGreaterThanOrEqual(100)
      for (const { i, r, row } of conforming) {
        for (const [v1, types] of [
          [false, V1BETA2],
          [true, V1BETA1],
        ] as const) {
          for (const type of types) {
            for (const f of [renamed, flipped]) {
              const broken = edit(r, v1, type, f)
              if (broken === undefined) {
                // Only a v1beta1 condition nothing has set yet is left out.
                expect(v1 && expectedV1Beta1(i)[type] === undefined, `${row}: ${type} missing`).toBe(true)
                continue
              }
              expect(holds(i, broken, row), `${row}: ${v1 ? "v1beta1" : "v1beta2"} ${type} ${f.name}`).toBe(
                false,
              )
            }
          }
        }
        const phase = r.status?.phase === "Provisioned" ? "Provisioning" : "Provisioned"
        expect(holds(i, withStatus(r, { ...r.status, phase }), row), `${row}: phase`).toBe(false)
      }
    })
  }

  it("NotDeleting and ProbeSucceeded by name: the reasons a per-row check could miss", () => {
    const i = fc.sample(
      arbitraries["cluster.normal"] as fc.Arbitrary<Parameters<(typeof transitions)["cluster.normal"]>[0]>,
      { numRuns: 2_000, seed: 5 },
    )
    const spec = tables[0]
    if (spec === undefined) throw new Error("no table")
    let deleting = 0
    let probe = 0
    for (const input of i) {
      const r = transitions["cluster.normal"](input)
      const e = explain(spec, input, r, ClusterControllerDefaults)
      if (!e.conforms || !statusWritten(input)) continue
      const row = spec.rows.find((x) => `${spec.id}#${x.n}` === e.row)
      const c = (type: string) => r.status?.conditions?.find((x) => x.type === type)
      if (c("Deleting")?.reason === "NotDeleting") {
        deleting++
        const broken = edit(r, false, "Deleting", (x) => ({ ...x, reason: "NotBeingDeleted" }))
        expect(broken !== undefined && row?.holds(input, broken, ClusterControllerDefaults)).toBe(false)
      }
      if (c("RemoteConnectionProbe")?.reason === "ProbeSucceeded") {
        probe++
        const broken = edit(r, false, "RemoteConnectionProbe", (x) => ({ ...x, reason: "Succeeded" }))
        expect(broken !== undefined && row?.holds(input, broken, ClusterControllerDefaults)).toBe(false)
      }
    }
    expect(deleting).toBeGreaterThanOrEqual(100)
    expect(probe).toBeGreaterThanOrEqual(100)
  })
})
