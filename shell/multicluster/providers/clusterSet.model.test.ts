// Model-based sequences over the provider engine (seed 003, Proposal: "the engage scope MUST be
// canceled by the cluster provider at the end of a cluster's lifecycle"; seed 000, Health
// Checking): any interleaving of clusters added, rotated, removed and rejected, API servers going
// down and up, credentials revoked, and time passing keeps the engine's promises.

import { describe, it } from "@effect/vitest"
import { KubeConfig } from "@kubernetes/client-node"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { informerCacheFactory } from "../../cache/informerCache.ts"
import { ClusterName } from "../../workqueue/request.ts"
import { ClusterSetDefaults, makeClusterSet } from "./clusterSet.ts"
import { HealthDefaults } from "./health.ts"
import { kubeconfigYaml, recordingAware, workloads } from "./testing.ts"

const names = ["a", "b", "c"] as const
type Name = (typeof names)[number]

type Op =
  | { readonly _tag: "Upsert"; readonly name: Name; readonly generation: number }
  | { readonly _tag: "Remove"; readonly name: Name }
  | { readonly _tag: "Reject"; readonly name: Name }
  | { readonly _tag: "Down"; readonly name: Name }
  | { readonly _tag: "Up"; readonly name: Name }
  | { readonly _tag: "Revoke"; readonly name: Name }
  | { readonly _tag: "Advance"; readonly ms: number }

const name = fc.constantFrom(...names)
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      _tag: fc.constant("Upsert" as const),
      name,
      generation: fc.integer({ min: 1, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Remove" as const), name }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Reject" as const), name }) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Down" as const), name }) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Up" as const), name }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("Revoke" as const), name }) },
  // Around the probe interval, and long enough to cross the failure threshold.
  {
    weight: 4,
    arbitrary: fc.record({
      _tag: fc.constant("Advance" as const),
      ms: fc.oneof(
        fc.integer({ min: 1, max: 15_000 }),
        fc.constantFrom(9_999, 10_000, 10_001, 50_000, 70_000),
      ),
    }),
  },
)

const token = (n: Name, generation: number) => `t-${n}-${generation}`

const run = (ops: ReadonlyArray<Op>) =>
  Effect.gen(function* () {
    const w = workloads()
    const set = makeClusterSet({
      provider: "model",
      health: HealthDefaults,
      cacheFactory: informerCacheFactory,
      syncTimeout: ClusterSetDefaults.syncTimeout,
    })
    const aware = recordingAware()
    const scope = yield* Scope.make()
    const sink = yield* Scope.provide(set.bind(aware), scope)
    /** Since when (virtual ms) each server has been down, and each current token revoked. */
    const downSince = new Map<Name, number>()
    const revokedSince = new Map<Name, number>()
    /** What the engine was last told about each name. */
    const last = new Map<
      Name,
      { readonly kind: "upsert"; readonly generation: string } | { readonly kind: "gone" }
    >()
    const settle = Effect.gen(function* () {
      for (let i = 0; i < 5; i++) {
        yield* Effect.repeat(Effect.yieldNow, { times: 20 })
        yield* TestClock.adjust("1 millis")
      }
    })
    const check = (after: string) =>
      Effect.gen(function* () {
        const fail = (why: string) => Effect.die(new Error(`${why} (after ${after})`))
        const open = aware.engagements.filter((e) => e.closed === 0)
        for (const n of names) {
          const mine = open.filter((e) => e.cluster.name === n)
          if (mine.length > 1) return yield* fail(`${n} has ${mine.length} open engagements`)
          const l = last.get(n)
          if (mine.length === 1 && (l === undefined || l.kind === "gone"))
            return yield* fail(`${n} is engaged after it was removed or rejected`)
          if (mine.length === 1 && l?.kind === "upsert" && mine[0]?.cluster.generation !== l.generation)
            return yield* fail(
              `${n} is engaged with generation ${mine[0]?.cluster.generation}, not ${l.generation}`,
            )
          // The gate (seed 000): down for longer than 5 probes 10 s apart, or revoked for longer than
          // one probe interval, is not engaged any more.
          const now = yield* Clock.currentTimeMillis
          const down = downSince.get(n)
          if (mine.length === 1 && down !== undefined && now - down > 60_000)
            return yield* fail(`${n} still engaged ${now - down} ms into an outage`)
          const revoked = revokedSince.get(n)
          if (mine.length === 1 && revoked !== undefined && now - revoked > 10_000)
            return yield* fail(`${n} still engaged ${now - revoked} ms after its token was revoked`)
          // get() and clusters agree with what is engaged.
          const got = yield* Effect.result(set.get(ClusterName(n)))
          if ((got._tag === "Success") !== (mine.length === 1)) return yield* fail(`get(${n}) disagrees`)
          const state = (yield* set.clusters).find((c) => c.name === n)
          if ((state?.engaged ?? false) !== (mine.length === 1))
            return yield* fail(`clusters disagrees on ${n}`)
          // engage and disengage alternate.
          const seq = aware.events.filter((e) => e.split(" ")[1] === n).map((e) => e.split(" ")[0])
          for (let i = 0; i < seq.length; i++)
            if (seq[i] !== (i % 2 === 0 ? "engage" : "disengage"))
              return yield* fail(`${n}: engage and disengage do not alternate: ${seq.join(",")}`)
        }
        if (aware.engagements.some((e) => e.closed > 1)) return yield* fail("a scope was closed twice")
      })

    for (const o of ops) {
      switch (o._tag) {
        case "Upsert": {
          const kc = new KubeConfig()
          kc.loadFromString(kubeconfigYaml(`https://${o.name}.example`, token(o.name, o.generation)))
          const generation = String(o.generation)
          yield* sink.upsert({
            name: ClusterName(o.name),
            generation,
            connect: Effect.map(w.factory(kc, o.name), (client) => ({ client })),
          })
          last.set(o.name, { kind: "upsert", generation })
          if (w.revoked.has(token(o.name, o.generation))) {
            if (!revokedSince.has(o.name)) revokedSince.set(o.name, yield* Clock.currentTimeMillis)
          } else revokedSince.delete(o.name)
          break
        }
        case "Remove":
          yield* sink.remove(ClusterName(o.name))
          last.set(o.name, { kind: "gone" })
          break
        case "Reject":
          yield* sink.reject(ClusterName(o.name), "bad kubeconfig")
          last.set(o.name, { kind: "gone" })
          break
        case "Down":
          ;(yield* w.server(`https://${o.name}.example`)).stop()
          if (!downSince.has(o.name)) downSince.set(o.name, yield* Clock.currentTimeMillis)
          break
        case "Up":
          ;(yield* w.server(`https://${o.name}.example`)).start()
          downSince.delete(o.name)
          break
        case "Revoke": {
          const l = last.get(o.name)
          if (l?.kind === "upsert") {
            w.revoked.add(token(o.name, Number(l.generation)))
            if (!revokedSince.has(o.name)) revokedSince.set(o.name, yield* Clock.currentTimeMillis)
          }
          break
        }
        case "Advance":
          yield* TestClock.adjust(o.ms)
          break
      }
      yield* settle
      yield* check(JSON.stringify(o))
    }
    // Liveness: every server up, a probe interval later every upserted, unrevoked cluster is engaged.
    for (const n of names) (yield* w.server(`https://${n}.example`)).start()
    downSince.clear()
    yield* TestClock.adjust("10 seconds")
    yield* settle
    yield* check("all up")
    for (const n of names) {
      const l = last.get(n)
      if (l?.kind !== "upsert" || w.revoked.has(token(n, Number(l.generation)))) continue
      if (!aware.open().has(n)) return yield* Effect.die(new Error(`${n} is not engaged again once healthy`))
    }
    // Stopping the provider disengages everything, each scope closed exactly once.
    yield* Scope.close(scope, Exit.void)
    if (aware.engagements.some((e) => e.closed !== 1))
      return yield* Effect.die(new Error("a scope not closed exactly once"))
    const engages = aware.events.filter((e) => e.startsWith("engage ")).length
    const disengages = aware.events.filter((e) => e.startsWith("disengage ")).length
    if (engages !== disengages)
      return yield* Effect.die(new Error(`${engages} engages, ${disengages} disengages`))
  })

describe("provider engine, model-based sequences", () => {
  it("one engagement per name at a time, of the latest generation; scopes closed once; healthy clusters come back", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), (ops) =>
        Effect.runPromise(run(ops).pipe(Effect.provide(TestClock.layer()), Effect.provide(Logger.layer([])))),
      ),
      { numRuns: 100 },
    )
  })
})
