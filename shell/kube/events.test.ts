// The Event of an occurrence, as kubectl describe finds it: named after the object, in its
// namespace (default for a cluster-scoped one), with the reporting component and one time.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FakeApiServer } from "../apiserver/server.ts"
import { eventObject, recordEvent } from "./events.ts"
import { Resources } from "./resource.ts"

const cluster = {
  apiVersion: "cluster.x-k8s.io/v1beta2",
  kind: "Cluster",
  namespace: "fleet",
  name: "c1",
  uid: "u1",
}
const note = { type: "Warning", reason: "Failed", message: "it failed" } as const

describe("Kubernetes Events", () => {
  it("an Event about a namespaced object: its namespace, its name as prefix, the involved object in full", () => {
    assert.deepStrictEqual(eventObject(cluster, note, "krtt", new Date(0)), {
      apiVersion: "v1",
      kind: "Event",
      metadata: { namespace: "fleet", generateName: "c1." },
      involvedObject: cluster,
      type: "Warning",
      reason: "Failed",
      message: "it failed",
      source: { component: "krtt" },
      reportingComponent: "krtt",
      firstTimestamp: "1970-01-01T00:00:00.000Z",
      lastTimestamp: "1970-01-01T00:00:00.000Z",
      count: 1,
    } as never)
  })

  it("about a cluster-scoped object without uid: in default, no namespace nor uid in the reference", () => {
    const e = eventObject(
      { apiVersion: "v1", kind: "Node", name: "n1" },
      note,
      "krtt",
      new Date(0),
    ) as unknown as {
      metadata: { namespace: string }
      involvedObject: Record<string, unknown>
    }
    assert.strictEqual(e.metadata.namespace, "default")
    assert.deepStrictEqual(e.involvedObject, { apiVersion: "v1", kind: "Node", name: "n1" })
  })

  it.effect("recordEvent creates it on the server, at the clock's time", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const client = fake.client()
      yield* recordEvent(client, cluster, note, "krtt")
      const listed = yield* client.list(Resources.events, { namespace: "fleet" })
      assert.strictEqual(listed.items.length, 1)
      assert.strictEqual((listed.items[0] as unknown as { reason: string }).reason, "Failed")
      assert.match(listed.items[0]?.metadata.name ?? "", /^c1\./)
    }),
  )
})
