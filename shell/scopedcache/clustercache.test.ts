// The ClusterCache's per-cluster watches on the scoped cache: Watch() takes its informer from the
// cluster's scoped cache (`cacheFactory: scopedCacheFactory`), GetReader reads its store, and a
// namespace the workload identity may not read drops that watch (Watch Management row 5) instead
// of retrying a 403 forever; the informer stops with the watch's subscription.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { ClusterResource, type ConnectionFactory, make } from "../clustercache/service.ts"
import { KubeClient } from "../kube/client.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import type { ReflectorEvent } from "../reflector/reflector.ts"
import { scopedCacheFactory } from "./factory.ts"

const cluster = { namespace: "default", name: "c1" }
const cms = Resources.configMaps
const kubeconfig = Buffer.from(
  `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://workload.example"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`,
).toString("base64")

const setup = Effect.gen(function* () {
  const mgmt = yield* FakeApiServer.make()
  mgmt.register(ClusterResource)
  const workload = yield* FakeApiServer.make()
  const mc = yield* makeMemoryClient(mgmt)
  yield* mc.create(ClusterResource, { metadata: { namespace: "default", name: "c1" } })
  yield* mc.patchStatus(ClusterResource, cluster, {
    type: "merge",
    body: { status: { initialization: { infrastructureProvisioned: true } } },
  })
  yield* mc.create(Resources.secrets, {
    metadata: { namespace: "default", name: "c1-kubeconfig" },
    data: { value: kubeconfig },
  })
  const factory: ConnectionFactory = () => makeMemoryClient(workload)
  const cc = yield* make({ connectionFactory: factory, cacheFactory: scopedCacheFactory }).pipe(
    Effect.provideService(KubeClient, mc),
  )
  yield* workload.client().create(cms, { metadata: { namespace: "a", name: "x" } })
  yield* workload.client().create(cms, { metadata: { namespace: "b", name: "y" } })
  return { workload, cc }
})

describe("ClusterCache with cacheFactory: scopedCacheFactory", () => {
  it.effect("Watch() runs on the cluster's scoped cache; GetReader reads the informer's store", () =>
    Effect.gen(function* () {
      const { workload, cc } = yield* setup
      yield* cc.reconcile(cluster)
      const seen: Array<string> = []
      const onEvent = (e: ReflectorEvent<KubeObject>) =>
        Effect.sync(() => seen.push(`${e._tag}:${e.object.metadata.name}`))
      yield* cc.watch(cluster, { name: "cms-a", resource: cms, namespace: "a", onEvent })
      assert.deepStrictEqual(seen, ["Added:x"])
      const reader = yield* cc.getReader(cluster)
      assert.strictEqual((yield* reader.get(cms, { namespace: "a", name: "x" })).metadata.name, "x")
      yield* Effect.repeat(Effect.yieldNow, { times: 100 })
      assert.strictEqual(workload.watchCount(cms), 1, "one informer of the scoped cache")
      yield* cc.watch(cluster, { name: "cms-a", resource: cms, namespace: "a", onEvent })
      assert.strictEqual(workload.watchCount(cms), 1, "a watch is added once per connection")
    }),
  )

  it.effect("a namespace the identity may not list drops its watch (row 5), without retrying", () =>
    Effect.gen(function* () {
      const { workload, cc } = yield* setup
      yield* cc.reconcile(cluster)
      workload.inject({ verb: "list", namespace: "b", error: "Forbidden" })
      const first = yield* Effect.result(
        cc.watch(cluster, { name: "cms-b", resource: cms, namespace: "b", onEvent: () => Effect.void }),
      )
      // Either the informer stopped before getInformer returned (WatchError at once), or the
      // watch returned and is dropped when its informer stops.
      if (first._tag === "Failure") assert.strictEqual(first.failure._tag, "WatchError")
      yield* Effect.repeat(Effect.yieldNow, { times: 100 })
      assert.strictEqual(workload.watchCount(cms), 0)
      workload.clearFaults()
      const seen: Array<string> = []
      yield* cc.watch(cluster, {
        name: "cms-b",
        resource: cms,
        namespace: "b",
        onEvent: (e) => Effect.sync(() => seen.push(e.object.metadata.name ?? "")),
      })
      yield* Effect.repeat(Effect.yieldNow, { times: 100 })
      assert.deepStrictEqual(seen, ["y"], "added again by the next call")
      const reader = yield* cc.getReader(cluster)
      assert.strictEqual((yield* reader.get(cms, { namespace: "b", name: "y" })).metadata.name, "y")
    }),
  )
})
