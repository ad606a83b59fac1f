import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { ClusterCacheDefaults, clusterCacheConfig } from "../../core/clustercache/index.ts"
import { TableLoopError } from "../../core/krtt/run.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { KubeClient } from "../kube/client.ts"
import { Resources } from "../kube/resource.ts"
import { ClusterResource, make } from "./service.ts"
import { cluster, metricValue, setup } from "./testing.ts"

describe("ClusterCache service (seed 000)", () => {
  it.effect(
    "creates the accessor and connects (Reconciler rows 1, 4, 12), then probes every 10 s (rows 7, 8)",
    () =>
      Effect.gen(function* () {
        const { cc } = yield* setup
        const first = yield* cc.reconcile(cluster)
        assert.deepStrictEqual(
          first.rows.filter((r) => r.startsWith("clustercache.reconciler")),
          [
            "clustercache.reconciler#1",
            "clustercache.reconciler#4",
            "clustercache.reconciler#4",
            "clustercache.reconciler#12",
          ],
        )
        assert.strictEqual(first.requeueAfter, ClusterCacheDefaults.healthProbe.interval)
        yield* cc.getClient(cluster)
        assert.strictEqual(yield* metricValue("capi_cluster_cache_connection_up", { cluster_name: "c1" }), 1)
        yield* TestClock.adjust("10 seconds")
        const second = yield* cc.reconcile(cluster)
        assert.deepStrictEqual(second.rows, [
          "clustercache.reconciler#7",
          "clustercache.reconciler#8",
          "clustercache.reconciler#12",
        ])
        const state = yield* cc.getHealthCheckingState(cluster)
        assert.strictEqual(state.consecutiveFailures, 0)
      }),
  )

  it.effect("disconnects at the fifth consecutive probe failure and requeues after 30 s (row 10)", () =>
    Effect.gen(function* () {
      const { cc, workload } = yield* setup
      yield* cc.reconcile(cluster)
      workload.stop()
      const decided: Array<string> = []
      for (let i = 0; i < 5; i++) {
        yield* TestClock.adjust("10 seconds")
        const r = yield* cc.reconcile(cluster)
        decided.push(r.rows[1] ?? "")
        if (i === 4) assert.strictEqual(r.requeueAfter, 30_000)
      }
      assert.deepStrictEqual(decided, [
        "clustercache.reconciler#9",
        "clustercache.reconciler#9",
        "clustercache.reconciler#9",
        "clustercache.reconciler#9",
        "clustercache.reconciler#10",
      ])
      const err = yield* Effect.flip(cc.getClient(cluster))
      assert.strictEqual(err._tag, "ClusterNotConnectedError")
      // Reconnects once the server is back and the retry interval has passed.
      workload.start()
      yield* TestClock.adjust("30 seconds")
      const back = yield* cc.reconcile(cluster)
      assert.include(back.rows, "clustercache.accessor#4")
    }),
  )

  it.effect("a 401 disconnects at once and requeues after 1 ms (row 11); events reach a cluster source", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { cc, workload } = yield* setup
        const events = yield* cc.clusterSource("machine")
        const collected = yield* events.pipe(Stream.take(2), Stream.runCollect, Effect.forkChild)
        yield* cc.reconcile(cluster)
        workload.inject({ verb: "probe", error: "Unauthorized" })
        yield* TestClock.adjust("10 seconds")
        const r = yield* cc.reconcile(cluster)
        assert.include(r.rows, "clustercache.reconciler#11")
        assert.strictEqual(r.requeueAfter, 1)
        const got = yield* Fiber.join(collected)
        assert.deepStrictEqual([...got], [cluster, cluster])
      }),
    ),
  )

  it.effect("a kubeconfig with an exec plugin is a connection error retried after 30 s, never logged", () =>
    Effect.gen(function* () {
      const { cc, mc } = yield* setup
      const execUser = Buffer.from(
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: https://x}}]\nusers: [{name: u, user: {exec: {command: steal, apiVersion: client.authentication.k8s.io/v1}}}]\ncontexts: [{name: ctx, context: {cluster: c, user: u}}]\ncurrent-context: ctx\n",
      ).toString("base64")
      yield* mc.patch(
        Resources.secrets,
        { namespace: "default", name: "c1-kubeconfig" },
        { type: "merge", body: { data: { value: execUser } } },
      )
      const r = yield* cc.reconcile(cluster)
      assert.include(r.rows, "clustercache.accessor#5")
      assert.include(r.rows, "clustercache.reconciler#6")
      assert.strictEqual(r.requeueAfter, 30_000)
      yield* TestClock.adjust("29 seconds")
      const early = yield* cc.reconcile(cluster)
      assert.include(early.rows, "clustercache.reconciler#5")
      assert.strictEqual(early.requeueAfter, 1_000)
    }),
  )

  it.effect(
    "Watch() adds a watch once per connection and serves reads from it (Watch Management rows 3, 4)",
    () =>
      Effect.gen(function* () {
        const { cc, workload } = yield* setup
        const wc = yield* makeMemoryClient(workload)
        yield* wc.create(Resources.configMaps, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { namespace: "default", name: "a" },
        })
        yield* cc.reconcile(cluster)
        const seen: Array<string> = []
        const watcher = {
          name: "cm",
          resource: Resources.configMaps,
          onEvent: (e: { _tag: string }) => Effect.sync(() => void seen.push(e._tag)),
        }
        yield* cc.watch(cluster, watcher)
        yield* cc.watch(cluster, watcher)
        yield* TestClock.adjust("1 second")
        assert.deepStrictEqual(seen, ["Added"])
        // Reads come from the watch's store: the API server is not asked.
        workload.inject({ verb: "get", error: "Unreachable" })
        const reader = yield* cc.getReader(cluster)
        const cm = yield* reader.get(Resources.configMaps, { namespace: "default", name: "a" })
        assert.strictEqual(cm.metadata.name, "a")
        const empty = yield* Effect.flip(cc.watch(cluster, { ...watcher, name: "" }))
        assert.strictEqual(empty.message, "watcher.Name() cannot be empty")
      }),
  )

  it.effect("removes the accessor when the Cluster is gone (row 13)", () =>
    Effect.gen(function* () {
      const { cc, mc } = yield* setup
      yield* cc.reconcile(cluster)
      yield* mc.delete(ClusterResource, cluster)
      const r = yield* cc.reconcile(cluster)
      assert.deepStrictEqual(r.rows, ["clustercache.reconciler#13"])
      assert.strictEqual(r.requeueAfter, undefined)
      assert.deepStrictEqual(yield* cc.accessors(), [])
    }),
  )

  it.effect("removes a deleted Cluster's capi_cluster_cache_* series, so that alerts on them clear", () =>
    Effect.gen(function* () {
      const { cc, mc } = yield* setup
      yield* cc.reconcile(cluster)
      const labels = { cluster_name: "c1", cluster_namespace: "default" }
      assert.strictEqual(yield* metricValue("capi_cluster_cache_connection_up", labels), 1)
      yield* mc.delete(ClusterResource, cluster)
      yield* cc.reconcile(cluster)
      const left = (yield* Metric.snapshot).filter(
        (m) =>
          m.id.startsWith("capi_cluster_cache_") &&
          (m.attributes as Record<string, string> | undefined)?.cluster_name === "c1",
      )
      assert.deepStrictEqual(
        left.map((m) => m.id),
        [],
      )
    }),
  )
})

describe("ClusterCache service reading Clusters from a reflector's store", () => {
  it.effect("decides from the store without a request (rows 2 and 1)", () =>
    Effect.gen(function* () {
      const mgmt = yield* FakeApiServer.make()
      const mc = yield* makeMemoryClient(mgmt)
      mgmt.inject({ verb: "get", error: "Unreachable" })
      const known = new Map<string, { metadata: { namespace: string; name: string } }>()
      const cc = yield* make({ clusters: { get: (k) => known.get(k.name) } }).pipe(
        Effect.provideService(KubeClient, mc),
      )
      assert.deepStrictEqual((yield* cc.reconcile(cluster)).rows, ["clustercache.reconciler#2"])
      known.set("c1", { metadata: { namespace: "default", name: "c1" } })
      const r = yield* cc.reconcile(cluster)
      assert.deepStrictEqual(r.rows, ["clustercache.reconciler#1", "clustercache.reconciler#3"])
    }),
  )

  it.effect(
    "a run past maxTransitionsPerReconcile fails with TableLoopError; what its rows decided is kept",
    () =>
      Effect.gen(function* () {
        const mc = yield* makeMemoryClient(yield* FakeApiServer.make())
        const known = { metadata: { namespace: "default", name: "c1" } }
        const cc = yield* make({
          config: clusterCacheConfig({ maxTransitionsPerReconcile: 1 }),
          clusters: { get: () => known },
        }).pipe(Effect.provideService(KubeClient, mc))
        // Row 1 creates the accessor and continues; the second transition is past the bound.
        const error = yield* Effect.flip(cc.reconcile(cluster))
        assert.instanceOf(error, TableLoopError)
        assert.deepStrictEqual(
          { table: error.table, bound: error.bound, rows: error.rows },
          { table: "clustercache.reconciler", bound: 1, rows: ["clustercache.reconciler#1"] },
        )
        assert.deepStrictEqual(yield* cc.accessors(), [{ cluster, connected: false }])
      }),
  )
})

describe("ClusterCache cached client and reader (seed 000: GetClient, GetReader)", () => {
  it.effect("get and list read the cache (no GET on the server); writes go to the server", () =>
    Effect.gen(function* () {
      const { cc, workload } = yield* setup
      yield* cc.reconcile(cluster)
      const wc = yield* makeMemoryClient(workload)
      yield* wc.create(Resources.configMaps, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { namespace: "default", name: "a", labels: { app: "x" } },
      })
      const client = yield* cc.getClient(cluster)
      const reader = yield* cc.getReader(cluster)
      workload.inject({ verb: "get", error: "Unreachable" })
      const a = yield* client.get(Resources.configMaps, { namespace: "default", name: "a" })
      assert.strictEqual(a.metadata.name, "a")
      const listed = yield* reader.list(Resources.configMaps, {
        namespace: "default",
        labelSelector: "app=x",
      })
      assert.deepStrictEqual(
        listed.items.map((o) => o.metadata.name),
        ["a"],
      )
      const missing = yield* Effect.flip(
        reader.get(Resources.configMaps, { namespace: "default", name: "b" }),
      )
      assert.strictEqual(missing._tag, "NotFound")
      workload.clearFaults()
      yield* client.create(Resources.configMaps, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { namespace: "default", name: "b" },
      })
      assert.strictEqual(
        (yield* wc.get(Resources.configMaps, { namespace: "default", name: "b" })).metadata.name,
        "b",
      )
      // The uncached client reads the server.
      workload.inject({ verb: "get", error: "Unreachable" })
      const live = yield* Effect.flip(
        (yield* cc.getUncachedClient(cluster)).get(Resources.configMaps, { namespace: "default", name: "a" }),
      )
      assert.strictEqual(live._tag, "Unreachable")
    }),
  )

  it.effect(
    "a cached read whose informer does not sync fails with Timeout after the client timeout (10 s)",
    () =>
      Effect.gen(function* () {
        const { cc, workload } = yield* setup
        yield* cc.reconcile(cluster)
        workload.inject({ verb: "list", error: "Unreachable" })
        const reader = yield* cc.getReader(cluster)
        const fiber = yield* Effect.forkChild(
          Effect.flip(reader.get(Resources.configMaps, { namespace: "default", name: "a" })),
        )
        yield* TestClock.adjust(ClusterCacheDefaults.client.timeout - 1)
        assert.isUndefined(fiber.pollUnsafe())
        yield* TestClock.adjust(1)
        const err = yield* Fiber.join(fiber)
        assert.strictEqual(err._tag, "Timeout")
      }),
  )

  it.effect("disableFor: those resources are always read from the server", () =>
    Effect.gen(function* () {
      const { mc, workload } = yield* setup
      const cc = yield* make({
        connectionFactory: () => makeMemoryClient(workload),
        disableFor: [Resources.secrets],
      }).pipe(Effect.provideService(KubeClient, mc))
      yield* cc.reconcile(cluster)
      workload.inject({ verb: "get", error: "Unreachable" })
      const err = yield* Effect.flip(
        (yield* cc.getReader(cluster)).get(Resources.secrets, { namespace: "default", name: "s" }),
      )
      assert.strictEqual(err._tag, "Unreachable")
    }),
  )
})
