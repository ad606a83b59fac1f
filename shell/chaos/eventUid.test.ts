// The Event uid oracle (eventUid.ts): an Event about a live Cluster must name its uid; any Event
// that names a uid must name its live object's.
import { assert, describe, it } from "@effect/vitest"
import type { KubeObject } from "../kube/resource.ts"
import { eventUidWrong } from "./eventUid.ts"

const object = (kind: string, name: string, uid: string): KubeObject => ({
  apiVersion: "v1alpha1",
  kind,
  metadata: { namespace: "ns", name, uid },
})
const objects = [object("Cluster", "c1", "uid-c1"), object("ClusterConfig", "c1-nodes", "uid-cc")]
const live = (kind: string, namespace: string, name: string) =>
  objects.find((o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name)

const event = (kind: string, name: string, uid?: string): KubeObject =>
  ({
    apiVersion: "v1",
    kind: "Event",
    metadata: { namespace: "ns", name: "e1" },
    involvedObject: { kind, namespace: "ns", name, ...(uid === undefined ? {} : { uid }) },
  }) as KubeObject

const withUid = new Set(["Cluster"])

describe("eventUidWrong", () => {
  it("accepts Events naming their live object's uid, or none where none is required", () => {
    assert.isUndefined(eventUidWrong(event("Cluster", "c1", "uid-c1"), live, withUid))
    assert.isUndefined(eventUidWrong(event("ClusterConfig", "c1-nodes"), live, withUid))
    assert.isUndefined(eventUidWrong(event("ClusterConfig", "c1-nodes", "uid-cc"), live, withUid))
    // An object gone is not judged.
    assert.isUndefined(eventUidWrong(event("Cluster", "gone"), live, withUid))
  })

  it("catches a controller that leaves a Cluster's uid out, or names another object's", () => {
    assert.strictEqual(
      eventUidWrong(event("Cluster", "c1"), live, withUid),
      "Event e1 about Cluster ns/c1 names no uid",
    )
    assert.strictEqual(
      eventUidWrong(event("ClusterConfig", "c1-nodes", "uid-c1"), live, withUid),
      "Event e1 about ClusterConfig ns/c1-nodes names uid uid-c1, not the object's uid-cc",
    )
  })
})
