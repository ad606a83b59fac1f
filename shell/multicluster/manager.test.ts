import { assert, describe, it } from "@effect/vitest"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Latch from "effect/Latch"
import * as Logger from "effect/Logger"
import * as Metric from "effect/Metric"
import * as References from "effect/References"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { EngagementDefaults } from "../../core/multicluster/index.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import * as ControllerMetrics from "../controller/metrics.ts"
import { done } from "../controller/result.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import * as QueueMetrics from "../workqueue/metrics.ts"
import { ClusterName, formatRequest, HubCluster, makeRequest, type Request } from "../workqueue/request.ts"
import { controllerManagedBy } from "./builder.ts"
import { makeCluster } from "./cluster.ts"
import { type ClusterEventHandler, enqueueRequestForObject, enqueueRequestsFromMapFunc } from "./handler.ts"
import { engagedClusters, make as makeManager } from "./manager.ts"
import { makeMemoryProvider } from "./memoryProvider.ts"

const cms = Resources.configMaps
const cm = (name: string, namespace = "default"): KubeObject => ({ metadata: { name, namespace }, data: {} })
let serial = 0
const unique = (p: string) => `${p}-${++serial}`

/** Moves virtual time in small steps until `cond` holds; fails (never hangs) after `steps`. */
const eventually = (
  what: string,
  cond: () => boolean | Effect.Effect<boolean>,
  steps = 400,
  step: Duration.Input = "10 millis",
) =>
  Effect.gen(function* () {
    for (let i = 0; i < steps; i++) {
      const r = cond()
      if (typeof r === "boolean" ? r : yield* r) return
      yield* Effect.repeat(Effect.yieldNow, { times: 20 })
      yield* TestClock.adjust(step)
    }
    assert.fail(`not reached: ${what}`)
  })

/** Records `entry` and finishes the reconcile. */
const note = (into: Array<string>, entry: string) =>
  Effect.sync(() => {
    into.push(entry)
    return done()
  })

const captureLogs = () => {
  const lines: Array<Record<string, unknown>> = []
  const logger = Logger.make((o) => {
    lines.push({ level: o.logLevel, message: o.message, ...o.fiber.getRef(References.CurrentLogAnnotations) })
  })
  return { lines, layer: Logger.layer([logger]) }
}

/** A hub, a memory provider with `n` clusters c1…cn (each with configmap `a`), and a manager. */
const setup = (n: number) =>
  Effect.gen(function* () {
    const hubFake = yield* FakeApiServer.make()
    const hub = yield* makeCluster({ client: yield* makeMemoryClient(hubFake) })
    const provider = yield* makeMemoryProvider()
    const fakes = new Map<string, FakeApiServer>()
    for (let i = 1; i <= n; i++) {
      const fake = yield* FakeApiServer.make()
      yield* fake.client().create(cms, cm("a"))
      fakes.set(`c${i}`, fake)
      yield* provider.add(`c${i}`, fake)
    }
    const manager = yield* makeManager({ hub, provider })
    return { hubFake, hub, provider, fakes, manager }
  })

describe("multi-cluster manager", () => {
  it.effect(
    "a uniform controller reconciles each engaged cluster's objects with requests cluster://<cluster>/…",
    () =>
      Effect.gen(function* () {
        const { manager, fakes, hubFake } = yield* setup(3)
        yield* hubFake.client().create(cms, cm("on-hub"))
        const seen: Array<string> = []
        const controller = yield* controllerManagedBy(manager)
          .named(unique("uniform"))
          .watches(cms, enqueueRequestForObject())
          .complete((req) =>
            Effect.gen(function* () {
              // Multi-Cluster-Compatible Reconcilers: the client comes from getCluster(req.cluster).
              const cluster = yield* manager.getCluster(req.cluster)
              const object = yield* cluster.client.get(cms, req)
              seen.push(`${formatRequest(req)}@${object.metadata.name}`)
              return done()
            }),
          )
        yield* manager.start
        yield* eventually("three clusters reconciled", () => seen.length === 3)
        assert.deepStrictEqual([...seen].sort(), [
          "cluster://c1/default/a@a",
          "cluster://c2/default/a@a",
          "cluster://c3/default/a@a",
        ])
        // the hub is not engaged by default with a provider (seed 003: provider clusters ONLY)
        const pairs = yield* controller.pairs
        assert.strictEqual(pairs.find((p) => p.cluster === HubCluster)?.state, "Excluded")
        yield* fakes.get("c2")?.client().create(cms, cm("b")) ?? Effect.void
        yield* eventually("new object reconciled", () => seen.includes("cluster://c2/default/b@b"))
        assert.strictEqual((yield* manager.getCluster("")).name, HubCluster)
        const missing = yield* Effect.flip(manager.getCluster("nope"))
        assert.strictEqual(missing._tag, "ClusterNotFound")
        assert.strictEqual(missing.cluster, "nope")
      }),
  )

  it.effect("counts its engaged provider clusters in krtt_multicluster_engaged_clusters", () =>
    Effect.gen(function* () {
      const { manager, provider } = yield* setup(3)
      const gauge = Effect.map(Metric.value(engagedClusters), (v) => v.value)
      yield* manager.start
      yield* eventually("three engaged", () => Effect.map(manager.clusters, (cs) => cs.length === 3))
      assert.strictEqual(yield* gauge, 3)
      yield* provider.remove("c1")
      yield* eventually("two engaged", () => Effect.map(manager.clusters, (cs) => cs.length === 2))
      assert.strictEqual(yield* gauge, 2)
    }),
  )

  it.effect("requests of a removed cluster are dropped, never reconciled, with one log line", () =>
    Effect.gen(function* () {
      const logs = captureLogs()
      yield* Effect.gen(function* () {
        const { manager, provider } = yield* setup(2)
        const seen: Array<string> = []
        const controller = yield* controllerManagedBy(manager)
          .named(unique("drop"))
          .watches(cms, enqueueRequestForObject())
          .complete((req) => note(seen, formatRequest(req)))
        yield* manager.start
        yield* eventually("both engaged", () => seen.length === 2)
        yield* provider.remove("c1")
        yield* eventually("c1 absent", () =>
          Effect.map(controller.pairs, (ps) => ps.find((p) => p.cluster === "c1")?.state === "Absent"),
        )
        assert.strictEqual((yield* Effect.flip(manager.getCluster("c1")))._tag, "ClusterNotFound")
        const before = seen.length
        for (const n of ["x", "y", "z"])
          yield* controller.queue.add(makeRequest({ namespace: "default", name: n }, ClusterName("c1")))
        yield* eventually("three dropped", () =>
          Effect.map(controller.pairs, (ps) => ps.find((p) => p.cluster === "c1")?.dropped === 3),
        )
        assert.strictEqual(seen.length, before, "no reconcile for a gone cluster")
        assert.strictEqual(yield* controller.queue.length, 0, "not requeued")
        yield* TestClock.adjust("20 minutes")
        assert.strictEqual(seen.length, before, "never retried")
      }).pipe(Effect.provide(logs.layer))
      const drops = logs.lines.filter((l) => String(l.message).includes("dropping requests"))
      assert.strictEqual(drops.length, 1, "one log line per departure")
      assert.strictEqual(drops[0]?.reason, "ClusterNotFound")
      assert.strictEqual(drops[0]?.request, "cluster://c1/default/x")
    }),
  )

  it.effect("a re-added cluster with new credentials is re-engaged with the new cluster", () =>
    Effect.gen(function* () {
      const { manager, provider } = yield* setup(1)
      const seen: Array<string> = []
      yield* controllerManagedBy(manager)
        .named(unique("rotate"))
        .watches(cms, enqueueRequestForObject())
        .complete((req) =>
          Effect.gen(function* () {
            const cluster = yield* manager.getCluster(req.cluster)
            seen.push(`${req.name}@${cluster.generation}`)
            return done()
          }),
        )
      yield* manager.start
      yield* eventually("engaged", () => seen.length === 1)
      const fresh = yield* FakeApiServer.make()
      yield* fresh.client().create(cms, cm("rotated"))
      yield* provider.add("c1", fresh, { generation: "2" })
      yield* eventually("re-engaged with the new server", () => seen.includes("rotated@2"))
      assert.deepStrictEqual(seen, ["a@1", "rotated@2"])
    }),
  )

  it.effect(
    "one flooding cluster does not starve the others: the shared queue is round-robin over clusters",
    () =>
      Effect.gen(function* () {
        const { manager, fakes, provider } = yield* setup(0)
        const quiet = ["q1", "q2", "q3", "q4", "q5"]
        for (const q of quiet) {
          const fake = yield* FakeApiServer.make()
          yield* fake.client().create(cms, cm("only"))
          fakes.set(q, fake)
        }
        const flood = yield* FakeApiServer.make()
        for (let i = 0; i < 500; i++) yield* flood.client().create(cms, cm(`f${i}`))
        const order: Array<string> = []
        const gate = yield* Latch.make()
        const controller = yield* controllerManagedBy(manager)
          .named(unique("fair"))
          .watches(cms, enqueueRequestForObject())
          .complete((req: Request) => Effect.andThen(gate.await, note(order, req.cluster)))
        yield* manager.start
        // The flood engages first: its 500 requests wait (the one worker is held at the gate) before
        // the quiet clusters' requests arrive.
        yield* provider.add("flood", flood)
        yield* eventually("flood queued", () => Effect.map(controller.queue.length, (n) => n >= 499))
        for (const q of quiet) yield* provider.add(q, fakes.get(q) as FakeApiServer)
        yield* eventually("quiet clusters queued", () => Effect.map(controller.queue.length, (n) => n >= 504))
        yield* gate.open
        yield* eventually("everything reconciled", () => order.length === 505, 2000)
        const lastQuiet = Math.max(...quiet.map((q) => order.indexOf(q)))
        const floodBefore = order.slice(0, lastQuiet).filter((c) => c === "flood").length
        // Round-robin: each quiet cluster waits at most one turn of each other cluster, not the flood's 500.
        assert.isAtMost(floodBefore, 6, `flood requests reconciled before the last quiet one: ${floodBefore}`)
        const m = QueueMetrics.forQueueCluster(controller.name, "q1")
        assert.strictEqual((yield* Metric.value(m.adds)).count, 1, "per-cluster queue metrics")
        const total = ControllerMetrics.forControllerCluster(controller.name, "flood").total("success")
        assert.strictEqual((yield* Metric.value(total)).count, 500, "per-cluster reconcile metrics")
        const base = ControllerMetrics.forController(controller.name).total("success")
        assert.strictEqual(
          (yield* Metric.value(base)).count,
          0,
          "instead of the per-controller series: sums stay right",
        )
      }),
  )

  it.effect(
    "a cluster replaced in place (new generation engaged before the old scope closes) moves to the new credentials",
    () =>
      Effect.gen(function* () {
        const { manager, provider, fakes } = yield* setup(1)
        const seen: Array<string> = []
        const controller = yield* controllerManagedBy(manager)
          .named(unique("swap"))
          .watches(cms, enqueueRequestForObject())
          .complete((req) =>
            Effect.gen(function* () {
              const cluster = yield* manager.getCluster(req.cluster)
              seen.push(`${req.name}@${cluster.generation}`)
              return done()
            }),
          )
        yield* manager.start
        yield* eventually("engaged", () => seen.length === 1)
        const old = fakes.get("c1") as FakeApiServer
        const fresh = yield* FakeApiServer.make()
        yield* fresh.client().create(cms, cm("new"))
        yield* provider.rotate("c1", fresh, "2")
        yield* eventually("engaged with generation 2", () => seen.includes("new@2"))
        const pair = (yield* controller.pairs).find((p) => p.cluster === "c1")
        assert.deepStrictEqual([pair?.state, pair?.generation], ["Engaged", "2"])
        yield* Effect.repeat(Effect.yieldNow, { times: 50 })
        assert.strictEqual(old.watchCount(cms), 0, "the old generation's sources stopped")
        yield* old.client().create(cms, cm("stale"))
        yield* fresh.client().create(cms, cm("fresh"))
        yield* eventually("new events reconciled", () => seen.includes("fresh@2"))
        assert.notInclude(seen.join(), "stale", "no event of the old credentials")
      }),
  )

  it.effect("a cluster whose API server hangs blocks no other: its pair waits, the others reconcile", () =>
    Effect.gen(function* () {
      const { manager, provider } = yield* setup(2)
      const down = yield* FakeApiServer.make()
      yield* down.client().create(cms, cm("a"))
      down.stop()
      const seen: Array<string> = []
      const controller = yield* controllerManagedBy(manager)
        .named(unique("slow"))
        .watches(cms, enqueueRequestForObject())
        .complete((req) => note(seen, req.cluster))
      yield* provider.add("down", down)
      yield* manager.start
      yield* eventually("healthy clusters reconciled", () => seen.includes("c1") && seen.includes("c2"))
      const pair = (yield* controller.pairs).find((p) => p.cluster === "down")
      assert.strictEqual(pair?.state, "WaitingForSync")
      // after the cache sync timeout (2 min) the engagement fails and is retried with backoff
      assert.strictEqual(EngagementDefaults.cacheSyncTimeout, 120_000)
      yield* TestClock.adjust("2 minutes")
      yield* eventually("failed", () =>
        Effect.map(controller.pairs, (ps) => ps.find((p) => p.cluster === "down")?.state === "Failed"),
      )
      down.start()
      yield* eventually("engaged after the retry", () => seen.includes("down"), 1000, "100 millis")
    }),
  )

  it.effect(
    "an unhealthy cluster is disengaged and engaged again when healthy; reconciles elsewhere go on",
    () =>
      Effect.gen(function* () {
        const { manager, provider, fakes } = yield* setup(2)
        const seen: Array<string> = []
        const controller = yield* controllerManagedBy(manager)
          .named(unique("health"))
          .watches(cms, enqueueRequestForObject())
          .complete((req) => note(seen, `${req.cluster}/${req.name}`))
        yield* manager.start
        yield* eventually("engaged", () => seen.length === 2)
        yield* provider.setHealthy("c1", false, "probe failed 5 times")
        yield* eventually("unhealthy", () =>
          Effect.map(controller.pairs, (ps) => ps.find((p) => p.cluster === "c1")?.state === "Unhealthy"),
        )
        yield* fakes.get("c2")?.client().create(cms, cm("b")) ?? Effect.void
        yield* eventually("c2 goes on", () => seen.includes("c2/b"))
        yield* fakes.get("c1")?.client().create(cms, cm("later")) ?? Effect.void
        yield* provider.setHealthy("c1", true)
        yield* eventually("c1 again", () => seen.includes("c1/later"))
        assert.isTrue(yield* controller.isEngaged(ClusterName("c1")))
      }),
  )

  it.effect(
    "an aggregating controller maps provider-cluster events to hub requests (engageWithLocalCluster)",
    () =>
      Effect.gen(function* () {
        const { manager } = yield* setup(3)
        const seen: Array<string> = []
        yield* controllerManagedBy(manager)
          .named(unique("aggregate"))
          .withOptions({ engageWithLocalCluster: true })
          .watches(
            cms,
            enqueueRequestsFromMapFunc(() => [
              makeRequest({ namespace: "default", name: "summary" }, HubCluster),
            ]),
          )
          .complete((req) =>
            Effect.gen(function* () {
              const clusters = yield* manager.clusters
              let total = 0
              for (const c of clusters) total += (yield* c.cache.list(cms)).length
              seen.push(`${formatRequest(req)}=${total}`)
              return done()
            }),
          )
        yield* manager.start
        yield* eventually("aggregated", () => seen.some((s) => s.endsWith("=3")))
        assert.isTrue(seen.every((s) => s.startsWith("cluster:///default/summary")))
      }),
  )

  it.effect(
    "For/Owns watch the hub only; a cluster filter and engageWithProviderClusters keep clusters out",
    () =>
      Effect.gen(function* () {
        const { manager, hubFake } = yield* setup(2)
        yield* hubFake.client().create(cms, cm("hub-only"))
        const seen: Array<string> = []
        const hubCtl = yield* controllerManagedBy(manager)
          .withOptions({ engageWithLocalCluster: true, engageWithProviderClusters: false })
          .named(unique("hub"))
          .for(cms)
          .complete((req) => note(seen, formatRequest(req)))
        const filtered = yield* controllerManagedBy(manager)
          .named(unique("filtered"))
          .withOptions({ clusterFilter: (c) => c.name === "c2" })
          .watches(cms, enqueueRequestForObject())
          .complete((req) => note(seen, `filtered ${formatRequest(req)}`))
        yield* manager.start
        yield* eventually("reconciled", () => seen.length === 2)
        assert.deepStrictEqual([...seen].sort(), [
          "cluster:///default/hub-only",
          "filtered cluster://c2/default/a",
        ])
        const states = (yield* hubCtl.pairs).map((p) => `${p.cluster}:${p.state}`).sort()
        assert.deepStrictEqual(states, [":Engaged", "c1:Excluded", "c2:Excluded"])
        const f = (yield* filtered.pairs).find((p) => p.cluster === "c1")
        assert.strictEqual(f?.state, "Excluded")
      }),
  )

  it.effect("manager.indexField indexes the hub and every current and future cluster's cache", () =>
    Effect.gen(function* () {
      const logs = captureLogs()
      yield* Effect.gen(function* () {
        const { manager, provider } = yield* setup(1)
        const byData = (o: KubeObject) => [
          String((o.data as Record<string, string> | undefined)?.team ?? "none"),
        ]
        yield* manager.indexField(cms, "team", byData)
        const found: Array<string> = []
        yield* controllerManagedBy(manager)
          .named(unique("index"))
          .watches(cms, enqueueRequestForObject())
          .complete((req) =>
            Effect.gen(function* () {
              const cluster = yield* manager.getCluster(req.cluster)
              const mine = yield* cluster.cache.list(cms, { index: { name: "team", value: "blue" } })
              found.push(`${req.cluster}:${mine.map((o) => o.metadata.name).join(",")}`)
              return done()
            }),
          )
        yield* manager.start
        const later = yield* FakeApiServer.make()
        yield* later
          .client()
          .create(cms, { metadata: { name: "b1", namespace: "default" }, data: { team: "blue" } })
        yield* provider.add("later", later)
        yield* eventually("indexed in the later cluster", () => found.includes("later:b1"))
        assert.include(found, "c1:")
      }).pipe(Effect.provide(logs.layer))
      assert.isFalse(
        logs.lines.some((l) => String(l.message).includes("index")),
        "applying the same index twice (provider and manager) is silent",
      )
    }),
  )

  it.effect("Owns enqueues the hub owner of an owned object", () =>
    Effect.gen(function* () {
      const { manager, hubFake } = yield* setup(1)
      const parent = yield* hubFake.client().create(cms, cm("parent"))
      const seen: Array<string> = []
      yield* controllerManagedBy(manager)
        .withOptions({ engageWithLocalCluster: true })
        .named(unique("owns"))
        .for(cms, { predicates: [(e) => e.object.metadata.name === "parent"] })
        .owns(Resources.secrets)
        .complete((req) => note(seen, formatRequest(req)))
      yield* manager.start
      yield* eventually("parent reconciled", () => seen.length === 1)
      yield* hubFake.client().create(Resources.secrets, {
        metadata: {
          name: "child",
          namespace: "default",
          ownerReferences: [
            {
              apiVersion: "v1",
              kind: "ConfigMap",
              name: "parent",
              uid: parent.metadata.uid ?? "",
              controller: true,
            },
          ],
        },
      })
      yield* eventually("owner reconciled again", () => seen.length === 2)
      assert.deepStrictEqual(seen, ["cluster:///default/parent", "cluster:///default/parent"])
      const err = yield* Effect.flip(
        controllerManagedBy(manager)
          .named(unique("bad"))
          .owns(Resources.secrets)
          .complete(() => Effect.succeed(done())),
      )
      assert.include(err.message, "owns() needs for() first")
    }),
  )

  it.effect("a handler with deepCopyFor is copied per engaged cluster, each copy knowing its cluster", () =>
    Effect.gen(function* () {
      const { manager } = yield* setup(2)
      const copies: Array<string> = []
      const seen: Array<string> = []
      const remembering = (bound: string | undefined): ClusterEventHandler => ({
        description: "remembers its cluster",
        requests: (event) => [
          makeRequest(
            { namespace: "default", name: `${event.object.metadata.name}-via-${bound ?? "original"}` },
            ClusterName(bound ?? ""),
          ),
        ],
        deepCopyFor: (cluster) => {
          copies.push(cluster.name)
          return remembering(cluster.name)
        },
      })
      yield* controllerManagedBy(manager)
        .named(unique("copy"))
        .watches(cms, remembering(undefined))
        .complete((req) => note(seen, formatRequest(req)))
      yield* manager.start
      yield* eventually("reconciled", () => seen.length === 2)
      assert.deepStrictEqual([...copies].sort(), ["c1", "c2"])
      assert.deepStrictEqual([...seen].sort(), [
        "cluster://c1/default/a-via-c1",
        "cluster://c2/default/a-via-c2",
      ])
    }),
  )

  it.effect("closing the manager's scope stops every source (no watch left open)", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const { manager, fakes } = yield* setup(2).pipe(Scope.provide(scope))
      const seen: Array<string> = []
      yield* controllerManagedBy(manager)
        .named(unique("stop"))
        .watches(cms, enqueueRequestForObject())
        .complete(() => note(seen, "x"))
        .pipe(Scope.provide(scope))
      yield* manager.start.pipe(Scope.provide(scope))
      yield* eventually("reconciled", () => seen.length === 2)
      assert.strictEqual(fakes.get("c1")?.watchCount(cms), 1)
      yield* Scope.close(scope, Exit.void)
      yield* Effect.repeat(Effect.yieldNow, { times: 50 })
      assert.strictEqual(fakes.get("c1")?.watchCount(cms), 0)
    }),
  )
})
