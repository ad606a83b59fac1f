/** The ClusterCache's watches (watches.ts): Watch Management rows 4 and 5 on a workload fake. */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { Resources } from "../kube/resource.ts"
import { cluster, setup } from "./testing.ts"

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
