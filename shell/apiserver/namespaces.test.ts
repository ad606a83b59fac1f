import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, type ResourceRef, Resources } from "../kube/resource.ts"
import { failure, widgets } from "./fixtures.ts"
import { InitialNamespaces, KubernetesFinalizer } from "./namespaces.ts"
import { FakeApiServer } from "./server.ts"

const racks: ResourceRef = { ...widgets, resource: "racks", kind: "Rack", namespaced: false }
const namespaces = Resources.namespaces
const configMaps = Resources.configMaps

const object = (name: string, namespace: string, finalizers?: ReadonlyArray<string>): KubeObject => ({
  metadata: { name, namespace, ...(finalizers ? { finalizers } : {}) },
})

describe("FakeApiServer namespace lifecycle", () => {
  it.effect("is off by default: content needs no namespace", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      yield* fake.client().create(configMaps, object("a", "nowhere"))
      assert.deepStrictEqual(fake.objects(namespaces), [])
    }),
  )

  it.effect("starts with the initial namespaces, Active with the kubernetes finalizer", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make({ namespaceLifecycle: true })
      const all = fake.objects(namespaces)
      assert.deepStrictEqual(
        all.map((n) => n.metadata.name),
        [...InitialNamespaces],
      )
      for (const ns of all) {
        assert.deepStrictEqual(ns.spec, { finalizers: [KubernetesFinalizer] })
        assert.deepStrictEqual(ns.status, { phase: "Active" })
      }
      const api = fake.client()
      const created = yield* api.create(namespaces, {
        metadata: { name: "team" },
        status: { phase: "Terminating" },
      })
      assert.deepStrictEqual(created.status, { phase: "Active" })
      yield* api.create(configMaps, object("a", "team"))
    }),
  )

  it.effect(
    "content may not be created in a missing namespace (NotFound) or a terminating one (Forbidden)",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeApiServer.make({ namespaceLifecycle: true })
        const api = fake.client()
        const missing = yield* Effect.flip(api.create(configMaps, object("a", "nowhere")))
        assert.strictEqual(missing._tag, "NotFound")
        assert.include(missing.message, 'namespaces "nowhere" not found')
        yield* api.create(racks, { metadata: { name: "cluster-scoped" } })
        yield* api.create(namespaces, { metadata: { name: "team" } })
        yield* api.create(configMaps, object("held", "team", ["x"]))
        yield* api.delete(namespaces, { name: "team" })
        const refused = yield* Effect.flip(api.create(configMaps, object("b", "team")))
        assert.strictEqual(refused._tag, "Forbidden")
        assert.include(refused.message, "because it is being terminated")
        const updated = yield* api.patch(
          configMaps,
          { namespace: "team", name: "held" },
          mergePatch({ metadata: { labels: { a: "b" } } }),
        )
        assert.deepStrictEqual(
          updated.metadata.labels,
          { a: "b" },
          "updates in a terminating namespace are admitted",
        )
        assert.strictEqual(
          yield* failure(api.create(configMaps, object("c", "team"), { dryRun: true })),
          "Forbidden",
          "admission runs before a dry run too",
        )
      }),
  )

  it.effect("deleting a namespace deletes its content, waits for finalizers, then leaves", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make({ namespaceLifecycle: true })
      const api = fake.client()
      yield* api.create(namespaces, { metadata: { name: "team" } })
      yield* api.create(configMaps, object("plain", "team"))
      yield* api.create(widgets, object("held", "team", ["x"]))
      yield* api.create(widgets, object("elsewhere", "default"))
      const log: Array<string> = []
      fake.onCommit((c) => log.push(`${c.type}:${c.object.metadata.name}`))
      const first = yield* api.delete(namespaces, { name: "team" })
      assert.deepStrictEqual(first?.status, { phase: "Terminating" })
      assert.isString(first?.metadata.deletionTimestamp)
      assert.deepStrictEqual(log, ["MODIFIED:team", "DELETED:plain", "MODIFIED:held"])
      const again = yield* api.delete(namespaces, { name: "team" })
      assert.strictEqual(again?.metadata.resourceVersion, first?.metadata.resourceVersion)
      assert.strictEqual(log.length, 3, "a second delete writes nothing")
      assert.isString(
        (yield* api.get(widgets, { namespace: "team", name: "held" })).metadata.deletionTimestamp,
      )
      assert.deepStrictEqual(
        fake.objects(namespaces).map((n) => n.metadata.name),
        [...InitialNamespaces, "team"].sort(),
      )
      yield* api.patch(
        widgets,
        { namespace: "team", name: "held" },
        mergePatch({ metadata: { finalizers: null } }),
      )
      assert.deepStrictEqual(log.slice(3), ["DELETED:held", "DELETED:team"])
      assert.deepStrictEqual(
        fake.objects(namespaces).map((n) => n.metadata.name),
        [...InitialNamespaces],
      )
      assert.deepStrictEqual(
        fake.objects(widgets).map((o) => o.metadata.name),
        ["elsewhere"],
      )
    }),
  )
})
