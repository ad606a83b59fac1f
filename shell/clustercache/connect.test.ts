/** Connect() (connect.ts): the clusterAccessor table's steps, the initial sync timeout. */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { ClusterCacheDefaults } from "../../core/clustercache/index.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { informerCacheFactory } from "../cache/informerCache.ts"
import { KubeClient } from "../kube/client.ts"
import { make } from "./service.ts"
import { cluster, setup } from "./testing.ts"

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
