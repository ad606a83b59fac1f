// The operator's assembly, shared by krtt run and the chaos harness: which controllers it builds
// and which Clusters it reads (the e2e tests of krtt run and the chaos campaign run it whole).
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { ClusterResource } from "../clustercache/service.ts"
import { make } from "./operator.ts"

const cluster = (namespace: string, name: string, labels: Record<string, string> = {}) => ({
  apiVersion: "cluster.x-k8s.io/v1beta2",
  kind: "Cluster",
  metadata: { namespace, name, labels },
  spec: {},
})

const concurrency = { clusterCacheConcurrency: 1, clusterConcurrency: 1 }

describe("the operator's assembly", () => {
  it.effect("builds the ClusterCache controller and the Cluster controller, or only those asked", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const client = yield* makeMemoryClient(yield* FakeApiServer.make())
        assert.deepStrictEqual((yield* make(client, concurrency)).controllers, ["clustercache", "cluster"])
        const one = yield* make(client, { ...concurrency, controllers: ["cluster"] })
        assert.deepStrictEqual(one.controllers, ["cluster"])
      }),
    ),
  )

  it.effect(
    "reads only the Clusters of its namespace that its selector matches (--namespace, --watch-filter)",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* FakeApiServer.make()
          const admin = server.client()
          const filter = { "cluster.x-k8s.io/watch-filter": "mine" }
          yield* admin.create(ClusterResource, cluster("a", "kept", filter))
          yield* admin.create(ClusterResource, cluster("a", "unlabelled"))
          yield* admin.create(ClusterResource, cluster("b", "elsewhere", filter))
          const operator = yield* make(yield* makeMemoryClient(server), {
            ...concurrency,
            namespace: "a",
            clusterSelector: "cluster.x-k8s.io/watch-filter=mine",
          })
          yield* operator.clusters.waitForSync
          assert.deepStrictEqual(
            operator.clusters.store.list().map((c) => `${c.metadata.namespace}/${c.metadata.name}`),
            ["a/kept"],
          )
        }),
      ),
  )
})
