import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Metric from "effect/Metric"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { ClusterCacheDefaults } from "../../core/clustercache/index.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { informerCacheFactory } from "../cache/informerCache.ts"
import { KubeClient } from "../kube/client.ts"
import { Unauthorized } from "../kube/errors.ts"
import { Resources } from "../kube/resource.ts"
import { ClusterResource, type ConnectionFactory, make } from "./service.ts"

const cluster = { namespace: "default", name: "c1" }

const kubeconfig = (server: string, extra = "") =>
  Buffer.from(
    `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}"}}]
users: [{name: u, user: {token: secret-token${extra}}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`,
  ).toString("base64")

/** A management fake with the Cluster and its kubeconfig Secret, and one workload fake per server URL. */
const setup = Effect.gen(function* () {
  const mgmt = yield* FakeApiServer.make()
  mgmt.register(ClusterResource)
  const workload = yield* FakeApiServer.make()
  const mc = yield* makeMemoryClient(mgmt)
  yield* mc.create(ClusterResource, {
    apiVersion: "cluster.x-k8s.io/v1beta2",
    kind: "Cluster",
    metadata: { namespace: "default", name: "c1" },
  })
  yield* mc.patchStatus(ClusterResource, cluster, {
    type: "merge",
    body: { status: { initialization: { infrastructureProvisioned: true } } },
  })
  yield* mc.create(Resources.secrets, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { namespace: "default", name: "c1-kubeconfig" },
    data: { value: kubeconfig("https://workload.example") },
  })
  const factory: ConnectionFactory = (kc) =>
    kc.getCurrentCluster()?.server === "https://workload.example"
      ? makeMemoryClient(workload)
      : Effect.die(new Error("unknown server"))
  const cc = yield* make({ connectionFactory: factory }).pipe(Effect.provideService(KubeClient, mc))
  return { mgmt, workload, mc, cc }
})

const metricValue = (name: string, attrs: Record<string, string>) =>
  Effect.map(Metric.snapshot, (snap) => {
    const m = snap.find(
      (s) =>
        s.id === name &&
        Object.entries(attrs).every(
          ([k, v]) => (s.attributes as Record<string, string> | undefined)?.[k] === v,
        ),
    )
    return m === undefined
      ? undefined
      : ((m.state as { value?: number; count?: number }).value ?? (m.state as { count?: number }).count)
  })

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

/** A connected ClusterCache whose kubeconfig Secret a test can replace in the Secret store. */
const rotationSetup = Effect.gen(function* () {
  const mgmt = yield* FakeApiServer.make()
  mgmt.register(ClusterResource)
  const workloads = new Map([
    ["https://workload.example", yield* FakeApiServer.make()],
    ["https://moved.example", yield* FakeApiServer.make()],
  ])
  const mc = yield* makeMemoryClient(mgmt)
  yield* mc.create(ClusterResource, {
    apiVersion: "cluster.x-k8s.io/v1beta2",
    kind: "Cluster",
    metadata: { namespace: "default", name: "c1" },
  })
  yield* mc.patchStatus(ClusterResource, cluster, {
    type: "merge",
    body: { status: { initialization: { infrastructureProvisioned: true } } },
  })
  const holder = {
    secret: {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { namespace: "default", name: "c1-kubeconfig" },
      data: { value: kubeconfig("https://workload.example") },
    },
  }
  /** Tokens the workload servers accept (others are answered 401 by the factory's client). */
  const accepted = new Set(["secret-token", "secret-token-rotated"])
  const tokens: Array<string> = []
  const factory: ConnectionFactory = (kc) =>
    Effect.gen(function* () {
      const token = kc.getCurrentUser()?.token ?? ""
      tokens.push(token)
      const server = workloads.get(kc.getCurrentCluster()?.server ?? "")
      if (server === undefined) return yield* Effect.die(new Error("unknown server"))
      const client = yield* makeMemoryClient(server)
      return accepted.has(token)
        ? client
        : {
            ...client,
            probe: () =>
              Effect.fail(new Unauthorized({ verb: "probe", path: "/", message: "token refused" })),
          }
    })
  // No Secret on the management fake: every read must come from the store, without a request.
  const cc = yield* make({ connectionFactory: factory, secrets: { get: () => holder.secret } }).pipe(
    Effect.provideService(KubeClient, mc),
  )
  const rotate = (server: string, suffix: string) => {
    holder.secret = { ...holder.secret, data: { value: kubeconfig(server, suffix) } }
  }
  return { cc, workloads, tokens, rotate, accepted }
})

describe("ClusterCache service and a rotated kubeconfig Secret", () => {
  it.effect("same server and CA: new requests use the new credentials, informers and watches go on", () =>
    Effect.gen(function* () {
      const { cc, workloads, tokens, rotate } = yield* rotationSetup
      const workload = workloads.get("https://workload.example") as FakeApiServer
      yield* cc.reconcile(cluster)
      const seen: Array<string> = []
      yield* cc.watch(cluster, {
        name: "cm",
        resource: Resources.configMaps,
        onEvent: (e) => Effect.sync(() => seen.push(`${e._tag} ${e.object.metadata.name}`)),
      })
      const client = yield* cc.getClient(cluster)
      const steady = yield* cc.reconcile(cluster)
      assert.isFalse(steady.rows.includes("clustercache.accessor#6"))
      const before = tokens.length
      rotate("https://workload.example", "-rotated")
      const rotated = yield* cc.reconcile(cluster)
      assert.isFalse(rotated.rows.includes("clustercache.accessor#6"), rotated.rows.join(" "))
      assert.deepStrictEqual(tokens.slice(before), ["secret-token-rotated", "secret-token-rotated"])
      // The same client, the same informer: an object created now reaches the watch.
      assert.strictEqual(yield* cc.getClient(cluster), client)
      const wc = yield* makeMemoryClient(workload)
      yield* wc.create(Resources.configMaps, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { namespace: "default", name: "after" },
      })
      yield* TestClock.adjust("1 second")
      assert.include(seen, "Added after")
      // Nothing changes at the next reconcile: the rotated Secret is the current one.
      const next = yield* cc.reconcile(cluster)
      assert.isFalse(next.rows.includes("clustercache.accessor#6"))
      assert.strictEqual(tokens.length, before + 2)
    }),
  )

  it.effect("another server: disconnects and connects again at once (clusterAccessor row 6)", () =>
    Effect.gen(function* () {
      const { cc, tokens, rotate } = yield* rotationSetup
      yield* cc.reconcile(cluster)
      const client = yield* cc.getClient(cluster)
      const before = tokens.length
      rotate("https://moved.example", "-rotated")
      const moved = yield* cc.reconcile(cluster)
      assert.isTrue(moved.rows.includes("clustercache.accessor#6"), moved.rows.join(" "))
      assert.deepStrictEqual(yield* cc.accessors(), [{ cluster, connected: true }])
      assert.notStrictEqual(yield* cc.getClient(cluster), client)
      assert.isTrue(tokens.slice(before).every((t) => t === "secret-token-rotated"))
    }),
  )

  it.effect(
    "credentials the server refuses are not taken: the current ones stay, the Secret is tried again",
    () =>
      Effect.gen(function* () {
        const { cc, tokens, rotate, accepted } = yield* rotationSetup
        yield* cc.reconcile(cluster)
        const client = yield* cc.getClient(cluster)
        rotate("https://workload.example", "-early")
        const kept = yield* cc.reconcile(cluster)
        assert.isFalse(kept.rows.includes("clustercache.accessor#6"))
        assert.strictEqual(yield* cc.getClient(cluster), client)
        assert.deepStrictEqual(yield* cc.accessors(), [{ cluster, connected: true }])
        // Accepted a little later: the next reconcile takes them.
        accepted.add("secret-token-early")
        const before = tokens.length
        yield* cc.reconcile(cluster)
        assert.deepStrictEqual(tokens.slice(before), ["secret-token-early", "secret-token-early"])
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
})

describe("ClusterCache watches", () => {
  it.effect(
    "Watch() returns at once; a watch not synced within the initial sync timeout (5 min) is dropped and added again by the next call (Watch Management rows 4, 5)",
    () =>
      Effect.gen(function* () {
        const { cc, workload } = yield* setup
        yield* cc.reconcile(cluster)
        const wc = yield* makeMemoryClient(workload)
        yield* wc.create(Resources.configMaps, {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { namespace: "default", name: "a" },
        })
        workload.inject({ verb: "list", error: "Forbidden" })
        const first: Array<string> = []
        // No clock adjustment: Watch() does not wait for the informer.
        yield* cc.watch(cluster, {
          name: "cm",
          resource: Resources.configMaps,
          onEvent: (e) => Effect.sync(() => first.push(e.object.metadata.name ?? "")),
        })
        yield* TestClock.adjust("5 minutes")
        workload.clearFaults()
        const second: Array<string> = []
        yield* cc.watch(cluster, {
          name: "cm",
          resource: Resources.configMaps,
          onEvent: (e) => Effect.sync(() => second.push(e.object.metadata.name ?? "")),
        })
        yield* TestClock.adjust("2 minutes")
        // The first watch was dropped; the second one was added and receives the objects.
        assert.deepStrictEqual(first, [])
        assert.deepStrictEqual(second, ["a"])
      }),
  )
})

describe("ClusterCache connect and the initial sync timeout", () => {
  it.effect("a cache that has not synced within 5 min fails the connect (clusterAccessor rows 3 and 5)", () =>
    Effect.gen(function* () {
      const { mc, workload } = yield* setup
      const cc = yield* make({
        connectionFactory: () => makeMemoryClient(workload),
        cacheFactory: (client, o) =>
          Effect.map(informerCacheFactory(client, o), (c) => ({ ...c, waitForCacheSync: Effect.never })),
      }).pipe(Effect.provideService(KubeClient, mc))
      const fiber = yield* Effect.forkChild(cc.reconcile(cluster))
      yield* TestClock.adjust(ClusterCacheDefaults.initialSyncTimeout - 1)
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust(1)
      const r = yield* Fiber.join(fiber)
      assert.include(r.rows, "clustercache.accessor#3")
      assert.include(r.rows, "clustercache.accessor#5")
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
