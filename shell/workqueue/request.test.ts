import { assert, describe, it } from "@effect/vitest"
import {
  ClusterName,
  formatRequest,
  HubCluster,
  makeRequest,
  type Request,
  requestEquals,
  requestKey,
} from "./request.ts"

const a = ClusterName("a")
const b = ClusterName("b")
const req = (name: string, cluster: ClusterName = HubCluster): Request =>
  makeRequest({ namespace: "ns", name }, cluster)

describe("Request", () => {
  it("prints as cluster://<cluster>/<namespace>/<name>; the hub cluster is the empty name", () => {
    assert.strictEqual(formatRequest(req("x")), "cluster:///ns/x")
    assert.strictEqual(formatRequest(req("x", a)), "cluster://a/ns/x")
    assert.deepStrictEqual(makeRequest({ name: "n" }), { cluster: HubCluster, namespace: "", name: "n" })
  })

  it("keys stay unique when names contain '/'; equality compares cluster, namespace and name", () => {
    const x = makeRequest({ namespace: "b", name: "c" }, ClusterName("a/"))
    const y = makeRequest({ namespace: "/b", name: "c" }, ClusterName("a"))
    assert.strictEqual(formatRequest(x), formatRequest(y))
    assert.notStrictEqual(requestKey(x), requestKey(y))
    assert.isTrue(requestEquals(x, makeRequest({ namespace: "b", name: "c" }, ClusterName("a/"))))
    assert.isFalse(requestEquals(x, y))
    assert.isFalse(requestEquals(req("x", a), req("x", b)))
    assert.isFalse(requestEquals(req("x"), req("y")))
    assert.isFalse(requestEquals(req("x"), makeRequest({ namespace: "other", name: "x" })))
  })
})
