// The texts the scoped cache's tables hand on (errors of reads, the note to dependents of a
// removed informer) and GetInformer's single-informer answer: what a user reads in an error or
// an Event names the GVK, the scope and the informer.
import { describe, expect, it } from "vitest"
import {
  addInformer,
  emptyRegistry,
  forceRemove,
  type InformerRef,
  read,
  ScopedCacheDefaults,
  start,
} from "./index.ts"

const gvk = { group: "apps", version: "v1", kind: "Deployment" }
const opts = ScopedCacheDefaults
const ref = (namespace: string): InformerRef => ({ namespace, gvk, key: "k1" })
const started = start(emptyRegistry, opts).registry
const errorOf = (r: ReturnType<typeof read>) => (r.status.outcome === "error" ? r.status.error : undefined)

describe("scoped cache messages", () => {
  it("InformerNotFound names the GVK and the scope asked for", () => {
    expect(errorOf(read(started, { _tag: "List", gvk }, opts))).toEqual({
      _tag: "InformerNotFound",
      message: "no informer for apps/v1/Deployment in any namespace",
    })
    expect(errorOf(read(started, { _tag: "List", gvk, namespace: "" }, opts))?.message).toBe(
      "no informer for apps/v1/Deployment at cluster level",
    )
    expect(errorOf(read(started, { _tag: "Get", gvk, namespace: "a", name: "x" }, opts))?.message).toBe(
      "no informer for apps/v1/Deployment in namespace a",
    )
    expect(errorOf(read(started, { _tag: "GetInformer", ref: ref("a") }, opts))?.message).toBe(
      "no informer for a/apps/v1/Deployment#k1",
    )
  })

  it("a read before Start is CacheNotStarted, in controller-runtime's words", () => {
    expect(errorOf(read(emptyRegistry, { _tag: "List", gvk }, opts))).toEqual({
      _tag: "CacheNotStarted",
      message: "the cache is not started, can not read objects",
    })
  })

  it("GetInformer answers with one informer, not a merge", () => {
    const r = addInformer(
      started,
      ref("a"),
      { uid: "u1", kind: "M", namespace: "a", name: "m" },
      opts,
    ).registry
    const got = read(r, { _tag: "GetInformer", ref: ref("a") }, opts)
    expect(got.status).toEqual({ outcome: "serve", from: [ref("a")], waitForSync: true, merge: false })
  })

  it("a forced removal tells the dependents which informer went", () => {
    const dependent = { uid: "u1", kind: "M", namespace: "a", name: "m" }
    const r = addInformer(started, ref(""), dependent, opts).registry
    const step = forceRemove(r, ref(""), opts)
    expect(step.actions.filter((a) => a._tag === "NotifyDependents")).toEqual([
      {
        _tag: "NotifyDependents",
        ref: ref(""),
        reason: "InformerRemoved",
        dependents: [dependent],
        message: "informer */apps/v1/Deployment#k1 was removed",
      },
    ])
  })
})
