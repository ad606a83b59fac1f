import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { Resources } from "../kube/resource.ts"
import { decideLease, LeaderElectionDefaults, makeLeaderElector } from "./leaderelection.ts"

const config = (identity: string) => ({
  namespace: "krtt-system",
  name: "krtt-leader",
  identity,
  ...LeaderElectionDefaults,
})

describe("decideLease", () => {
  const mine = { identity: "a", leaseDuration: 15_000 }
  const lease = (holderIdentity: string) => ({
    metadata: { name: "l" },
    spec: { holderIdentity, leaseDurationSeconds: 15 },
  })

  it("creates a missing Lease", () =>
    assert.strictEqual(decideLease(undefined, undefined, mine, 0)._tag, "Create"))
  it("waits while another holder's Lease has not expired by our own clock", () => {
    const seen = { record: JSON.stringify(lease("b").spec), observedAt: 1_000 }
    assert.deepStrictEqual(decideLease(lease("b"), seen, mine, 15_999), {
      _tag: "Wait",
      holder: "b",
      expiresAt: 16_000,
    })
    assert.strictEqual(decideLease(lease("b"), seen, mine, 16_000)._tag, "Update")
  })
  it("a Lease seen for the first time counts from now, whatever its renewTime says", () =>
    assert.strictEqual(decideLease(lease("b"), undefined, mine, 1e12)._tag, "Wait"))
  it("renews its own Lease and takes over a released one, counting transitions", () => {
    const renew = decideLease(lease("a"), undefined, mine, 0)
    assert.isTrue(renew._tag === "Update" && !renew.acquired)
    const seen = { record: JSON.stringify(lease("b").spec), observedAt: 0 }
    const take = decideLease(lease("b"), seen, mine, 20_000)
    assert.isTrue(take._tag === "Update" && take.acquired && take.spec.leaseTransitions === 1)
  })
})

describe("leader election on a Lease (LeaseDuration 15 s, RenewDeadline 10 s, RetryPeriod 2 s)", () => {
  it.effect(
    "one candidate leads; the other takes over 15 s after renewals stop, at once after a release",
    () =>
      Effect.gen(function* () {
        const server = yield* FakeApiServer.make()
        const a = yield* makeLeaderElector(yield* makeMemoryClient(server), config("a"))
        const b = yield* makeLeaderElector(yield* makeMemoryClient(server), config("b"))
        yield* a.acquire
        const renewing = yield* Effect.forkChild(a.renewLoop)
        const waiting = yield* Effect.forkChild(b.acquire)
        yield* TestClock.adjust("30 seconds")
        assert.isUndefined(waiting.pollUnsafe(), "b must not lead while a renews")
        yield* Fiber.interrupt(renewing) // a stops renewing (a crash)
        yield* TestClock.adjust("14 seconds")
        assert.isUndefined(waiting.pollUnsafe(), "b waits out the lease duration")
        yield* TestClock.adjust("4 seconds")
        yield* Fiber.join(waiting)
        const c = yield* makeLeaderElector(yield* makeMemoryClient(server), config("c"))
        const next = yield* Effect.forkChild(c.acquire)
        yield* b.release
        yield* TestClock.adjust("2 seconds")
        yield* Fiber.join(next)
      }),
  )

  it.effect("the leader gives up when it cannot renew within the renew deadline", () =>
    Effect.gen(function* () {
      const server = yield* FakeApiServer.make()
      const a = yield* makeLeaderElector(yield* makeMemoryClient(server), config("a"))
      yield* a.acquire
      const renewing = yield* Effect.forkChild(Effect.flip(a.renewLoop))
      server.inject({ verb: "update", resource: Resources.leases.resource, error: "Unreachable" })
      yield* TestClock.adjust("12 seconds")
      const err = yield* Fiber.join(renewing)
      assert.match(err.message, /leadership lost/)
    }),
  )
})
