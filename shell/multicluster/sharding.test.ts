import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { Unreachable } from "../kube/errors.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { makeCluster } from "./cluster.ts"
import { type MultiClusterManager, make as makeManager } from "./manager.ts"
import { makeMemoryProvider } from "./memoryProvider.ts"
import { ownerOf } from "./rendezvous.ts"
import { makeShardGate, ShardDefaults, type ShardGate } from "./sharding.ts"
import { SHARD_GROUP_LABEL } from "./shardLease.ts"

const names = ["c1", "c2", "c3", "c4", "c5", "c6"]

/** A client that fails every call once `cut` is set: a replica cut off from the hub (or killed). */
const cuttable = (client: KubeClientShape) => {
  const state = { cut: false }
  const fail = () => new Unreachable({ verb: "any", path: "/", message: "cut off" })
  const guard = <F>(f: F): F =>
    ((...args: Array<unknown>) =>
      Effect.suspend(() =>
        state.cut
          ? Effect.fail(fail())
          : (f as (...a: Array<unknown>) => Effect.Effect<unknown, unknown>)(...args),
      )) as unknown as F
  const wrapped: KubeClientShape = {
    ...client,
    get: guard(client.get),
    list: guard(client.list),
    listAll: guard(client.listAll),
    create: guard(client.create),
    update: guard(client.update),
    patch: guard(client.patch),
    delete: guard(client.delete),
    watch: (ref, o) =>
      Stream.unwrap(
        Effect.suspend(() => (state.cut ? Effect.fail(fail()) : Effect.succeed(client.watch(ref, o)))),
      ),
  }
  return { state, client: wrapped }
}

/** One replica: its own hub client, provider (seeing the same six clusters) and manager behind a shard gate. */
const replica = (hubFake: FakeApiServer, fakes: ReadonlyMap<string, FakeApiServer>, identity: string) =>
  Effect.gen(function* () {
    const scope = yield* Scope.make()
    const { state, client } = cuttable(yield* makeMemoryClient(hubFake))
    let gate: ShardGate | undefined
    const manager: MultiClusterManager = yield* Effect.gen(function* () {
      const hub = yield* makeCluster({ client })
      const provider = yield* makeMemoryProvider()
      for (const [n, f] of fakes) yield* provider.add(n, f)
      const shard = makeShardGate(client, { namespace: "default", identity })
      return yield* makeManager({
        hub,
        provider,
        gate: (aware) => Effect.tap(shard(aware), (g) => Effect.sync(() => (gate = g))),
      })
    }).pipe(Scope.provide(scope))
    yield* manager.start.pipe(Scope.provide(scope))
    const engaged = Effect.map(manager.clusters, (cs) => cs.map((c) => c.name as string).sort())
    return { scope, state, manager, engaged, gate: () => gate }
  })

const settleRounds = (n: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < n; i++) {
      yield* Effect.repeat(Effect.yieldNow, { times: 30 })
      yield* TestClock.adjust("1 second")
    }
    yield* Effect.repeat(Effect.yieldNow, { times: 30 })
  })

const setup = Effect.gen(function* () {
  const hubFake = yield* FakeApiServer.make()
  const fakes = new Map<string, FakeApiServer>()
  for (const n of names) fakes.set(n, yield* FakeApiServer.make())
  return { hubFake, fakes }
})

describe("shard gate", () => {
  it.effect("defaults are controller-runtime's leader election numbers", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(
        { ...ShardDefaults },
        { leasePrefix: "krtt-shard", leaseDuration: 15_000, renewDeadline: 10_000, retryPeriod: 2_000 },
      )
    }),
  )

  it.effect("two replicas split six clusters by rendezvous hashing, each engaged by exactly one", () =>
    Effect.gen(function* () {
      const { hubFake, fakes } = yield* setup
      const a = yield* replica(hubFake, fakes, "replica-a")
      const b = yield* replica(hubFake, fakes, "replica-b")
      yield* settleRounds(10)
      const ea = yield* a.engaged
      const eb = yield* b.engaged
      assert.deepStrictEqual([...ea, ...eb].sort(), names, "complete")
      assert.deepStrictEqual(
        ea.filter((c) => eb.includes(c)),
        [],
        "disjoint",
      )
      for (const c of ea) assert.strictEqual(ownerOf(c, ["replica-a", "replica-b"]), "replica-a")
      const leases = yield* hubFake.client().list(Resources.leases, {
        namespace: "default",
        labelSelector: `${SHARD_GROUP_LABEL}=krtt-shard`,
      })
      assert.deepStrictEqual(leases.items.map((l: KubeObject) => l.metadata.name).sort(), [
        "krtt-shard-replica-a",
        "krtt-shard-replica-b",
      ])
      assert.deepStrictEqual(a.gate()?.status ? (yield* (a.gate() as ShardGate).status).members : [], [
        "replica-a",
        "replica-b",
      ])
    }),
  )

  it.effect(
    "when a replica is cut off, it releases its clusters within the renew deadline and the other takes them within the lease duration",
    () =>
      Effect.gen(function* () {
        const { hubFake, fakes } = yield* setup
        const a = yield* replica(hubFake, fakes, "replica-a")
        const b = yield* replica(hubFake, fakes, "replica-b")
        yield* settleRounds(10)
        const before = yield* a.engaged
        assert.isAbove(before.length, 0)
        a.state.cut = true
        yield* settleRounds(11)
        assert.deepStrictEqual(yield* a.engaged, [], "released after the 10 s renew deadline")
        assert.isBelow((yield* b.engaged).length, names.length, "not yet taken: the lease has not expired")
        yield* settleRounds(8)
        assert.deepStrictEqual(yield* b.engaged, names, "taken over within 15 s + 2 rounds")
        yield* Scope.close(a.scope, Exit.void)
      }),
  )

  it.effect(
    "a stopped replica deletes its Lease: its clusters move at the next round; a joining one takes only its share",
    () =>
      Effect.gen(function* () {
        const { hubFake, fakes } = yield* setup
        const a = yield* replica(hubFake, fakes, "replica-a")
        yield* settleRounds(6)
        assert.deepStrictEqual(yield* a.engaged, names, "alone: everything")
        const b = yield* replica(hubFake, fakes, "replica-b")
        yield* settleRounds(8)
        const share = names.filter((c) => ownerOf(c, ["replica-a", "replica-b"]) === "replica-b")
        assert.deepStrictEqual(yield* b.engaged, share, "only b's share moved")
        assert.deepStrictEqual(
          yield* a.engaged,
          names.filter((c) => !share.includes(c)),
        )
        yield* Scope.close(a.scope, Exit.void)
        yield* settleRounds(4)
        assert.deepStrictEqual(yield* b.engaged, names, "moved within two rounds, no expiry wait")
      }),
  )
})
