import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../../apiserver/memoryClient.ts"
import { FakeApiServer } from "../../apiserver/server.ts"
import { makeClusterCacheController } from "../../clustercache/controller.ts"
import {
  ClusterResource,
  type ConnectionFactory,
  make as makeClusterCache,
} from "../../clustercache/service.ts"
import { KubeClient } from "../../kube/client.ts"
import { Resources } from "../../kube/resource.ts"
import { make as makeReflector } from "../../reflector/reflector.ts"
import { ClusterName } from "../../workqueue/request.ts"
import { ClusterApiDefaults, makeClusterApiProvider } from "./clusterApi.ts"
import { kubeconfigYaml, recordingAware, until } from "./testing.ts"

/** A hub with Cluster `default/<name>` (infrastructure provisioned) and its kubeconfig Secret. */
const addCluster = (hub: Effect.Success<ReturnType<typeof makeMemoryClient>>, name: string) =>
  Effect.gen(function* () {
    yield* hub.create(ClusterResource, {
      apiVersion: "cluster.x-k8s.io/v1beta2",
      kind: "Cluster",
      metadata: { namespace: "default", name },
    })
    yield* hub.patchStatus(
      ClusterResource,
      { namespace: "default", name },
      { type: "merge", body: { status: { initialization: { infrastructureProvisioned: true } } } },
    )
    yield* hub.create(Resources.secrets, {
      metadata: { namespace: "default", name: `${name}-kubeconfig` },
      data: { value: Buffer.from(kubeconfigYaml(`https://${name}.example`, "t")).toString("base64") },
    })
  })

const setup = Effect.gen(function* () {
  const hubFake = yield* FakeApiServer.make()
  hubFake.register(ClusterResource)
  const hub = yield* makeMemoryClient(hubFake)
  const fakes = new Map<string, FakeApiServer>()
  const workload = (name: string) =>
    Effect.gen(function* () {
      const known = fakes.get(name)
      if (known !== undefined) return known
      const fake = yield* FakeApiServer.make()
      fakes.set(name, fake)
      return fake
    })
  const connectionFactory: ConnectionFactory = (kc) =>
    Effect.flatMap(
      workload(new URL(kc.getCurrentCluster()?.server ?? "https://x").hostname.split(".")[0] ?? ""),
      (f) => makeMemoryClient(f),
    )
  yield* addCluster(hub, "c1")
  yield* addCluster(hub, "c2")
  const provider = yield* makeClusterApiProvider(hub, { connectionFactory })
  const aware = recordingAware()
  yield* provider.run(aware)
  yield* until("c1 and c2 engaged", () => aware.open().size === 2)
  const stateOf = (name: string) => Effect.map(provider.clusters, (cs) => cs.find((c) => c.name === name))
  return { hub, workload, provider, aware, stateOf }
})

describe("cluster-api provider (health-gated by the ClusterCache, seed 000)", () => {
  it("documents its defaults: all namespaces, concurrency 100, seed 000's ClusterCache numbers", () => {
    assert.strictEqual(ClusterApiDefaults.namespace, undefined)
    assert.strictEqual(ClusterApiDefaults.concurrency, 100)
    assert.deepStrictEqual(ClusterApiDefaults.clusterCache.healthProbe, {
      interval: 10_000,
      timeout: 5_000,
      failureThreshold: 5,
    })
  })

  it.effect("engages each connected Cluster as <namespace>/<name>", () =>
    Effect.gen(function* () {
      const { provider, aware } = yield* setup
      assert.sameMembers([...aware.open().keys()], ["default/c1", "default/c2"])
      const c1 = yield* provider.get(ClusterName("default/c1"))
      assert.strictEqual(c1.name, "default/c1")
    }).pipe(Effect.scoped),
  )

  it.effect(
    "disengages when the ClusterCache disconnects at the 5th failed probe; re-engages on reconnect",
    () =>
      Effect.gen(function* () {
        const { workload, aware, stateOf } = yield* setup
        const before = aware.open().get("default/c1")?.cluster.generation
        const fake = yield* workload("c1")
        fake.stop()
        for (let i = 0; i < 4; i++) yield* TestClock.adjust("10 seconds")
        assert.isTrue(aware.open().has("default/c1"), "engaged after 4 failed probes")
        yield* TestClock.adjust("10 seconds")
        yield* until("c1 disengaged", () => !aware.open().has("default/c1"))
        assert.isTrue(aware.open().has("default/c2"))
        const state = yield* stateOf("default/c1")
        assert.deepStrictEqual([state?.engaged, state?.healthy], [false, false])
        assert.include(state?.reason, "5 probes failed in a row")
        fake.start()
        yield* TestClock.adjust("30 seconds")
        yield* until("c1 engaged again", () => aware.open().has("default/c1"), 2000)
        assert.notStrictEqual(aware.open().get("default/c1")?.cluster.generation, before)
        assert.deepStrictEqual(
          aware.engagements.filter((e) => e.cluster.name === "default/c1").map((e) => e.closed),
          [1, 0],
        )
      }).pipe(Effect.scoped),
  )

  it.effect("a 401 disconnects at once, and the reconnect engages a new generation", () =>
    Effect.gen(function* () {
      const { workload, aware } = yield* setup
      const before = aware.open().get("default/c1")?.cluster.generation
      const fake = yield* workload("c1")
      fake.inject({ verb: "probe", error: "Unauthorized", times: 1 })
      yield* TestClock.adjust("10 seconds")
      yield* until("c1 re-engaged", () => {
        const e = aware.open().get("default/c1")
        return e !== undefined && e.cluster.generation !== before
      })
      assert.deepStrictEqual(
        aware.events.filter((e) => e.includes("default/c1")).map((e) => e.split(" ")[0]),
        ["engage", "disengage", "engage"],
      )
    }).pipe(Effect.scoped),
  )

  it.effect("a deleted Cluster is disengaged and forgotten", () =>
    Effect.gen(function* () {
      const { hub, aware, provider } = yield* setup
      yield* hub.delete(ClusterResource, { namespace: "default", name: "c2" })
      yield* until("c2 disengaged", () => !aware.open().has("default/c2"))
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(
        (yield* provider.clusters).map((c) => c.name),
        ["default/c1"],
      )
    }).pipe(Effect.scoped),
  )

  it.effect("uses the manager's own ClusterCache when given one (existing), without starting a second", () =>
    Effect.gen(function* () {
      const hubFake = yield* FakeApiServer.make()
      hubFake.register(ClusterResource)
      const hub = yield* makeMemoryClient(hubFake)
      const workload = yield* FakeApiServer.make()
      yield* addCluster(hub, "c1")
      const clusters = yield* makeReflector(hub, { resource: ClusterResource })
      const cache = yield* makeClusterCache({
        clusters: clusters.store,
        connectionFactory: () => makeMemoryClient(workload),
      }).pipe(Effect.provideService(KubeClient, hub))
      const controller = yield* makeClusterCacheController(cache, clusters, { concurrency: 1 })
      yield* controller.start
      let clusterLists = 0
      const counted = {
        ...hub,
        listAll: ((r, o) => {
          if (r.resource === "clusters") clusterLists++
          return hub.listAll(r, o)
        }) as typeof hub.listAll,
      }
      const provider = yield* makeClusterApiProvider(counted, { existing: { cache, clusters } })
      const aware = recordingAware()
      yield* provider.run(aware)
      yield* until("c1 engaged", () => aware.open().has("default/c1"))
      assert.strictEqual(clusterLists, 0, "the provider listed no Clusters of its own")
    }).pipe(Effect.scoped),
  )
})
