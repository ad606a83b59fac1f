/**
 * Path cover of the registry (style habit 10): a breadth-first search from the empty registry
 * over real operations reaches every row of every scoped cache table, and names the shortest
 * sequence that does. A row no sequence of operations reaches would be a row of the spec that the
 * cache can never take; the generated slices of the conformance tests cannot show that.
 */
import { describe, expect, it } from "vitest"
import {
  apply,
  type Dependent,
  emptyRegistry,
  type InformerRef,
  isSynced,
  type Operation,
  type ReadsTrigger,
  type Registry,
  read,
  refString,
  type ScopedCacheOptions,
  scopedCacheOptions,
  toJson,
} from "../../core/scopedcache/index.ts"
import { tables } from "../../spec/scopedcache/index.ts"

const gvk = { group: "apps", version: "v1", kind: "Deployment" }
const ref = (namespace: string): InformerRef => ({ namespace, gvk, key: "apps/v1/Deployment" })
const dep = (uid: string): Dependent => ({ uid })
const REFS = [ref(""), ref("a"), ref("b")]
const OPS: ReadonlyArray<Operation> = [
  { _tag: "Start" },
  ...REFS.flatMap(
    (r): ReadonlyArray<Operation> => [
      { _tag: "AddInformer", ref: r, dependent: dep("u1") },
      { _tag: "AddInformer", ref: r, dependent: dep("u2") },
      { _tag: "RemoveInformer", ref: r, dependent: dep("u1") },
      { _tag: "ForceRemove", ref: r },
      { _tag: "PermissionLost", ref: r, verb: "watch", message: "forbidden" },
      { _tag: "InformerSynced", ref: r },
    ],
  ),
]
const READS: ReadonlyArray<ReadsTrigger> = [
  { _tag: "Get", gvk, namespace: "a", name: "x" },
  { _tag: "List", gvk, namespace: "a" },
  { _tag: "List", gvk },
  { _tag: "GetInformer", ref: ref("a") },
]
const show = (op: Operation) =>
  op._tag === "Start"
    ? "Start"
    : `${op._tag}(${refString(op.ref).split("/")[0]}${"dependent" in op ? `, ${op.dependent.uid}` : ""})`

/** The shortest operation sequence that makes each row decide, searching at most `limit` registries. */
const cover = (options: ScopedCacheOptions, limit: number): Map<string, ReadonlyArray<string>> => {
  const found = new Map<string, ReadonlyArray<string>>()
  const seen = new Set<string>([JSON.stringify(toJson(emptyRegistry))])
  let frontier: Array<{ registry: Registry; path: ReadonlyArray<string> }> = [
    { registry: emptyRegistry, path: [] },
  ]
  while (frontier.length > 0 && seen.size < limit) {
    const next: typeof frontier = []
    for (const { registry, path } of frontier) {
      for (const t of READS) {
        const row = read(registry, t, options).row
        if (!found.has(row)) found.set(row, [...path, t._tag])
      }
      const synced = isSynced(registry, options) ? "WaitForCacheSync" : undefined
      if (synced !== undefined && !found.has("scopedcache.lifecycle#3"))
        found.set("scopedcache.lifecycle#3", [...path, synced])
      for (const op of OPS) {
        const step = apply(registry, op, options)
        const p = [...path, show(op)]
        if (!found.has(step.row)) found.set(step.row, p)
        const key = JSON.stringify(toJson(step.registry))
        if (!seen.has(key)) {
          seen.add(key)
          next.push({ registry: step.registry, path: p })
        }
      }
    }
    frontier = next
  }
  return found
}

describe("path cover of the scoped cache registry", () => {
  const on = cover(scopedCacheOptions(), 5_000)
  const off = cover(scopedCacheOptions({ automaticTermination: false }), 5_000)
  for (const spec of tables) {
    for (const row of spec.rows) {
      const id = `${spec.id}#${row.n}`
      if (id === "scopedcache.lifecycle#2") continue // IsStarted is a question, not an operation of the registry
      it(`${id} is reached by a sequence of operations`, () => {
        const path = on.get(id) ?? off.get(id)
        expect(path, `${id}: no sequence reaches it`).toBeDefined()
        expect((path ?? []).length).toBeLessThanOrEqual(6)
      })
    }
  }
  it("row 13 (termination off) is reached only with automatic termination off, row 5 only with it on", () => {
    expect(on.has("scopedcache.informers#13")).toBe(false)
    expect(off.has("scopedcache.informers#5")).toBe(false)
    expect(off.get("scopedcache.informers#13")).toEqual(["AddInformer(*, u1)", "RemoveInformer(*, u1)"])
  })
})
