import { assert, describe, it } from "@effect/vitest"
import { KubeConfig } from "@kubernetes/client-node"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { informerCacheFactory } from "../../cache/informerCache.ts"
import type { CacheFactory } from "../../cache/types.ts"
import { Forbidden, Unauthorized } from "../../kube/errors.ts"
import { Resources } from "../../kube/resource.ts"
import { ClusterName } from "../../workqueue/request.ts"
import { type Candidate, ClusterSetDefaults, makeClusterSet } from "./clusterSet.ts"
import { HealthDefaults, type HealthOptions, healthStep, probeOutcome } from "./health.ts"
import { kubeconfigYaml, recordingAware, until, workloads } from "./testing.ts"

const candidate = (
  w: ReturnType<typeof workloads>,
  name: string,
  token = "t",
  generation = token,
): Candidate => {
  const kc = new KubeConfig()
  kc.loadFromString(kubeconfigYaml(`https://${name}.example`, token))
  return {
    name: ClusterName(name),
    generation,
    connect: Effect.map(w.factory(kc, name), (client) => ({ client })),
  }
}

/** A cache factory that records the calls the engine makes, in order. */
const recordingCaches =
  (calls: Array<string>): CacheFactory =>
  (client, options) =>
    Effect.map(informerCacheFactory(client, options), (cache) => ({
      ...cache,
      start: Effect.andThen(
        Effect.sync(() => calls.push(`start ${options.cluster}`)),
        cache.start,
      ),
      waitForCacheSync: Effect.tap(cache.waitForCacheSync, () =>
        Effect.sync(() => calls.push(`synced ${options.cluster}`)),
      ),
      indexField: (resource, name, extract) =>
        Effect.andThen(
          Effect.sync(() => calls.push(`index ${options.cluster} ${name}`)),
          cache.indexField(resource, name, extract),
        ),
    }))

const setup = (health: Partial<HealthOptions> = {}, calls: Array<string> = []) =>
  Effect.gen(function* () {
    const w = workloads()
    const set = makeClusterSet({
      provider: "test",
      health: { ...HealthDefaults, ...health },
      cacheFactory: recordingCaches(calls),
      syncTimeout: ClusterSetDefaults.syncTimeout,
    })
    const aware = recordingAware()
    const scope = yield* Scope.make()
    const sink = yield* Scope.provide(set.bind(aware), scope)
    const stateOf = (name: string) => Effect.map(set.clusters, (cs) => cs.find((c) => c.name === name))
    return { w, set, aware, scope, sink, stateOf }
  })

describe("health gate (seed 000, Health Checking)", () => {
  it("healthStep: success resets, 401 is unhealthy at once, the 5th failure in a row is unhealthy", () => {
    const err = { _tag: "Unreachable", message: "connection refused" }
    let state = { consecutiveFailures: 0 }
    const verdicts: Array<string> = []
    for (let i = 0; i < 5; i++) {
      const s = healthStep(state, { _tag: "Failure", error: err }, HealthDefaults)
      state = s.state
      verdicts.push(s.verdict)
    }
    assert.deepStrictEqual(verdicts, ["degraded", "degraded", "degraded", "degraded", "unhealthy"])
    assert.include(
      healthStep({ consecutiveFailures: 4 }, { _tag: "Failure", error: err }, HealthDefaults).reason,
      "5 times",
    )
    assert.deepStrictEqual(healthStep(state, { _tag: "Success" }, HealthDefaults), {
      state: { consecutiveFailures: 0 },
      verdict: "healthy",
      reason: "",
    })
    const unauthorized = healthStep(
      { consecutiveFailures: 0 },
      { _tag: "Failure", error: { _tag: "Unauthorized", message: "no" } },
      HealthDefaults,
    )
    assert.strictEqual(unauthorized.verdict, "unhealthy")
  })

  it.effect(
    "an engaged cluster whose API server stops is disengaged at the 5th failed probe (50 s), the other stays",
    () =>
      Effect.gen(function* () {
        const { w, aware, sink, stateOf, set } = yield* setup()
        yield* sink.upsert(candidate(w, "a"))
        yield* sink.upsert(candidate(w, "b"))
        yield* until("both engaged", () => aware.open().size === 2)
        const fake = yield* w.server("https://a.example")
        fake.stop()
        for (let probe = 1; probe <= 4; probe++) {
          yield* TestClock.adjust("10 seconds")
          assert.isTrue(aware.open().has("a"), `still engaged after ${probe} failed probes`)
          assert.include((yield* stateOf("a"))?.reason, `probe failed ${probe} of 5 times`)
        }
        yield* TestClock.adjust("10 seconds")
        yield* until("a disengaged", () => !aware.open().has("a"), 5)
        assert.isTrue(aware.open().has("b"))
        const state = yield* stateOf("a")
        assert.deepStrictEqual([state?.engaged, state?.healthy], [false, false])
        assert.include(state?.reason, "probe failed 5 times in a row (threshold 5)")
        assert.strictEqual((yield* Effect.flip(set.get(ClusterName("a"))))._tag, "ClusterNotFound")
        // It comes back: the next probe (10 s later) engages it again, as a new Cluster.
        fake.start()
        yield* TestClock.adjust("10 seconds")
        yield* until("a engaged again", () => aware.open().has("a"), 5)
        assert.deepStrictEqual(
          aware.engagements.filter((e) => e.cluster.name === "a").map((e) => e.closed),
          [1, 0],
        )
        assert.deepStrictEqual(yield* stateOf("a"), {
          name: "a",
          engaged: true,
          healthy: true,
          reason: "engaged",
        })
      }),
  )

  it.effect("a probe answering within the 5 s timeout passes; one answering later counts as failed", () =>
    Effect.gen(function* () {
      const { w, aware, sink, stateOf } = yield* setup()
      yield* sink.upsert(candidate(w, "a"))
      yield* until("engaged", () => aware.open().has("a"))
      const fake = yield* w.server("https://a.example")
      fake.inject({ verb: "probe", delay: "4900 millis", times: 1 })
      yield* TestClock.adjust("10 seconds")
      yield* TestClock.adjust("4900 millis")
      assert.strictEqual((yield* stateOf("a"))?.reason, "engaged")
      fake.inject({ verb: "probe", delay: "5100 millis", times: 1 })
      yield* TestClock.adjust("10 seconds")
      yield* TestClock.adjust("5000 millis")
      yield* until("timed out", () => true)
      assert.include((yield* stateOf("a"))?.reason, "probe failed 1 of 5 times")
    }),
  )

  it.effect("the interval, timeout and threshold are configurable", () =>
    Effect.gen(function* () {
      const { w, aware, sink, stateOf } = yield* setup({ interval: "1 second", failureThreshold: 2 })
      yield* sink.upsert(candidate(w, "a"))
      yield* until("engaged", () => aware.open().has("a"))
      ;(yield* w.server("https://a.example")).stop()
      yield* TestClock.adjust("1 second")
      assert.isTrue(aware.open().has("a"))
      yield* TestClock.adjust("1 second")
      yield* until("disengaged at the 2nd failure", () => !aware.open().has("a"), 5)
      assert.include((yield* stateOf("a"))?.reason, "threshold 2")
    }),
  )

  it.effect("a 401 disengages at once, without waiting for the threshold", () =>
    Effect.gen(function* () {
      const { w, aware, sink, stateOf } = yield* setup()
      yield* sink.upsert(candidate(w, "a", "tok"))
      yield* until("engaged", () => aware.open().has("a"))
      w.revoked.add("tok")
      yield* TestClock.adjust("10 seconds")
      yield* until("disengaged", () => !aware.open().has("a"), 5)
      assert.include((yield* stateOf("a"))?.reason, "401")
    }),
  )

  it.effect("an unreachable cluster is never engaged; it says why, and is engaged once it answers", () =>
    Effect.gen(function* () {
      const { w, aware, sink, stateOf } = yield* setup()
      ;(yield* w.server("https://a.example")).stop()
      yield* sink.upsert(candidate(w, "a"))
      yield* until("first attempt", () => w.built.length === 1)
      yield* TestClock.adjust("1 millis")
      const first = yield* stateOf("a")
      assert.deepStrictEqual([first?.engaged, first?.healthy], [false, true])
      assert.include(first?.reason, "not engaged: probe failed 1 of 5 times")
      yield* TestClock.adjust("40 seconds")
      const fifth = yield* stateOf("a")
      assert.deepStrictEqual([fifth?.engaged, fifth?.healthy], [false, false])
      assert.strictEqual(aware.engagements.length, 0)
      ;(yield* w.server("https://a.example")).start()
      yield* TestClock.adjust("10 seconds")
      yield* until("engaged", () => aware.open().has("a"), 5)
    }),
  )

  it.effect(
    "start, cache synced, indexes applied, then engage (seed 003); later indexes reach every cache",
    () =>
      Effect.gen(function* () {
        const calls: Array<string> = []
        const w = workloads()
        const set = makeClusterSet({
          provider: "test",
          health: HealthDefaults,
          cacheFactory: recordingCaches(calls),
          syncTimeout: ClusterSetDefaults.syncTimeout,
        })
        yield* set.indexField(Resources.configMaps, "byData", () => [])
        const aware = recordingAware()
        const sink = yield* set.bind({
          ...aware,
          engage: (c, s) =>
            Effect.andThen(
              Effect.sync(() => calls.push(`engage ${c.name}`)),
              aware.engage(c, s),
            ),
        })
        yield* sink.upsert(candidate(w, "a"))
        yield* until("engaged", () => calls.includes("engage a"))
        assert.deepStrictEqual(calls, ["start a", "synced a", "index a byData", "engage a"])
        yield* set.indexField(Resources.configMaps, "late", () => [])
        assert.strictEqual(calls.at(-1), "index a late")
      }).pipe(Effect.scoped),
  )

  it.effect(
    "an engage that fails is undone (scope closed, disengage called) and retried at the next interval",
    () =>
      Effect.gen(function* () {
        const w = workloads()
        const set = makeClusterSet({
          provider: "test",
          health: HealthDefaults,
          cacheFactory: informerCacheFactory,
          syncTimeout: ClusterSetDefaults.syncTimeout,
        })
        let refuse = true
        const aware = recordingAware(() => refuse)
        const sink = yield* set.bind(aware)
        yield* sink.upsert(candidate(w, "a"))
        yield* until("first engage", () => aware.engagements.length === 1)
        yield* TestClock.adjust("1 millis")
        assert.strictEqual(aware.engagements[0]?.closed, 1)
        assert.include((yield* set.clusters)[0]?.reason, "engage failed: the test refused it")
        const notFound = yield* Effect.flip(set.get(ClusterName("a")))
        assert.include(notFound.message, "engage failed")
        refuse = false
        yield* TestClock.adjust("10 seconds")
        yield* until("engaged", () => aware.open().has("a"), 5)
        assert.deepStrictEqual(
          aware.events.map((e) => e.split(" ")[0]),
          ["engage", "disengage", "engage"],
        )
      }).pipe(Effect.scoped),
  )

  it.effect(
    "a cache that does not sync within 5 min (seed 000's InitialSyncTimeout) fails the attempt, which is retried",
    () =>
      Effect.gen(function* () {
        assert.strictEqual(ClusterSetDefaults.syncTimeout, "5 minutes")
        const w = workloads()
        let syncs = 0
        const hanging: CacheFactory = (client, options) =>
          Effect.map(informerCacheFactory(client, options), (cache) => ({
            ...cache,
            waitForCacheSync: Effect.andThen(
              Effect.sync(() => {
                syncs++
              }),
              syncs === 0 ? Effect.never : Effect.succeed(true),
            ),
          }))
        const set = makeClusterSet({
          provider: "test",
          health: HealthDefaults,
          cacheFactory: hanging,
          syncTimeout: ClusterSetDefaults.syncTimeout,
        })
        const aware = recordingAware()
        const sink = yield* set.bind(aware)
        yield* sink.upsert(candidate(w, "a"))
        yield* TestClock.adjust("299 seconds")
        assert.strictEqual((yield* set.clusters)[0]?.reason, "connecting")
        yield* TestClock.adjust("1 second")
        yield* until("the attempt failed", () => syncs === 1 && aware.engagements.length === 0)
        yield* TestClock.adjust("1 millis")
        assert.include((yield* set.clusters)[0]?.reason, "the cache did not sync within 5m")
        yield* TestClock.adjust("10 seconds")
        yield* until("engaged at the next attempt", () => aware.open().has("a"), 10)
      }).pipe(Effect.scoped),
  )
  it.effect(
    "at most connectConcurrency clusters connect at once; a probe's timeout counts from its permit",
    () =>
      Effect.gen(function* () {
        assert.strictEqual(ClusterSetDefaults.connectConcurrency, 16)
        const w = workloads()
        const set = makeClusterSet({
          provider: "test",
          health: HealthDefaults,
          cacheFactory: informerCacheFactory,
          syncTimeout: ClusterSetDefaults.syncTimeout,
          connectConcurrency: 2,
        })
        const names = ["a", "b", "c", "d", "e"]
        // Each first probe answers after 3 s: three waves, none past the 5 s timeout.
        for (const name of names)
          (yield* w.server(`https://${name}.example`)).inject({ verb: "probe", delay: "3 seconds", times: 1 })
        const aware = recordingAware()
        const sink = yield* set.bind(aware)
        for (const name of names) yield* sink.upsert(candidate(w, name))
        const engagedAfter: Array<number> = []
        for (let wave = 1; wave <= 3; wave++) {
          yield* TestClock.adjust("3 seconds")
          yield* until(`wave ${wave}`, () => aware.open().size >= Math.min(2 * wave, 5), 10)
          yield* TestClock.adjust("1 millis")
          engagedAfter.push(aware.open().size)
        }
        assert.deepStrictEqual(engagedAfter, [2, 4, 5])
        assert.isTrue((yield* set.clusters).every((c) => c.engaged && c.reason === "engaged"))
      }).pipe(Effect.scoped),
  )
})

describe("probeOutcome()", () => {
  const forbidden = new Forbidden({ verb: "get", path: "/", message: "forbidden: User cannot get path /" })
  it("a 403 on GET / is reachable by default: the server answered and knew the credentials", () => {
    assert.deepStrictEqual(probeOutcome({ _tag: "Failure", failure: forbidden }, HealthDefaults), {
      _tag: "Success",
    })
  })
  it("counts a 403 as a failure when forbiddenIsReachable is off, and a 401 or a timeout always", () => {
    assert.strictEqual(
      probeOutcome({ _tag: "Failure", failure: forbidden }, { forbiddenIsReachable: false })._tag,
      "Failure",
    )
    const refused = new Unauthorized({ verb: "get", path: "/", message: "Unauthorized" })
    assert.strictEqual(probeOutcome({ _tag: "Failure", failure: refused }, HealthDefaults)._tag, "Failure")
    assert.deepStrictEqual(probeOutcome({ _tag: "Success" }, HealthDefaults), { _tag: "Success" })
  })
})
