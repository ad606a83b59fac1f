import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { makeMemoryClient } from "../../apiserver/memoryClient.ts"
import { FakeApiServer } from "../../apiserver/server.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import { type KubeObject, Resources } from "../../kube/resource.ts"
import { ClusterName } from "../../workqueue/request.ts"
import { makeNamespacesProvider } from "./namespaces.ts"
import { recordingAware, until } from "./testing.ts"

const cms = Resources.configMaps

/** The hub with namespaces a and b, a ConfigMap in each, and a record of the lists it serves. */
const setup = Effect.gen(function* () {
  const fake = yield* FakeApiServer.make()
  const inner = yield* makeMemoryClient(fake)
  const lists: Array<string> = []
  const probes: Array<number> = []
  const hub: KubeClientShape = {
    ...inner,
    listAll: (r, o) => {
      lists.push(`${r.resource} ${o?.namespace ?? "*"}`)
      return inner.listAll(r, o)
    },
    probe: (o) =>
      Effect.andThen(
        Effect.sync(() => probes.push(1)),
        inner.probe(o),
      ),
  }
  for (const ns of ["a", "b"]) {
    yield* inner.create(Resources.namespaces, { metadata: { name: ns } })
    yield* inner.create(cms, { metadata: { namespace: ns, name: `cm-${ns}` }, data: { x: ns } })
  }
  const provider = yield* makeNamespacesProvider(hub)
  const aware = recordingAware()
  yield* provider.run(aware)
  yield* until("a and b engaged", () => aware.open().has("a") && aware.open().has("b"))
  return { fake, inner, hub, lists, probes, provider, aware }
})

describe("namespaces provider (seed 003: logical clusters like kcp)", () => {
  it.effect(
    "each namespace is a cluster named by it, its cache confined to it, over ONE shared informer",
    () =>
      Effect.gen(function* () {
        const { provider, lists } = yield* setup
        const a = yield* provider.get(ClusterName("a"))
        const b = yield* provider.get(ClusterName("b"))
        const inA = yield* a.cache.list<KubeObject>(cms)
        const inB = yield* b.cache.list<KubeObject>(cms)
        assert.deepStrictEqual(
          inA.map((o) => o.metadata.name),
          ["cm-a"],
        )
        assert.deepStrictEqual(
          inB.map((o) => o.metadata.name),
          ["cm-b"],
        )
        const informer = yield* a.cache.getInformer(cms)
        assert.deepStrictEqual(
          informer.store.list().map((o) => o.metadata.name),
          ["cm-a"],
        )
        assert.isUndefined(informer.store.get({ namespace: "b", name: "cm-b" }))
        assert.strictEqual(
          yield* a.cache.getInformer(cms),
          informer,
          "one informer per resource, as any cache",
        )
        assert.strictEqual(
          yield* a.cache.getInformerForKind({ group: "", version: "v1", kind: "ConfigMap" }),
          informer,
        )
        assert.strictEqual(
          (yield* Effect.flip(a.cache.get(cms, { namespace: "b", name: "cm-b" })))._tag,
          "InformerNotFound",
        )
        assert.strictEqual((yield* a.cache.get(cms, { namespace: "a", name: "cm-a" })).metadata.name, "cm-a")
        assert.deepStrictEqual(
          lists.filter((l) => l.startsWith("configmaps")),
          ["configmaps *"],
        )
      }).pipe(Effect.scoped),
  )

  it.effect("handlers of a facade see only their namespace's events", () =>
    Effect.gen(function* () {
      const { provider, inner } = yield* setup
      const a = yield* provider.get(ClusterName("a"))
      const seen: Array<string> = []
      const informer = yield* a.cache.getInformer(cms)
      yield* informer.subscribe((e) =>
        Effect.sync(() => seen.push(`${e._tag} ${e.object.metadata.namespace}`)),
      )
      yield* inner.create(cms, { metadata: { namespace: "b", name: "late-b" } })
      yield* inner.create(cms, { metadata: { namespace: "a", name: "late-a" } })
      yield* until("late-a seen", () => seen.length === 2)
      assert.deepStrictEqual(seen, ["Added a", "Added a"])
    }).pipe(Effect.scoped),
  )

  it.effect("a facade's client reaches only its namespace", () =>
    Effect.gen(function* () {
      const { provider, inner } = yield* setup
      const a = yield* provider.get(ClusterName("a"))
      const other = yield* Effect.flip(a.client.get(cms, { namespace: "b", name: "cm-b" }))
      assert.strictEqual(other._tag, "Forbidden")
      assert.include(other.message, 'logical cluster "a" is confined to namespace "a"')
      assert.strictEqual((yield* Effect.flip(a.client.list(Resources.namespaces)))._tag, "Forbidden")
      assert.strictEqual(
        (yield* Effect.flip(a.client.raw({ method: "GET", path: "/api/v1/namespaces/b/configmaps" })))._tag,
        "Forbidden",
      )
      yield* a.client.create(cms, { metadata: { name: "made" } })
      assert.strictEqual((yield* inner.get(cms, { namespace: "a", name: "made" })).metadata.namespace, "a")
      const listed = yield* a.client.list(cms)
      assert.sameMembers(
        listed.items.map((o) => o.metadata.name),
        ["cm-a", "made"],
      )
    }).pipe(Effect.scoped),
  )

  it.effect("a namespace added live engages; one deleted disengages; one probe serves all", () =>
    Effect.gen(function* () {
      const { provider, inner, aware, probes } = yield* setup
      assert.strictEqual(probes.length, 1)
      yield* inner.create(Resources.namespaces, { metadata: { name: "c" } })
      yield* until("c engaged", () => aware.open().has("c"))
      yield* inner.delete(Resources.namespaces, { name: "a" })
      yield* until("a disengaged", () => !aware.open().has("a"))
      assert.deepStrictEqual(
        (yield* provider.clusters).map((c) => c.name),
        ["b", "c"],
      )
      assert.strictEqual(aware.engagements.find((e) => e.cluster.name === "a")?.closed, 1)
    }).pipe(Effect.scoped),
  )

  it.effect("indexes are added once to the shared informers and serve each facade", () =>
    Effect.gen(function* () {
      const { provider } = yield* setup
      yield* provider.indexField(cms, "x", (o) => [String((o as { data?: { x?: string } }).data?.x)])
      const a = yield* provider.get(ClusterName("a"))
      const b = yield* provider.get(ClusterName("b"))
      const byA = yield* a.cache.list<KubeObject>(cms, { index: { name: "x", value: "a" } })
      const byBinA = yield* a.cache.list<KubeObject>(cms, { index: { name: "x", value: "b" } })
      const byB = yield* b.cache.list<KubeObject>(cms, { index: { name: "x", value: "b" } })
      assert.deepStrictEqual([byA.length, byBinA.length, byB.length], [1, 0, 1])
    }).pipe(Effect.scoped),
  )
})
