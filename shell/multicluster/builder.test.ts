import { assert, describe, it } from "@effect/vitest"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { done } from "../controller/result.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { type ClusterName, formatRequest } from "../workqueue/request.ts"
import { controllerManagedBy, typedControllerManagedBy } from "./builder.ts"
import { makeCluster } from "./cluster.ts"
import { clusterFromContext, currentCluster } from "./context.ts"
import { enqueueRequestForObject, enqueueRequestsForClusters, enqueueRequestsFromMapFunc } from "./handler.ts"
import { make as makeManager } from "./manager.ts"
import { makeMemoryProvider } from "./memoryProvider.ts"
import { checkRequest, customRequest } from "./request.ts"
import type { Cluster, ClusterAwareRunnable } from "./types.ts"

const cms = Resources.configMaps
const cm = (name: string, data: Record<string, string> = {}): KubeObject => ({
  metadata: { name, namespace: "default" },
  data,
})
let serial = 0
const unique = (p: string) => `${p}-${++serial}`

const eventually = (what: string, cond: () => boolean, steps = 400, step: Duration.Input = "10 millis") =>
  Effect.gen(function* () {
    for (let i = 0; i < steps; i++) {
      if (cond()) return
      yield* Effect.repeat(Effect.yieldNow, { times: 20 })
      yield* TestClock.adjust(step)
    }
    assert.fail(`not reached: ${what}`)
  })

/** A hub with configmap `on-hub`, a memory provider with clusters c1, c2 (configmap `a` each), a manager. */
const setup = Effect.gen(function* () {
  const hubFake = yield* FakeApiServer.make()
  yield* hubFake.client().create(cms, cm("on-hub"))
  const hub = yield* makeCluster({ client: yield* makeMemoryClient(hubFake) })
  const provider = yield* makeMemoryProvider()
  const fakes = new Map<string, FakeApiServer>()
  for (const name of ["c1", "c2"]) {
    const fake = yield* FakeApiServer.make()
    yield* fake.client().create(cms, cm("a"))
    fakes.set(name, fake)
    yield* provider.add(name, fake)
  }
  const manager = yield* makeManager({ hub, provider })
  return { hubFake, manager, provider, fakes }
})

const record = (into: Array<string>, entry: string) =>
  Effect.sync(() => {
    into.push(entry)
    return done()
  })

describe("builder: engage options per watch", () => {
  it.effect("For on hub and provider clusters, Watches on the hub only, each by its own options", () =>
    Effect.gen(function* () {
      const { manager } = yield* setup
      const seen: Array<string> = []
      yield* controllerManagedBy(manager)
        .named(unique("both"))
        .for(cms, { engageWithLocalCluster: true, engageWithProviderClusters: true })
        .complete((req) => record(seen, `for ${formatRequest(req)}`))
      yield* controllerManagedBy(manager)
        .named(unique("hub-watches"))
        .watches(cms, enqueueRequestForObject(), {
          engageWithLocalCluster: true,
          engageWithProviderClusters: false,
        })
        .complete((req) => record(seen, `watches ${formatRequest(req)}`))
      yield* manager.start
      yield* eventually("four reconciles", () => seen.length === 4)
      assert.deepStrictEqual([...seen].sort(), [
        "for cluster:///default/on-hub",
        "for cluster://c1/default/a",
        "for cluster://c2/default/a",
        "watches cluster:///default/on-hub",
      ])
    }),
  )

  it.effect("a watch's own cluster filter keeps only that watch off a cluster", () =>
    Effect.gen(function* () {
      const { manager, fakes } = yield* setup
      yield* (fakes.get("c1") as FakeApiServer).client().create(Resources.secrets, {
        metadata: { name: "s", namespace: "default" },
      })
      const seen: Array<string> = []
      const controller = yield* controllerManagedBy(manager)
        .named(unique("filters"))
        .watches(cms, enqueueRequestForObject(), { clusterFilter: (c) => c.name === "c2" })
        .watches(Resources.secrets, enqueueRequestForObject())
        .complete((req) => record(seen, formatRequest(req)))
      yield* manager.start
      yield* eventually("two reconciles", () => seen.length === 2)
      assert.deepStrictEqual([...seen].sort(), ["cluster://c1/default/s", "cluster://c2/default/a"])
      const states = (yield* controller.pairs).map((p) => `${p.cluster}:${p.state}`).sort()
      assert.deepStrictEqual(states, [":Excluded", "c1:Engaged", "c2:Engaged"])
    }),
  )
})

interface Revisioned {
  readonly cluster: ClusterName
  readonly key: string
  readonly revision: number
}

describe("builder: the user's own request type", () => {
  it.effect("requests of the user's type reach the reconciler whole; equal ones are one", () =>
    Effect.gen(function* () {
      const { manager } = yield* setup
      const seen: Array<string> = []
      const type = customRequest<Revisioned>({ name: "Revisioned" })
      yield* typedControllerManagedBy(manager, type)
        .named(unique("typed"))
        .watches(
          cms,
          enqueueRequestsFromMapFunc((o: KubeObject, c: Cluster) => [
            { cluster: c.name, key: `${o.metadata.name}`, revision: 1 },
            { revision: 1, key: `${o.metadata.name}`, cluster: c.name },
          ]),
        )
        .complete((req) => record(seen, `${req.cluster}|${req.key}|${req.revision}`))
      yield* manager.start
      yield* eventually("two reconciles", () => seen.length === 2)
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual([...seen].sort(), ["c1|a|1", "c2|a|1"])
    }),
  )

  it.effect("for() of a type without forObject is refused, naming the type", () =>
    Effect.gen(function* () {
      const { manager } = yield* setup
      const exit = yield* Effect.exit(
        typedControllerManagedBy(manager, customRequest<Revisioned>({ name: "Revisioned" }))
          .named("x")
          .for(cms)
          .complete(() => Effect.succeed(done())),
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(exit), "for() needs a request type with forObject: Revisioned")
    }),
  )

  it("checkRequest names the field at fault: the cluster is required", () => {
    assert.include(checkRequest("R", { name: "x" })?.message ?? "", "R.cluster: the cluster name is required")
    assert.strictEqual(checkRequest("R", { name: "x" })?.field, "cluster")
    assert.strictEqual(checkRequest("R", { cluster: "c", at: new Date() })?.field, "at")
    assert.strictEqual(checkRequest("R", { cluster: "c", n: [1, Number.NaN] })?.field, "n[1]")
    assert.isUndefined(checkRequest("R", { cluster: "", n: [1, { a: null }] }))
  })
})

describe("the reconcile's cluster in context", () => {
  it.effect("code called from a reconcile reads its cluster; outside one it is a typed error", () =>
    Effect.gen(function* () {
      const { manager } = yield* setup
      const seen: Array<string> = []
      // A helper far from the request: it only knows the context.
      const countConfigMaps = Effect.gen(function* () {
        const cluster = yield* currentCluster
        const list = yield* cluster.cache.list(cms)
        return `${yield* clusterFromContext}:${list.length}`
      })
      yield* controllerManagedBy(manager)
        .named(unique("context"))
        .watches(cms, enqueueRequestForObject())
        .complete(() => Effect.flatMap(Effect.orDie(countConfigMaps), (line) => record(seen, line)))
      yield* manager.start
      yield* eventually("two reconciles", () => seen.length === 2)
      assert.deepStrictEqual([...seen].sort(), ["c1:1", "c2:1"])
      const outside = yield* Effect.flip(clusterFromContext)
      assert.strictEqual(outside._tag, "NoClusterInContextError")
    }),
  )
})

describe("manager.add: any cluster-aware runnable", () => {
  it.effect("is started once and engaged with the hub and every cluster; disengaged when one leaves", () =>
    Effect.gen(function* () {
      const { manager, provider } = yield* setup
      const events: Array<string> = []
      const runnable: ClusterAwareRunnable = {
        name: "recorder",
        start: Effect.sync(() => void events.push("start")),
        engage: (cluster: Cluster, scope: Scope.Scope) =>
          Effect.gen(function* () {
            events.push(`engage ${cluster.name}`)
            yield* Scope.addFinalizer(
              scope,
              Effect.sync(() => void events.push(`left ${cluster.name}`)),
            )
          }),
        disengage: (cluster) => Effect.sync(() => void events.push(`disengage ${cluster.name}`)),
      }
      yield* manager.add(runnable)
      yield* manager.start
      yield* eventually("engaged", () => events.length === 4)
      assert.deepStrictEqual([...events].sort(), ["engage ", "engage c1", "engage c2", "start"])
      yield* provider.remove("c1")
      yield* eventually("left", () => events.includes("left c1"))
      assert.strictEqual((yield* manager.runnables).length, 1)
      assert.strictEqual((yield* manager.controllers).length, 0)
    }),
  )
})

describe("fan-out: one hub object to the clusters it names", () => {
  it.effect("a named cluster the provider engages after the object's event still gets its request", () =>
    Effect.gen(function* () {
      const { manager, hubFake, provider } = yield* setup
      const seen: Array<string> = []
      yield* hubFake.client().create(cms, cm("policy", { clusters: "c1,late" }))
      yield* controllerManagedBy(manager)
        .named(unique("fan-out-late"))
        .watches(
          cms,
          enqueueRequestsForClusters({
            clusters: (o: KubeObject) =>
              ((o.data as Record<string, string> | undefined)?.clusters ?? "").split(","),
          }),
          {
            engageWithLocalCluster: true,
            engageWithProviderClusters: false,
            predicates: [(e) => e.object.metadata.name === "policy"],
          },
        )
        .watches(cms, enqueueRequestForObject(), { predicates: [(e) => e.object.metadata.name === "policy"] })
        .complete((req) => record(seen, formatRequest(req)))
      yield* manager.start
      yield* eventually("c1", () => seen.includes("cluster://c1/default/policy"))
      assert.isFalse(seen.includes("cluster://late/default/policy"))
      yield* provider.add("late", yield* FakeApiServer.make())
      yield* eventually("late replayed", () => seen.includes("cluster://late/default/policy"))
    }),
  )

  it.effect("enqueues the object on each named cluster; an update also reaches the clusters dropped", () =>
    Effect.gen(function* () {
      const { manager, hubFake } = yield* setup
      const seen: Array<string> = []
      const targets = (o: KubeObject) =>
        ((o.data as Record<string, string> | undefined)?.clusters ?? "").split(",").filter((c) => c !== "")
      yield* hubFake.client().create(cms, cm("policy", { clusters: "c1,c2,c1,unknown" }))
      yield* controllerManagedBy(manager)
        .named(unique("fan-out"))
        .watches(cms, enqueueRequestsForClusters({ clusters: targets }), {
          engageWithLocalCluster: true,
          engageWithProviderClusters: false,
          predicates: [(e) => e.object.metadata.name === "policy"],
        })
        // The copies on each cluster: engages the targets (and would repair drift).
        .watches(cms, enqueueRequestForObject(), { predicates: [(e) => e.object.metadata.name === "policy"] })
        .complete((req) => record(seen, formatRequest(req)))
      yield* manager.start
      yield* eventually("fanned out", () => seen.length >= 2)
      assert.deepStrictEqual([...new Set(seen)].sort(), [
        "cluster://c1/default/policy",
        "cluster://c2/default/policy",
      ])
      seen.length = 0
      const current = yield* hubFake.client().get(cms, { namespace: "default", name: "policy" })
      yield* hubFake.client().update(cms, { ...current, data: { clusters: "c1" } })
      yield* eventually("both again", () => new Set(seen).size === 2)
    }),
  )
})

describe("builder: strict options", () => {
  it.effect("an unknown option of a watch or of withOptions fails, naming the closest known one", () =>
    Effect.gen(function* () {
      const { manager } = yield* setup
      const watchTypo = yield* Effect.flip(
        controllerManagedBy(manager)
          .named("typo")
          .for(cms, { engageWithLocalClustr: true } as never)
          .complete(() => Effect.succeed(done())),
      )
      assert.include(
        watchTypo.message,
        'for(ConfigMap): unknown option "engageWithLocalClustr"; did you mean "engageWithLocalCluster"?',
      )
      const controllerTypo = yield* Effect.flip(
        controllerManagedBy(manager)
          .named("typo")
          .withOptions({ maxConcurrentReconcile: 2 } as never)
          .watches(cms, enqueueRequestForObject())
          .complete(() => Effect.succeed(done())),
      )
      assert.include(controllerTypo.message, 'did you mean "maxConcurrentReconciles"?')
    }),
  )

  it.effect("withOptions' bucket reaches the shared queue: one without tokens is refused", () =>
    Effect.gen(function* () {
      const { manager } = yield* setup
      const exit = yield* Effect.exit(
        controllerManagedBy(manager)
          .named("no-tokens")
          .withOptions({ bucket: { burst: 0 } })
          .watches(cms, enqueueRequestForObject())
          .complete(() => Effect.succeed(done())),
      )
      assert.isTrue(Exit.isFailure(exit))
      assert.include(
        String(Exit.isFailure(exit) ? exit.cause : ""),
        "bucket.burst must be an integer of at least 1",
      )
    }),
  )
})
