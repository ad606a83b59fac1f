import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { KubeClientShape } from "../kube/client.ts"
import { mergePatch } from "../kube/patch.ts"
import {
  controllerReference,
  type KubeObject,
  type OwnerReference,
  type ResourceRef,
  Resources,
} from "../kube/resource.ts"
import { failure, widgets } from "./fixtures.ts"
import { GarbageCollector, GarbageCollectorDefaults } from "./gc.ts"
import { deletionFinalizers, ForegroundFinalizer, OrphanFinalizer, prepareDelete } from "./objects.ts"
import { FakeApiServer } from "./server.ts"
import { FakeStore } from "./storage.ts"

const racks: ResourceRef = {
  group: "example.com",
  version: "v1",
  resource: "racks",
  kind: "Rack",
  namespaced: false,
}
const configMaps = Resources.configMaps

/** A server with garbage collection on (or off) and its client. */
const server = (garbageCollection = true) =>
  Effect.map(FakeApiServer.make({ garbageCollection }), (fake) => ({ fake, api: fake.client() }))

const widget = (
  name: string,
  owners: ReadonlyArray<OwnerReference> = [],
  finalizers: ReadonlyArray<string> = [],
  namespace = "default",
): KubeObject => ({
  metadata: {
    name,
    namespace,
    ...(owners.length > 0 ? { ownerReferences: owners } : {}),
    ...(finalizers.length > 0 ? { finalizers } : {}),
  },
  spec: {},
})

/** The names of the stored objects of `ref`. */
const names = (fake: FakeApiServer, ref: ResourceRef) => fake.objects(ref).map((o) => o.metadata.name)

const key = (name: string, namespace = "default") => ({ namespace, name })

/** Removes every finalizer of a stored object, as its controller would. */
const release = (api: KubeClientShape, ref: ResourceRef, name: string) =>
  api.patch(ref, key(name), mergePatch({ metadata: { finalizers: null } }))

describe("deletionFinalizers", () => {
  it("applies the policy's GC finalizer, else the object's own, else Background (apiserver store)", () => {
    assert.deepStrictEqual(deletionFinalizers(["x"], "Foreground"), ["x", ForegroundFinalizer])
    assert.deepStrictEqual(deletionFinalizers(["x", ForegroundFinalizer], "Orphan"), ["x", OrphanFinalizer])
    assert.deepStrictEqual(deletionFinalizers([OrphanFinalizer, "x"], "Background"), ["x"])
    assert.deepStrictEqual(deletionFinalizers([OrphanFinalizer, "x"], undefined), ["x", OrphanFinalizer])
    assert.deepStrictEqual(deletionFinalizers([ForegroundFinalizer], undefined), [ForegroundFinalizer])
    assert.deepStrictEqual(deletionFinalizers(["x"], undefined), ["x"])
  })

  it("prepareDelete ignores the policy without garbage collection and keeps a set deletionTimestamp", () => {
    const plain = { metadata: { name: "a" } }
    assert.strictEqual(
      prepareDelete(plain, { policy: "Foreground", garbageCollection: false, now: 0 })._tag,
      "Removed",
    )
    const d = prepareDelete(plain, { policy: "Foreground", garbageCollection: true, now: 0 })
    assert.strictEqual(d._tag, "Finalizing")
    assert.strictEqual(d._tag === "Finalizing" && d.object.metadata.deletionTimestamp, "1970-01-01T00:00:00Z")
    const deleting = { metadata: { name: "a", finalizers: ["x"], deletionTimestamp: "2000-01-01T00:00:00Z" } }
    assert.strictEqual(
      prepareDelete(deleting, { policy: undefined, garbageCollection: true, now: 0 })._tag,
      "Unchanged",
    )
    const orphaning = prepareDelete(deleting, { policy: "Orphan", garbageCollection: true, now: 0 })
    assert.deepStrictEqual(orphaning._tag === "Finalizing" && orphaning.object.metadata, {
      ...deleting.metadata,
      finalizers: ["x", OrphanFinalizer],
      deletionGracePeriodSeconds: 0,
    })
  })
})

describe("FakeApiServer garbage collection", () => {
  it.effect("is off by default: owner references do not cascade and the policy is ignored", () =>
    Effect.gen(function* () {
      const { fake, api } = yield* server(false)
      const owner = yield* api.create(widgets, widget("owner"))
      yield* api.create(widgets, widget("child", [controllerReference(owner)]))
      yield* api.delete(widgets, key("owner"), { propagationPolicy: "Foreground" })
      assert.deepStrictEqual(names(fake, widgets), ["child"])
    }),
  )

  it.effect(
    "Background: dependents whose every owner is gone are deleted after the owner, one write each",
    () =>
      Effect.gen(function* () {
        const { fake, api } = yield* server()
        const a = yield* api.create(widgets, widget("a"))
        const b = yield* api.create(widgets, widget("b"))
        yield* api.create(widgets, widget("only-a", [controllerReference(a)]))
        yield* api.create(widgets, widget("a-and-b", [controllerReference(a), controllerReference(b, false)]))
        const child = yield* api.create(widgets, widget("child", [controllerReference(a)]))
        yield* api.create(widgets, widget("grandchild", [controllerReference(child)]))
        yield* api.create(widgets, widget("free"))
        const log: Array<string> = []
        fake.onCommit((c) =>
          log.push(`${c.type}:${c.object.metadata.name}@${c.object.metadata.resourceVersion}`),
        )
        yield* api.delete(widgets, key("a"))
        assert.deepStrictEqual(names(fake, widgets), ["a-and-b", "b", "free"])
        assert.deepStrictEqual(log, [
          "DELETED:a@9",
          "DELETED:only-a@10",
          "MODIFIED:a-and-b@11",
          "DELETED:child@12",
          "DELETED:grandchild@13",
        ])
        const survivor = yield* api.get(widgets, key("a-and-b"))
        assert.deepStrictEqual(
          survivor.metadata.ownerReferences?.map((r) => r.name),
          ["b"],
          "the reference to the absent owner is removed",
        )
        assert.strictEqual(survivor.metadata.generation, 1)
      }),
  )

  it.effect("a dependent with finalizers of its own gets deletionTimestamp and leaves when released", () =>
    Effect.gen(function* () {
      const { fake, api } = yield* server()
      const owner = yield* api.create(widgets, widget("owner", [], ["keep"]))
      const child = yield* api.create(widgets, widget("child", [controllerReference(owner)], ["x"]))
      yield* api.create(widgets, widget("grandchild", [controllerReference(child)]))
      yield* api.delete(widgets, key("owner"))
      assert.deepStrictEqual(
        names(fake, widgets),
        ["child", "grandchild", "owner"],
        "a deleting owner still owns (Background waits until it is gone)",
      )
      yield* release(api, widgets, "owner")
      const deleting = yield* api.get(widgets, key("child"))
      assert.isString(deleting.metadata.deletionTimestamp)
      assert.deepStrictEqual(names(fake, widgets), ["child", "grandchild"])
      yield* release(api, widgets, "child")
      assert.deepStrictEqual(names(fake, widgets), [])
    }),
  )

  it.effect(
    "Foreground: the owner keeps foregroundDeletion until no blockOwnerDeletion dependent is left",
    () =>
      Effect.gen(function* () {
        const { fake, api } = yield* server()
        const owner = yield* api.create(widgets, widget("owner"))
        yield* api.create(widgets, widget("blocking", [controllerReference(owner)], ["x"]))
        yield* api.create(widgets, widget("loose", [controllerReference(owner, false)], ["y"]))
        yield* api.create(widgets, widget("plain", [controllerReference(owner)]))
        const deleted = yield* api.delete(widgets, key("owner"), { propagationPolicy: "Foreground" })
        assert.deepStrictEqual(deleted?.metadata.finalizers, [ForegroundFinalizer])
        assert.isString(deleted?.metadata.deletionTimestamp)
        assert.deepStrictEqual(names(fake, widgets), ["blocking", "loose", "owner"])
        const blocking = yield* api.get(widgets, key("blocking"))
        assert.isString(blocking.metadata.deletionTimestamp, "every dependent is being deleted")
        assert.isString((yield* api.get(widgets, key("loose"))).metadata.deletionTimestamp)
        assert.strictEqual(
          yield* failure(
            api.patch(
              widgets,
              key("owner"),
              mergePatch({ metadata: { finalizers: [ForegroundFinalizer, "late"] } }),
            ),
          ),
          "Invalid",
          "no new finalizers while deleting",
        )
        yield* release(api, widgets, "blocking")
        assert.deepStrictEqual(
          names(fake, widgets),
          ["loose"],
          "the owner went with its last blocking dependent; a non-blocking one does not hold it",
        )
      }),
  )

  it.effect("Foreground cascades through dependents that have dependents, and through a cycle", () =>
    Effect.gen(function* () {
      const { fake, api } = yield* server()
      const top = yield* api.create(widgets, widget("top"))
      const mid = yield* api.create(widgets, widget("mid", [controllerReference(top)]))
      yield* api.create(widgets, widget("leaf", [controllerReference(mid)], ["x"]))
      yield* api.delete(widgets, key("top"), { propagationPolicy: "Foreground" })
      assert.deepStrictEqual(names(fake, widgets), ["leaf", "mid", "top"])
      assert.deepStrictEqual((yield* api.get(widgets, key("mid"))).metadata.finalizers, [ForegroundFinalizer])
      yield* release(api, widgets, "leaf")
      assert.deepStrictEqual(names(fake, widgets), [])

      const p = yield* api.create(widgets, widget("p"))
      const q = yield* api.create(widgets, widget("q", [controllerReference(p)]))
      yield* api.patch(
        widgets,
        key("p"),
        mergePatch({ metadata: { ownerReferences: [controllerReference(q)] } }),
      )
      yield* api.delete(widgets, key("p"), { propagationPolicy: "Foreground" })
      assert.deepStrictEqual(names(fake, widgets), [])
    }),
  )

  it.effect("Orphan: dependents lose the owner's reference and stay; other references are kept", () =>
    Effect.gen(function* () {
      const { fake, api } = yield* server()
      const owner = yield* api.create(widgets, widget("owner"))
      const other = yield* api.create(widgets, widget("other"))
      yield* api.create(widgets, widget("one", [controllerReference(owner)]))
      yield* api.create(
        widgets,
        widget("two", [controllerReference(owner), controllerReference(other, false)]),
      )
      yield* api.delete(widgets, key("owner"), { propagationPolicy: "Orphan" })
      assert.deepStrictEqual(names(fake, widgets), ["one", "other", "two"])
      assert.isUndefined((yield* api.get(widgets, key("one"))).metadata.ownerReferences)
      assert.deepStrictEqual(
        (yield* api.get(widgets, key("two"))).metadata.ownerReferences?.map((r) => r.name),
        ["other"],
      )
    }),
  )

  it.effect("a delete on an object already being deleted applies a new policy (apiserver store)", () =>
    Effect.gen(function* () {
      const { fake, api } = yield* server()
      const owner = yield* api.create(widgets, widget("owner", [], ["x"]))
      yield* api.create(widgets, widget("child", [controllerReference(owner)]))
      yield* api.delete(widgets, key("owner"))
      yield* api.delete(widgets, key("owner"), { propagationPolicy: "Orphan" })
      const still = yield* api.get(widgets, key("owner"))
      assert.deepStrictEqual(still.metadata.finalizers, ["x"], "orphaned, then the orphan finalizer removed")
      yield* release(api, widgets, "owner")
      assert.deepStrictEqual(names(fake, widgets), ["child"])
    }),
  )

  it.effect("owners are found in the dependent's namespace only, or cluster-scoped", () =>
    Effect.gen(function* () {
      const { fake, api } = yield* server()
      const elsewhere = yield* api.create(widgets, widget("owner", [], [], "a"))
      yield* api.create(widgets, widget("owner", [], [], "b"))
      yield* api.create(widgets, widget("cross", [controllerReference(elsewhere)], [], "b"))
      assert.deepStrictEqual(
        fake.objects(widgets).map((o) => `${o.metadata.namespace}/${o.metadata.name}`),
        ["a/owner", "b/owner"],
        "an owner in another namespace is absent: the dependent is collected at once",
      )
      const rack = yield* api.create(racks, { metadata: { name: "r1" } })
      yield* api.create(widgets, widget("racked", [controllerReference(rack)], [], "b"))
      yield* api.create(racks, {
        metadata: { name: "r2", ownerReferences: [controllerReference(elsewhere)] },
      })
      yield* api.create(widgets, widget("unknown-kind", [{ ...controllerReference(rack), kind: "Shelf" }]))
      yield* api.delete(racks, key("r1"))
      assert.deepStrictEqual(
        names(fake, racks),
        ["r2"],
        "a namespaced kind cannot own a cluster-scoped object",
      )
      assert.deepStrictEqual(names(fake, widgets), ["owner", "owner", "unknown-kind"])
      yield* api.create(configMaps, {
        metadata: { name: "gone", namespace: "b", ownerReferences: [controllerReference(rack)] },
      })
      assert.deepStrictEqual(
        names(fake, configMaps),
        [],
        "an owner reference to an absent owner is collected",
      )
    }),
  )

  it.effect("an unknown propagationPolicy is Invalid, naming the field", () =>
    Effect.gen(function* () {
      const { api } = yield* server()
      yield* api.create(widgets, widget("a"))
      const error = yield* Effect.flip(
        api.delete(widgets, key("a"), { propagationPolicy: "Sideways" as "Orphan" }),
      )
      assert.strictEqual(error._tag, "Invalid")
      assert.include(error.message, "propagationPolicy")
      const missing = yield* Effect.flip(
        api.delete(widgets, key("none"), { propagationPolicy: "Sideways" as "Orphan" }),
      )
      assert.strictEqual(missing._tag, "Invalid", "options are validated before the object is looked up")
    }),
  )

  it("fails instead of looping when it does not settle within its step budget", () => {
    assert.strictEqual(GarbageCollectorDefaults.stepsPerObject, 16)
    const orphaned = widget("orphaned", [
      { apiVersion: "example.com/v1", kind: "Widget", name: "x", uid: "u" },
    ])
    const stored = { ...orphaned, metadata: { ...orphaned.metadata, uid: "orphaned-uid" } }
    const store = new FakeStore()
    const stuck = new GarbageCollector(store, { stepsPerObject: 0 })
    store.put(widgets, "ADDED", stored, undefined)
    assert.throws(() => stuck.drain(0), /did not settle/)
    const settled = new FakeStore()
    const ok = new GarbageCollector(settled)
    settled.put(widgets, "ADDED", stored, undefined)
    ok.drain(0)
    assert.strictEqual(settled.size(), 0)
  })
})
