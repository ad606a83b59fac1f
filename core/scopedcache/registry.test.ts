import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { describe, expect, it } from "vitest"
import {
  addInformer,
  apply,
  compareRefs,
  emptyRegistry,
  forceRemove,
  type InformerRef,
  informerSynced,
  isSynced,
  lookup,
  permissionLost,
  read,
  removeInformer,
  ScopedCacheDefaults,
  scopedCacheOptions,
  start,
  toJson,
} from "./index.ts"

const gvk = { group: "apps", version: "v1", kind: "Deployment" }
const ref = (namespace: string, key = "apps/v1/Deployment"): InformerRef => ({ namespace, gvk, key })
const dep = (uid: string) => ({ uid, kind: "Memcached", namespace: "a", name: uid })
const opts = ScopedCacheDefaults

describe("registry", () => {
  it("AddInformer before Start registers a pending informer; Start starts it (scopedcache.informers#1, lifecycle#1)", () => {
    const s1 = addInformer(emptyRegistry, ref("a"), dep("u1"), opts)
    expect(s1.row).toBe("scopedcache.informers#1")
    expect(s1.actions).toEqual([])
    expect(lookup(s1.registry, ref("a"))?.state).toBe("Pending")
    const s2 = start(s1.registry, opts)
    expect(s2.row).toBe("scopedcache.lifecycle#1")
    expect(s2.actions).toEqual([{ _tag: "StartInformer", ref: ref("a") }])
    expect(lookup(s2.registry, ref("a"))?.state).toBe("Starting")
  })

  it("the last dependent removed stops and forgets the informer (scopedcache.informers#5), empty levels pruned", () => {
    let r = start(emptyRegistry, opts).registry
    r = addInformer(r, ref("a"), dep("u1"), opts).registry
    r = addInformer(r, ref("a"), dep("u2"), opts).registry
    expect(addInformer(r, ref("a"), dep("u2"), opts).row).toBe("scopedcache.informers#8")
    const s = removeInformer(r, ref("a"), dep("u1"), opts)
    expect(s.row).toBe("scopedcache.informers#4")
    const last = removeInformer(s.registry, ref("a"), dep("u2"), opts)
    expect(last.row).toBe("scopedcache.informers#5")
    expect(last.actions).toEqual([{ _tag: "StopInformer", ref: ref("a"), reason: "NoDependents" }])
    expect(last.registry.size).toBe(0)
    expect(toJson(last.registry)).toEqual({ started: true, informers: [] })
  })

  it("automatic termination off keeps an informer without dependents (scopedcache.informers#13)", () => {
    const off = scopedCacheOptions({ automaticTermination: false })
    let r = start(emptyRegistry, off).registry
    r = addInformer(r, ref("a"), dep("u1"), off).registry
    const s = removeInformer(r, ref("a"), dep("u1"), off)
    expect(s.row).toBe("scopedcache.informers#13")
    expect(lookup(s.registry, ref("a"))?.dependents.size).toBe(0)
  })

  it("a cluster-level informer covers namespace-level ones of the same GVK and key, and releases them when it goes", () => {
    let r = start(emptyRegistry, opts).registry
    r = addInformer(r, ref("a"), dep("u1"), opts).registry
    r = addInformer(r, ref("b"), dep("u2"), opts).registry
    const c = addInformer(r, ref(""), dep("u3"), opts)
    expect(c.row).toBe("scopedcache.informers#9")
    expect(c.actions).toEqual([
      { _tag: "StartInformer", ref: ref("") },
      { _tag: "StopInformer", ref: ref("a"), reason: "CoveredByCluster" },
      { _tag: "StopInformer", ref: ref("b"), reason: "CoveredByCluster" },
    ])
    expect(lookup(c.registry, ref("a"))?.state).toBe("Covered")
    const ns = addInformer(c.registry, ref("c"), dep("u4"), opts)
    expect(ns.row).toBe("scopedcache.informers#10")
    const lost = permissionLost(ns.registry, ref(""), "watch", "forbidden", opts)
    expect(lost.row).toBe("scopedcache.informers#7")
    expect(lost.actions.map((a) => a._tag)).toEqual([
      "StopInformer",
      "Log",
      "NotifyDependents",
      "StartInformer",
      "StartInformer",
      "StartInformer",
    ])
    expect(lookup(lost.registry, ref("c"))?.state).toBe("Starting")
    expect(lookup(lost.registry, ref(""))).toBeUndefined()
  })

  it("reads are served only by existing informers (scopedcache.reads)", () => {
    let r = addInformer(emptyRegistry, ref("a"), dep("u1"), opts).registry
    expect(read(r, { _tag: "Get", gvk, namespace: "a", name: "x" }, opts).row).toBe("scopedcache.reads#5")
    r = start(r, opts).registry
    expect(read(r, { _tag: "Get", gvk, namespace: "b", name: "x" }, opts).status).toMatchObject({
      outcome: "error",
      error: { _tag: "InformerNotFound" },
    })
    expect(read(r, { _tag: "List", gvk }, opts).status).toEqual({
      outcome: "serve",
      from: [ref("a")],
      waitForSync: true,
      merge: true,
    })
    expect(isSynced(r, opts)).toBe(false)
    r = informerSynced(r, ref("a"), opts).registry
    expect(isSynced(r, opts)).toBe(true)
    expect(read(r, { _tag: "Get", gvk, namespace: "a", name: "x" }, opts).status).toMatchObject({
      waitForSync: false,
    })
  })

  it("a forced removal with dependents notifies them (scopedcache.informers#6)", () => {
    let r = start(emptyRegistry, opts).registry
    r = apply(r, { _tag: "AddInformer", ref: ref("a"), dependent: dep("u1") }, opts).registry
    const s = forceRemove(r, ref("a"), opts)
    expect(s.row).toBe("scopedcache.informers#6")
    expect(s.actions[1]).toMatchObject({
      _tag: "NotifyDependents",
      reason: "InformerRemoved",
      dependents: [dep("u1")],
    })
  })

  it("an operation shares every scope it does not touch (no copy of the whole registry)", () => {
    let r = start(emptyRegistry, opts).registry
    for (const ns of ["a", "b", "c"]) r = addInformer(r, ref(ns), dep(`u-${ns}`), opts).registry
    const scope = (reg: typeof r, ns: string) => Option.getOrUndefined(HashMap.get(reg.scopes, ns))
    const next = addInformer(r, ref("a"), dep("u9"), opts).registry
    expect(scope(next, "b")).toBe(scope(r, "b"))
    expect(scope(next, "c")).toBe(scope(r, "c"))
    expect(scope(next, "a")).not.toBe(scope(r, "a"))
    // the dependents of an informer are shared too, not copied, when another informer changes
    expect(lookup(next, ref("b"))).toBe(lookup(r, ref("b")))
    // an operation that changes nothing returns the same registry
    expect(addInformer(next, ref("a"), dep("u9"), opts).registry).toBe(next)
  })
})

describe("registry order and peer index (seed 002: the same operations give the same actions)", () => {
  it("lists informers, read sources and covered peers sorted by namespace, whatever the insertion order", () => {
    let r = start(emptyRegistry, opts).registry
    for (const ns of ["c", "a", "b"]) r = addInformer(r, ref(ns), dep(`u-${ns}`), opts).registry
    expect(toJson(r).informers.map((i) => i.ref.namespace)).toEqual(["a", "b", "c"])
    const list = read(r, { _tag: "List", gvk }, opts).status
    expect(list).toMatchObject({ from: [ref("a"), ref("b"), ref("c")] })
    const c = addInformer(r, ref(""), dep("u-all"), opts)
    expect(c.actions.map((a) => (a._tag === "StopInformer" ? a.ref.namespace : a._tag))).toEqual([
      "StartInformer",
      "a",
      "b",
      "c",
    ])
  })
  it("a namespace-level informer that left is no peer of a later cluster-level one", () => {
    let r = start(emptyRegistry, opts).registry
    r = addInformer(r, ref("a"), dep("u1"), opts).registry
    r = removeInformer(r, ref("a"), dep("u1"), opts).registry
    const c = addInformer(r, ref(""), dep("u2"), opts)
    expect(c.row).toBe("scopedcache.informers#2")
    expect(c.actions).toEqual([{ _tag: "StartInformer", ref: ref("") }])
    const covered = addInformer(c.registry, ref("b"), dep("u3"), opts)
    expect(covered.row).toBe("scopedcache.informers#10")
    const gone = forceRemove(covered.registry, ref(""), opts)
    expect(gone.actions.filter((a) => a._tag === "StartInformer")).toEqual([
      { _tag: "StartInformer", ref: ref("b") },
    ])
    expect(lookup(gone.registry, ref("b"))?.state).toBe("Starting")
  })
  it("compareRefs() orders by namespace, then GVK, then key", () => {
    const pod = { group: "", version: "v1", kind: "Pod" }
    const x = (namespace: string, g = gvk, key = "k"): InformerRef => ({ namespace, gvk: g, key })
    expect(compareRefs(x("a"), x("b"))).toBe(-1)
    expect(compareRefs(x("b"), x("a"))).toBe(1)
    expect(compareRefs(x("a", gvk), x("a", pod))).toBe(-1)
    expect(compareRefs(x("a", gvk, "k2"), x("a", gvk, "k1"))).toBe(1)
    expect(compareRefs(x("a"), x("a"))).toBe(0)
  })
})
