// Model-based sequences of the runtime (the engagement table's promises checked on the shell): any
// interleaving of clusters added, removed, turned unhealthy and healthy, replaced with new
// credentials, and events on them. A reconcile only ever runs for a cluster engaged with the
// controller, through the credentials of its current generation; once things settle, every
// present healthy cluster is engaged with exactly one live watch, and nothing watches a cluster
// that left or an old generation (multicluster.engagement rows 10-12, 16, 22, 23).

import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { describe, it } from "vitest"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { done, type ReconcileResult } from "../controller/result.ts"
import { Resources } from "../kube/resource.ts"
import { controllerManagedBy } from "./builder.ts"
import { makeCluster } from "./cluster.ts"
import type { MultiClusterController } from "./controller.ts"
import { enqueueRequestForObject } from "./handler.ts"
import { make as makeManager } from "./manager.ts"
import { makeMemoryProvider } from "./memoryProvider.ts"

const cms = Resources.configMaps
const quiet = Logger.layer([])

type Op =
  | { readonly _tag: "add" | "remove" | "unhealthy" | "healthy" | "rotate" | "event"; readonly i: number }
  | { readonly _tag: "wait"; readonly ms: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      _tag: fc.constantFrom("add", "remove", "unhealthy", "healthy", "rotate", "event") as fc.Arbitrary<
        "add" | "remove" | "unhealthy" | "healthy" | "rotate" | "event"
      >,
      i: fc.nat(2),
    }),
  },
  // short waits: requests queue up behind the 300 ms reconciles and outlive their cluster
  {
    weight: 1,
    arbitrary: fc.record({ _tag: fc.constant("wait" as const), ms: fc.integer({ min: 0, max: 800 }) }),
  },
)

const settle = Effect.gen(function* () {
  for (let k = 0; k < 20; k++) {
    yield* Effect.repeat(Effect.yieldNow, { times: 20 })
    yield* TestClock.adjust("100 millis")
  }
})

const run = (ops: ReadonlyArray<Op>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const hub = yield* makeCluster({ client: yield* makeMemoryClient(yield* FakeApiServer.make()) })
      const provider = yield* makeMemoryProvider()
      const manager = yield* makeManager({ hub, provider })
      /** The model: each cluster's current server and generation, presence and health. */
      const model = new Map<
        string,
        { server: FakeApiServer; generation: number; present: boolean; healthy: boolean }
      >()
      const retired: Array<FakeApiServer> = []
      let serial = 0
      const violations: Array<string> = []
      let self: MultiClusterController | undefined
      const controller: MultiClusterController = yield* controllerManagedBy(manager)
        .named(`model-${Math.random().toString(36).slice(2)}`)
        .watches(cms, enqueueRequestForObject())
        .complete(
          (req): Effect.Effect<ReconcileResult> =>
            Effect.gen(function* () {
              // at reconcile time: engaged, and through the current generation's credentials
              if (self !== undefined && !(yield* self.isEngaged(req.cluster)))
                violations.push(`reconcile of ${req.cluster} while not engaged`)
              const cluster = yield* manager
                .getCluster(req.cluster)
                .pipe(Effect.orElseSucceed(() => undefined))
              const m = model.get(req.cluster)
              if (cluster === undefined) violations.push(`reconcile of ${req.cluster}: getCluster fails`)
              else if (m?.present && cluster.generation !== String(m.generation))
                violations.push(
                  `reconcile of ${req.cluster} with generation ${cluster.generation}, current ${m.generation}`,
                )
              // a reconcile takes a while, so requests queue up behind it (and outlive their cluster)
              yield* Effect.sleep("300 millis")
              return done()
            }),
        )
      self = controller
      yield* manager.start
      for (const o of ops) {
        if (o._tag === "wait") {
          yield* TestClock.adjust(o.ms)
          continue
        }
        const name = `c${o.i}`
        const m = model.get(name)
        switch (o._tag) {
          case "add":
          case "rotate": {
            if (o._tag === "rotate" && (m === undefined || !m.present)) break
            const server = yield* FakeApiServer.make()
            yield* server.client().create(cms, { metadata: { namespace: "default", name: `o${serial++}` } })
            const generation = (m?.generation ?? 0) + 1
            if (m !== undefined) retired.push(m.server)
            model.set(name, { server, generation, present: true, healthy: true })
            if (o._tag === "add") yield* provider.add(name, server, { generation: String(generation) })
            else yield* provider.rotate(name, server, String(generation))
            break
          }
          case "remove":
            if (m === undefined || !m.present) break
            m.present = false
            retired.push(m.server)
            yield* provider.remove(name)
            break
          case "unhealthy":
          case "healthy":
            if (m === undefined || !m.present) break
            m.healthy = o._tag === "healthy"
            yield* provider.setHealthy(name, m.healthy)
            break
          case "event":
            if (m === undefined || !m.present) break
            yield* m.server.client().create(cms, { metadata: { namespace: "default", name: `o${serial++}` } })
            break
        }
        yield* Effect.repeat(Effect.yieldNow, { times: 5 })
      }
      yield* settle
      if (violations.length > 0) throw new Error(violations.join("\n"))
      const pairs = yield* controller.pairs
      for (const [name, m] of model) {
        const pair = pairs.find((p) => p.cluster === name)
        const want = m.present && m.healthy
        if (want && pair?.state !== "Engaged") throw new Error(`${name} should be engaged, is ${pair?.state}`)
        if (!want && pair?.state === "Engaged") throw new Error(`${name} should not be engaged`)
        const watches = m.server.watchCount(cms)
        if (m.present && watches !== 1) throw new Error(`${name} has ${watches} watches, want exactly 1`)
        if (!m.present && watches !== 0) throw new Error(`${name} left but has ${watches} watches`)
        if (want && pair?.generation !== String(m.generation))
          throw new Error(`${name} engaged with generation ${pair?.generation}, current ${m.generation}`)
      }
      for (const server of retired)
        if (![...model.values()].some((m) => m.server === server) && server.watchCount(cms) !== 0)
          throw new Error("a retired server (old generation or removed cluster) is still watched")
    }),
  )

describe("multi-cluster runtime sequences", () => {
  it("reconciles only engaged clusters with current credentials; settles to one watch per present cluster", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), (ops) =>
        Effect.runPromise(
          run(ops).pipe(Effect.provide(TestClock.layer()), Effect.provide(quiet)) as Effect.Effect<
            void,
            unknown
          >,
        ),
      ),
      { numRuns: 80 },
    )
  })
})
