import { assert, describe, it } from "@effect/vitest"
import { ClusterName, formatRequest, makeRequest } from "../workqueue/request.ts"
import { checkRequest, clusterRequest, customRequest, requestDataKey } from "./request.ts"

interface Rev {
  readonly cluster: ClusterName
  readonly name: string
  readonly revision: number
  readonly tags?: ReadonlyArray<string> | undefined
}

describe("request types", () => {
  it("the default type passes {cluster, namespace, name} through and makes For's request", () => {
    const r = makeRequest({ namespace: "ns", name: "a" }, ClusterName("east"))
    assert.strictEqual(clusterRequest.toQueue(r), r)
    assert.strictEqual(clusterRequest.fromQueue(r), r)
    assert.strictEqual(clusterRequest.format(r), formatRequest(r))
    assert.deepStrictEqual(clusterRequest.forObject?.(ClusterName("east"), { namespace: "ns", name: "a" }), r)
  })

  it("a custom type round-trips through the queue; equal requests are one key whatever their key order", () => {
    const type = customRequest<Rev>({ name: "Rev" })
    const r: Rev = { cluster: ClusterName("east"), name: "a", revision: 2, tags: ["x"] }
    const queued = type.toQueue(r)
    assert.strictEqual(queued.cluster, "east")
    assert.strictEqual(queued.namespace, "")
    assert.deepStrictEqual(type.fromQueue(queued), r)
    const reordered = { tags: ["x"], revision: 2, cluster: ClusterName("east"), name: "a" } as Rev
    assert.deepStrictEqual(type.toQueue(reordered), queued)
    assert.strictEqual(type.format(r), 'cluster://east {"name":"a","revision":2,"tags":["x"]}')
    assert.deepStrictEqual(
      type.toQueue({ ...r, tags: undefined }),
      type.toQueue({ cluster: r.cluster, name: "a", revision: 2 }),
    )
    assert.isUndefined(type.forObject)
  })

  it("requestDataKey is canonical JSON: key order does not matter, values do", () => {
    assert.strictEqual(requestDataKey({ b: 1, a: [true, null] }), '{"a":[true,null],"b":1}')
    assert.notStrictEqual(requestDataKey({ a: 1 }), requestDataKey({ a: "1" }))
  })

  it("checkRequest refuses what is not an object with a cluster, naming the field", () => {
    assert.strictEqual(checkRequest("R", "east")?.field, "request")
    assert.strictEqual(checkRequest("R", null)?.field, "request")
    assert.strictEqual(checkRequest("R", ["east"])?.field, "request")
    assert.include(
      checkRequest("R", { cluster: 3 })?.message ?? "",
      'R.cluster: the cluster name is required (a string, "" for the hub), got 3',
    )
    assert.include(checkRequest("R", {})?.message ?? "", "got nothing")
    assert.strictEqual(
      checkRequest("R", { cluster: "", at: { when: Number.POSITIVE_INFINITY } })?.field,
      "at.when",
    )
    assert.include(
      checkRequest("R", { cluster: "", f: () => 1 })?.message ?? "",
      "R.f: a request holds JSON data only",
    )
    assert.isUndefined(checkRequest("R", { cluster: "", skipped: undefined }))
  })
})
