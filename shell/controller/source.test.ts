import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { mergePatch } from "../kube/patch.ts"
import { controllerReference, type KubeObject, type ResourceRef, Resources } from "../kube/resource.ts"
import { make as makeReflector } from "../reflector/reflector.ts"
import { ClusterName, formatRequest, makeRequest, type Request } from "../workqueue/request.ts"
import { enqueueRequestForObject, enqueueRequestForOwner, enqueueRequestsFromMapFunc } from "./handler.ts"
import { generationChanged } from "./predicate.ts"
import * as Source from "./source.ts"

const widgets: ResourceRef = {
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
  namespaced: true,
}
const settle = Effect.repeat(Effect.yieldNow, { times: 50 })
const c1 = ClusterName("c1")

const setup = Effect.gen(function* () {
  const fake = yield* FakeApiServer.make()
  const client = yield* makeMemoryClient(fake)
  const seen: Array<string> = []
  const enqueue = (r: Request) => Effect.sync(() => seen.push(formatRequest(r)))
  return { api: fake.client(), client, seen, enqueue }
})

describe("sources", () => {
  it.effect(
    "Source.kind with enqueueRequestForObject enqueues each object of its cluster, existing ones first",
    () =>
      Effect.gen(function* () {
        const { api, client, seen, enqueue } = yield* setup
        yield* api.create(widgets, { metadata: { name: "a", namespace: "ns" } })
        const reflector = yield* makeReflector(client, { resource: widgets })
        yield* reflector.waitForSync
        yield* Source.kind(reflector, enqueueRequestForObject(), { cluster: c1 }).start(enqueue)
        yield* api.create(widgets, { metadata: { name: "b", namespace: "ns" } })
        yield* api.delete(widgets, { namespace: "ns", name: "a" })
        yield* settle
        assert.deepStrictEqual(seen, ["cluster://c1/ns/a", "cluster://c1/ns/b", "cluster://c1/ns/a"])
      }),
  )

  it.effect(
    "Source.kind with enqueueRequestForOwner enqueues the controlling owner of the given kind only",
    () =>
      Effect.gen(function* () {
        const { api, client, seen, enqueue } = yield* setup
        const owner = yield* api.create(widgets, { metadata: { name: "w", namespace: "ns" } })
        const other = { apiVersion: "v1", kind: "Pod", name: "p", uid: "u", controller: true }
        const reflector = yield* makeReflector(client, { resource: Resources.configMaps })
        yield* reflector.waitForSync
        yield* Source.kind(
          reflector,
          enqueueRequestForOwner({ ownerGroup: "example.com", ownerKind: "Widget" }),
        ).start(enqueue)
        yield* api.create(Resources.configMaps, {
          metadata: { name: "owned", namespace: "ns", ownerReferences: [controllerReference(owner)] },
        })
        yield* api.create(Resources.configMaps, {
          metadata: { name: "pod-owned", namespace: "ns", ownerReferences: [other] },
        })
        yield* api.create(Resources.configMaps, {
          metadata: {
            name: "not-controller",
            namespace: "ns",
            ownerReferences: [{ ...controllerReference(owner), controller: false }],
          },
        })
        yield* settle
        assert.deepStrictEqual(seen, ["cluster:///ns/w"])
      }),
  )

  it.effect(
    "Source.kind with a map function and generationChanged ignores status-only and metadata-only updates",
    () =>
      Effect.gen(function* () {
        const { api, client, seen, enqueue } = yield* setup
        yield* api.create(widgets, { metadata: { name: "a", namespace: "ns" }, spec: { size: 1 } })
        const reflector = yield* makeReflector<KubeObject>(client, { resource: widgets })
        yield* reflector.waitForSync
        const toParent = (o: KubeObject) => [
          makeRequest({ namespace: "ns", name: `parent-of-${o.metadata.name}` }),
        ]
        yield* Source.kind(reflector, enqueueRequestsFromMapFunc(toParent), {
          predicates: [generationChanged],
        }).start(enqueue)
        const key = { namespace: "ns", name: "a" }
        yield* api.patchStatus(widgets, key, mergePatch({ status: { ok: true } }))
        yield* api.patch(widgets, key, mergePatch({ metadata: { labels: { x: "y" } } }))
        yield* api.patch(widgets, key, mergePatch({ spec: { size: 2 } }))
        yield* settle
        assert.deepStrictEqual(seen, ["cluster:///ns/parent-of-a", "cluster:///ns/parent-of-a"])
      }),
  )

  it.effect("Source.channel forwards a stream of requests (e.g. cluster events)", () =>
    Effect.gen(function* () {
      const { seen, enqueue } = yield* setup
      yield* Source.channel(Stream.make(makeRequest({ name: "x" }, c1))).start(enqueue)
      yield* settle
      assert.deepStrictEqual(seen, ["cluster://c1//x"])
    }),
  )
})
