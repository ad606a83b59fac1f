/**
 * Sequences of registry operations (fc.commands) against the invariants seed 002 and its
 * resolutions promise, checked after every step:
 * - an informer runs iff it has at least one dependent (automatic termination on), once the cache
 *   is started and unless a cluster-level informer covers it; and never starts twice;
 * - the cluster/namespace rule: no namespace-level informer runs while a cluster-level informer of
 *   its GVK and key is registered, and `Covered` means exactly that;
 * - no dependent is ever lost or counted twice: the registry's dependents are exactly those added
 *   and not removed, and an informer leaves with dependents only by telling exactly them;
 * - permission loss stops exactly the affected informer and notifies exactly its dependents.
 */
import * as HashMap from "effect/HashMap"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  apply,
  CLUSTER_SCOPE,
  type Dependent,
  emptyRegistry,
  entries,
  gvkString,
  type InformerRef,
  informersInput,
  isSynced,
  lookup,
  type Operation,
  type Registry,
  read,
  readSlice,
  refString,
  type ScopedCacheOptions,
  scopedCacheOptions,
  summaries,
} from "../../core/scopedcache/index.ts"

const GVKS = [
  { group: "apps", version: "v1", kind: "Deployment" },
  { group: "", version: "v1", kind: "ConfigMap" },
  // the same kind in another group: the registry keys informers by the whole GVK
  { group: "extensions", version: "v1", kind: "Deployment" },
]
const REFS: ReadonlyArray<InformerRef> = ["", "a", "b", "c"].flatMap((namespace) =>
  GVKS.flatMap((gvk) => ["k1", "k2"].map((key) => ({ namespace, gvk, key }))),
)
const UIDS = ["u1", "u2", "u3", "u4"]
const dep = (uid: string): Dependent => ({ uid, kind: "Memcached", namespace: "a", name: `m-${uid}` })
const sameInformer = (a: InformerRef, b: InformerRef) => refString(a) === refString(b)
const clusterPeer = (ref: InformerRef): InformerRef => ({ ...ref, namespace: CLUSTER_SCOPE })

/** The world around the registry: what runs (from the actions) and what the checks remember. */
class World {
  registry: Registry = emptyRegistry
  /** Informers running, by refString, as the actions made them. */
  readonly running = new Set<string>()
  /** The dependents each informer should have: added and not removed, nor told it left. */
  readonly expected = new Map<string, Set<string>>()
  readonly options: ScopedCacheOptions
  constructor(options: ScopedCacheOptions) {
    this.options = options
  }

  step(op: Operation): void {
    const before = this.registry
    const ranBefore = "ref" in op && this.running.has(refString(op.ref))
    const { registry, actions, row } = apply(before, op, this.options)
    this.registry = registry
    const ctx = `${op._tag} ${"ref" in op ? refString(op.ref) : ""} → ${row}`

    // The actions, interpreted: start only what does not run, stop only what runs.
    for (const a of actions) {
      if (a._tag === "StartInformer") {
        expect(this.running.has(refString(a.ref)), `${ctx}: started twice ${refString(a.ref)}`).toBe(false)
        this.running.add(refString(a.ref))
      } else if (a._tag === "StopInformer") {
        expect(
          this.running.has(refString(a.ref)),
          `${ctx}: stopped ${refString(a.ref)} which does not run`,
        ).toBe(true)
        this.running.delete(refString(a.ref))
      }
    }

    // What the model expects of the dependents.
    const key = "ref" in op ? refString(op.ref) : ""
    const set = this.expected.get(key) ?? new Set<string>()
    const notes = actions.filter((a) => a._tag === "NotifyDependents")
    if (op._tag === "AddInformer") this.expected.set(key, set.add(op.dependent.uid))
    if (op._tag === "RemoveInformer") set.delete(op.dependent.uid)
    if (op._tag === "ForceRemove" || (op._tag === "PermissionLost" && ranBefore)) {
      // It left: exactly its dependents are told, once.
      if (set.size === 0) expect(notes, ctx).toEqual([])
      else {
        expect(notes.length, ctx).toBe(1)
        const note = notes[0]
        expect(note?._tag === "NotifyDependents" && sameInformer(note.ref, op.ref), ctx).toBe(true)
        expect(note?._tag === "NotifyDependents" ? note.dependents.map((d) => d.uid) : [], ctx).toEqual(
          [...set].sort(),
        )
      }
      this.expected.delete(key)
    } else expect(notes, `${ctx}: nobody is told unless an informer left`).toEqual([])
    if (op._tag === "PermissionLost") this.checkPermissionLoss(op.ref, before, actions, ctx)
    this.checkInvariants(ctx)
  }

  checkPermissionLoss(
    ref: InformerRef,
    before: Registry,
    actions: ReturnType<typeof apply>["actions"],
    ctx: string,
  ) {
    const was = lookup(before, ref)
    const ran = was !== undefined && (was.state === "Starting" || was.state === "Synced")
    const stops = actions.filter((a) => a._tag === "StopInformer")
    if (!ran) {
      expect(actions, `${ctx}: a 403 for an informer that does not run changes nothing`).toEqual([])
      return
    }
    expect(
      stops.map((s) => refString(s.ref)),
      `${ctx}: exactly the affected informer stops`,
    ).toEqual([refString(ref)])
    expect(actions.filter((a) => a._tag === "Log").length, `${ctx}: one log line`).toBe(1)
    // Anything started is a namespace-level informer the cluster-level one covered.
    for (const a of actions.filter((x) => x._tag === "StartInformer")) {
      expect(ref.namespace, ctx).toBe(CLUSTER_SCOPE)
      expect(lookup(before, a.ref)?.state, ctx).toBe("Covered")
    }
  }

  checkInvariants(ctx: string): void {
    const started = this.registry.started
    let count = 0
    for (const e of entries(this.registry)) {
      count++
      const id = refString(e.ref)
      const deps = e.dependents.toArray().map((d) => d.uid)
      // No dependent lost or counted twice.
      expect(new Set(deps).size, `${ctx}: ${id} counts a dependent twice`).toBe(deps.length)
      expect(deps, `${ctx}: ${id} dependents`).toEqual([...(this.expected.get(id) ?? [])].sort())
      // The cluster/namespace rule.
      const coveredByCluster =
        e.ref.namespace !== CLUSTER_SCOPE && lookup(this.registry, clusterPeer(e.ref)) !== undefined
      expect(e.state === "Covered", `${ctx}: ${id} is Covered iff a cluster-level informer covers it`).toBe(
        coveredByCluster,
      )
      // Runs iff registered, started and not covered; and (automatic termination on) has a dependent.
      const shouldRun = started && !coveredByCluster
      expect(this.running.has(id), `${ctx}: ${id} runs`).toBe(shouldRun)
      expect(e.state === "Pending", `${ctx}: ${id} pending iff not started`).toBe(
        !started && !coveredByCluster,
      )
      if (this.options.automaticTermination)
        expect(deps.length, `${ctx}: ${id} has no dependent`).toBeGreaterThan(0)
    }
    expect(this.registry.size, ctx).toBe(count)
    // Nothing runs that is not registered; every expected dependent is registered.
    for (const id of this.running)
      expect(
        [...entries(this.registry)].some((e) => refString(e.ref) === id),
        `${ctx}: ${id}`,
      ).toBe(true)
    for (const [id, set] of this.expected) {
      if (set.size === 0) continue
      expect(
        [...entries(this.registry)].some((e) => refString(e.ref) === id),
        `${ctx}: ${id} lost its dependents ${[...set]}`,
      ).toBe(true)
    }
    // Reads are served only by registered informers that are not covered, and fail with
    // InformerNotFound exactly when none of the GVK covers the namespace.
    const registered = [...entries(this.registry)]
    for (const gvk of GVKS) {
      const ofGvk = registered.filter((e) => gvkString(e.ref.gvk) === gvkString(gvk))
      for (const namespace of [undefined, CLUSTER_SCOPE, "a", "b", "c"]) {
        const r = read(this.registry, { _tag: "List", gvk, namespace }, this.options)
        const where = `${ctx}: List ${gvkString(gvk)} in ${namespace ?? "every namespace"}`
        if (!started) {
          expect(r.status.outcome === "error" && r.status.error._tag, where).toBe("CacheNotStarted")
          continue
        }
        const serving = ofGvk.filter(
          (e) =>
            e.ref.namespace === CLUSTER_SCOPE ||
            (namespace !== CLUSTER_SCOPE && (namespace === undefined || e.ref.namespace === namespace)),
        )
        if (serving.length === 0) {
          expect(r.status.outcome === "error" && r.status.error._tag, where).toBe("InformerNotFound")
          continue
        }
        expect(r.status.outcome, where).toBe("serve")
        if (r.status.outcome !== "serve") continue
        const from = r.status.from.map(refString).sort()
        const expected = serving
          .filter((e) => e.state !== "Covered")
          .map((e) => refString(e.ref))
          .sort()
        expect(from, where).toEqual(expected)
        for (const f of r.status.from)
          expect(this.running.has(refString(f)), `${where}: ${refString(f)} runs`).toBe(true)
      }
    }
    if (isSynced(this.registry, this.options))
      for (const e of entries(this.registry)) expect(["Synced", "Covered"], ctx).toContain(e.state)
    this.checkStructure(ctx)
  }

  /**
   * The registry's derived structures against brute force over its entries: the peer index (the
   * namespace-level informers of each GVK and key), the slices the tables are given (peers sorted
   * by namespace, whether a cluster-level informer covers), the sorted summaries and read slices.
   */
  checkStructure(ctx: string): void {
    const all = [...entries(this.registry)]
    const sortKey = (r: InformerRef) => [r.namespace, gvkString(r.gvk), r.key].join("\u0001")
    const sorted = <T extends { readonly ref: InformerRef }>(xs: ReadonlyArray<T>) =>
      [...xs].sort((a, b) => (sortKey(a.ref) < sortKey(b.ref) ? -1 : sortKey(a.ref) > sortKey(b.ref) ? 1 : 0))
    const local = all.filter((e) => e.ref.namespace !== CLUSTER_SCOPE)
    expect(
      HashMap.size(this.registry.peerIndex),
      `${ctx}: the peer index has one entry per GVK and key with namespace-level informers`,
    ).toBe(new Set(local.map((e) => `${gvkString(e.ref.gvk)}|${e.ref.key}`)).size)
    for (const ref of REFS) {
      const input = informersInput(this.registry, ref, { _tag: "InformerSynced" }, this.options)
      const peers =
        ref.namespace === CLUSTER_SCOPE
          ? local
              .filter((e) => gvkString(e.ref.gvk) === gvkString(ref.gvk) && e.ref.key === ref.key)
              .map((e) => ({ namespace: e.ref.namespace, state: e.state }))
              .sort((a, b) => (a.namespace < b.namespace ? -1 : 1))
          : []
      expect(input.observed.peers, `${ctx}: peers of ${refString(ref)}`).toEqual(peers)
      expect(input.observed.coveredByCluster, `${ctx}: ${refString(ref)} covered`).toBe(
        ref.namespace !== CLUSTER_SCOPE && lookup(this.registry, clusterPeer(ref)) !== undefined,
      )
    }
    const summary = (e: { readonly ref: InformerRef; readonly state: string }) => ({
      ref: e.ref,
      state: e.state,
    })
    expect(summaries(this.registry), `${ctx}: summaries sorted by namespace, GVK, key`).toEqual(
      sorted(all).map(summary),
    )
    for (const gvk of GVKS) {
      const ofGvk = all.filter((e) => gvkString(e.ref.gvk) === gvkString(gvk))
      for (const namespace of [undefined, CLUSTER_SCOPE, "a", "b"]) {
        const want = sorted(
          ofGvk.filter(
            (e) =>
              e.ref.namespace === CLUSTER_SCOPE ||
              (namespace !== CLUSTER_SCOPE && (namespace === undefined || e.ref.namespace === namespace)),
          ),
        ).map(summary)
        expect(readSlice(this.registry, { _tag: "List", gvk, namespace }), `${ctx}: read slice`).toEqual(want)
        if (namespace !== undefined)
          expect(
            readSlice(this.registry, { _tag: "GetInformer", ref: { namespace, gvk, key: "k1" } }),
            `${ctx}: GetInformer slice`,
          ).toEqual(want)
      }
    }
  }
}

class Step implements fc.Command<object, World> {
  readonly op: Operation
  constructor(op: Operation) {
    this.op = op
  }
  check = () => true
  run(_: object, world: World): void {
    world.step(this.op)
  }
  toString = () => JSON.stringify(this.op)
}

const refArb = fc.constantFrom(...REFS)
const depArb = fc.constantFrom(...UIDS).map(dep)
const commands = fc.commands(
  [
    fc.record({ ref: refArb, dependent: depArb }).map((x) => new Step({ _tag: "AddInformer", ...x })),
    fc.record({ ref: refArb, dependent: depArb }).map((x) => new Step({ _tag: "AddInformer", ...x })),
    fc.record({ ref: refArb, dependent: depArb }).map((x) => new Step({ _tag: "RemoveInformer", ...x })),
    refArb.map((ref) => new Step({ _tag: "ForceRemove", ref })),
    fc
      .record({ ref: refArb, verb: fc.constantFrom("list" as const, "watch" as const) })
      .map((x) => new Step({ _tag: "PermissionLost", ...x, message: "forbidden" })),
    refArb.map((ref) => new Step({ _tag: "InformerSynced", ref })),
    fc.constant(new Step({ _tag: "Start" })),
  ],
  { maxCommands: 60 },
)

describe("scoped cache registry sequences (seed 002)", () => {
  it("keeps its invariants with automatic termination on (the default)", () => {
    fc.assert(
      fc.property(commands, (cmds) =>
        fc.modelRun(() => ({ model: {}, real: new World(scopedCacheOptions()) }), cmds),
      ),
      { numRuns: 400 },
    )
  })

  it("keeps its invariants with automatic termination off (informers without dependents keep running)", () => {
    const off = scopedCacheOptions({ automaticTermination: false })
    fc.assert(
      fc.property(commands, (cmds) => fc.modelRun(() => ({ model: {}, real: new World(off) }), cmds)),
      { numRuns: 400 },
    )
  })

  it("the checks fail on a registry that loses a dependent", () => {
    const w = new World(scopedCacheOptions())
    w.step({ _tag: "Start" })
    w.step({ _tag: "AddInformer", ref: REFS[2] as InformerRef, dependent: dep("u1") })
    w.expected.get(refString(REFS[2] as InformerRef))?.add("u9")
    expect(() => w.checkInvariants("tampered")).toThrow(/dependents/)
  })
})
