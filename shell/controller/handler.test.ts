import { assert, describe, it } from "@effect/vitest"
import type { KubeObject } from "../kube/resource.ts"
import type { ReflectorEvent } from "../reflector/reflector.ts"
import { ClusterName, formatRequest, HubCluster, makeRequest, type Request } from "../workqueue/request.ts"
import {
  type EventCluster,
  type EventHandler,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsForClusters,
  enqueueRequestsFromMapFunc,
  handlerFor,
  mapHandler,
} from "./handler.ts"

const east: EventCluster = { name: ClusterName("east") }
const obj = (name: string, extra: Partial<KubeObject["metadata"]> = {}): KubeObject => ({
  metadata: { name, namespace: "ns", ...extra },
})
const added = (object: KubeObject): ReflectorEvent<KubeObject> => ({ _tag: "Added", object })
const updated = (old: KubeObject, object: KubeObject): ReflectorEvent<KubeObject> => ({
  _tag: "Updated",
  old,
  object,
})
const show = (requests: ReadonlyArray<Request>) => requests.map(formatRequest)

describe("event handlers", () => {
  it("enqueueRequestForObject names the object in the event's cluster; an update enqueues it once", () => {
    const h = enqueueRequestForObject()
    assert.deepStrictEqual(show(h.requests(added(obj("a")), east)), ["cluster://east/ns/a"])
    assert.deepStrictEqual(show(h.requests(updated(obj("a"), obj("a")), east)), ["cluster://east/ns/a"])
  })

  it("enqueueRequestForOwner follows controller references of the kind; a cluster-scoped owner has no namespace", () => {
    const ref = { apiVersion: "example.com/v1", kind: "Widget", name: "w", uid: "u" }
    const o = obj("a", {
      ownerReferences: [
        { ...ref, controller: true },
        { ...ref, name: "plain" },
      ],
    })
    const onlyController = enqueueRequestForOwner({ ownerGroup: "example.com", ownerKind: "Widget" })
    assert.deepStrictEqual(show(onlyController.requests(added(o), east)), ["cluster://east/ns/w"])
    const every = enqueueRequestForOwner({
      ownerGroup: "example.com",
      ownerKind: "Widget",
      onlyController: false,
      ownerClusterScoped: true,
    })
    assert.deepStrictEqual(show(every.requests(added(o), east)), [
      "cluster://east//w",
      "cluster://east//plain",
    ])
    const otherGroup = enqueueRequestForOwner({ ownerGroup: "", ownerKind: "Widget" })
    assert.deepStrictEqual(otherGroup.requests(added(o), east), [])
  })

  it("enqueueRequestsFromMapFunc may name any cluster; an update enqueues the old and the new side", () => {
    const h = enqueueRequestsFromMapFunc((o: KubeObject, cluster) => [
      makeRequest({ name: `${cluster.name}-${o.metadata.labels?.app}` }, HubCluster),
    ])
    const before = obj("a", { labels: { app: "x" } })
    const after = obj("a", { labels: { app: "y" } })
    assert.deepStrictEqual(show(h.requests(updated(before, after), east)), [
      "cluster:////east-x",
      "cluster:////east-y",
    ])
    assert.strictEqual(h.description, "map function")
  })

  it("enqueueRequestsForClusters fans out to each named cluster once, skipping names that are not strings", () => {
    const h = enqueueRequestsForClusters<KubeObject>({
      clusters: (o) => (o.metadata.annotations?.to ?? "").split(",").concat([7 as unknown as string, "b"]),
    })
    const o = obj("p", { annotations: { to: "a,b" } })
    assert.deepStrictEqual(show(h.requests(added(o), east)), ["cluster://a/ns/p", "cluster://b/ns/p"])
    assert.isTrue(h.replayOnEngage)
  })

  it("handlerFor uses a handler's copy for the cluster; mapHandler keeps copying and replaying", () => {
    const copied: Array<string> = []
    const original: EventHandler = {
      description: "remembers",
      replayOnEngage: true,
      requests: () => [],
      deepCopyFor: (cluster) => {
        copied.push(cluster.name)
        return {
          description: "copy",
          requests: (e) => [makeRequest({ name: e.object.metadata.name ?? "" }, cluster.name)],
        }
      },
    }
    assert.strictEqual(handlerFor(original, east).description, "copy")
    const mapped = mapHandler(original, (r) => ({ ...r, name: `${r.name}!` }))
    assert.isTrue(mapped.replayOnEngage)
    assert.deepStrictEqual(show(mapped.requests(added(obj("a")), east)), ["cluster://east//a!"])
    assert.deepStrictEqual(copied, ["east", "east"])
  })
})
