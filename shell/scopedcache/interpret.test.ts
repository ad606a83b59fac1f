// The shell interprets the registry faithfully: after any sequence of operations, the informers
// that run are exactly the registry's running ones (Starting or Synced), each dependent is
// counted once, and an informer runs iff it has a dependent (automatic termination on) — the
// invariants of core/scopedcache, checked here on the shell's running informers and the fake
// API server's open watches (fixed fast-check seed, property-tests/setup.ts).
import { describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { gvkString, refString } from "../../core/scopedcache/types.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { Resources } from "../kube/resource.ts"
import { makeScopedCache } from "./scopedCache.ts"

const resources = [Resources.configMaps, Resources.secrets] as const
const namespaces = ["", "a", "b"] as const
const dependents = ["d1", "d2", "d3"] as const

type Op =
  | { readonly _tag: "add" | "remove"; readonly r: number; readonly ns: number; readonly dep: number }
  | { readonly _tag: "force"; readonly r: number; readonly ns: number }
  | { readonly _tag: "forbid"; readonly r: number; readonly ns: number }
  | { readonly _tag: "allow" }
  | { readonly _tag: "start" }

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ _tag: fc.constant("add" as const), r: fc.nat(1), ns: fc.nat(2), dep: fc.nat(2) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      _tag: fc.constant("remove" as const),
      r: fc.nat(1),
      ns: fc.nat(2),
      dep: fc.nat(2),
    }),
  },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("force" as const), r: fc.nat(1), ns: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("forbid" as const), r: fc.nat(1), ns: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "allow" as const }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "start" as const }) },
)

/** Virtual time (no backoff timer fires by itself) and no log output. */
const quiet = Logger.layer([])
const settle = Effect.repeat(Effect.yieldNow, { times: 60 })

const run = (ops: ReadonlyArray<Op>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(fake)
      const cache = yield* makeScopedCache(client, { cluster: "prop" })
      for (const o of ops) {
        const resource = resources[o._tag === "allow" || o._tag === "start" ? 0 : o.r] ?? Resources.configMaps
        const namespace = o._tag === "allow" || o._tag === "start" ? "" : (namespaces[o.ns] ?? "")
        switch (o._tag) {
          case "add":
            yield* cache.addInformer({ resource, namespace, dependent: { uid: dependents[o.dep] ?? "d1" } })
            break
          case "remove":
            yield* cache.removeInformer({
              resource,
              namespace,
              dependent: { uid: dependents[o.dep] ?? "d1" },
            })
            break
          case "force":
            yield* cache.removeInformer({ resource, namespace, force: true })
            break
          case "forbid":
            fake.inject({
              verb: ["list", "watch"],
              resource: resource.resource,
              ...(namespace === "" ? {} : { namespace }),
              error: "Forbidden",
            })
            fake.closeWatches()
            break
          case "allow":
            fake.clearFaults()
            break
          case "start":
            yield* cache.start
            break
        }
        yield* settle
        const informers = yield* cache.informers
        const running = new Set(cache.levels.all().map((r) => refString(r.ref)))
        const shouldRun = new Set(
          informers
            .filter((i) => i.state === "Starting" || i.state === "Synced")
            .map((i) => refString(i.ref)),
        )
        if ([...running].sort().join() !== [...shouldRun].sort().join())
          throw new Error(`running ${[...running]} but the registry runs ${[...shouldRun]}`)
        for (const i of informers) {
          const uids = i.dependents.map((d) => d.uid)
          if (new Set(uids).size !== uids.length)
            throw new Error(`a dependent counted twice in ${refString(i.ref)}`)
          if (uids.length === 0) throw new Error(`${refString(i.ref)} is kept without dependents`)
        }
        // A GVK never runs at both levels with the same key (the default key function).
        for (const r of cache.levels.cluster.all())
          for (const n of cache.levels.namespaced.all())
            if (gvkString(r.ref.gvk) === gvkString(n.ref.gvk) && r.ref.key === n.ref.key)
              throw new Error(`${refString(n.ref)} runs next to ${refString(r.ref)}`)
      }
      // Everything removed: no informer, no watch.
      for (const resource of resources)
        for (const namespace of namespaces) yield* cache.removeInformer({ resource, namespace, force: true })
      yield* Effect.repeat(Effect.yieldNow, { times: 200 })
      if (cache.levels.all().length !== 0 || fake.watchCount() !== 0)
        throw new Error(`left ${cache.levels.all().length} informers and ${fake.watchCount()} watches`)
    }),
  )

describe("ScopedCache interprets the registry", () => {
  it("running informers are the registry's running ones after any sequence, and none is left at the end", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), (ops) =>
        Effect.runPromise(run(ops).pipe(Effect.provide(TestClock.layer()), Effect.provide(quiet))),
      ),
      { numRuns: 60 },
    )
  })
})
