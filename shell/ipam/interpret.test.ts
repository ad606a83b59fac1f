// The interpreter of the IPAM reconcile on the in-memory API server: each action answered with an
// Outcome of the table runner, a refused write handed back to the table as a WriteRefused
// trigger, Events through shell/kube/events.ts, and CIDRs freed only after their finalizer went.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import {
  CIDR_FINALIZER,
  type ReconcileAction,
  ReconcileRow,
  type ReconcileStatus,
} from "../../core/ipam/index.ts"
import type { TransitionResult } from "../../core/krtt/types.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { IpamReconcileError, IpamWriteError } from "./errors.ts"
import { makeInterpreter } from "./interpret.ts"
import { ClusterConfigResource, IpamConfigResource, OpenmcpClusterResource } from "./resources.ts"

const request = { namespace: "ns", name: "c" }
const decided: TransitionResult<ReconcileAction, ReconcileStatus> = {
  actions: [],
  status: {
    outcome: "Released",
    applied: {},
    acquired: [],
    released: [],
    rules: [],
    conditions: [],
    waiting: false,
  },
  row: ReconcileRow.released,
}
const clusterConfig: KubeObject = {
  apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
  kind: "ClusterConfig",
  metadata: { namespace: "ns", name: "c--ipam--r", finalizers: [CIDR_FINALIZER] },
  spec: { patches: [{ op: "add", path: "/a", value: "10.0.0.0/24" }] },
}

const setup = Effect.gen(function* () {
  const fake = yield* FakeApiServer.make({
    resources: [...Object.values(Resources), OpenmcpClusterResource, IpamConfigResource],
  })
  fake.register(ClusterConfigResource, { status: false })
  const client = yield* makeMemoryClient(fake)
  const cluster: KubeObject = yield* client.create(OpenmcpClusterResource, {
    apiVersion: "clusters.openmcp.cloud/v1alpha1",
    kind: "Cluster",
    metadata: { namespace: "ns", name: "c" },
    spec: {},
  })
  const cc = yield* client.create(ClusterConfigResource, clusterConfig)
  const released: Array<ReadonlyArray<string>> = []
  const interpreter = makeInterpreter({
    client,
    request,
    cluster,
    clusterConfigs: new Map([[cc.metadata.name ?? "", cc]]),
    release: (cidrs) => Effect.sync(() => released.push(cidrs)),
    component: "krtt-ipam",
  })
  return { fake, client, cluster, interpreter, released }
})

const key = { namespace: "ns", name: "c--ipam--r" }

describe("the IPAM interpreter", () => {
  it.effect("records an Event through shell/kube/events.ts, with its action and the Cluster's uid", () =>
    Effect.gen(function* () {
      const { client, cluster, interpreter } = yield* setup
      const outcome = yield* interpreter.run(
        {
          _tag: "Event",
          object: { apiVersion: "clusters.openmcp.cloud/v1alpha1", kind: "Cluster", ...request },
          type: "Warning",
          reason: "CIDRManagementError",
          action: "CIDRGeneration",
          message: "exhausted",
        },
        decided,
      )
      assert.deepStrictEqual(outcome, { _tag: "Done" })
      const events = (yield* client.listAll(Resources.events, { namespace: "ns" }))
        .items as unknown as ReadonlyArray<{
        readonly action?: string
        readonly reason: string
        readonly involvedObject: { readonly uid?: string; readonly namespace?: string }
        readonly source: { readonly component: string }
      }>
      assert.strictEqual(events.length, 1)
      assert.strictEqual(events[0]?.action, "CIDRGeneration")
      assert.strictEqual(events[0]?.reason, "CIDRManagementError")
      assert.strictEqual(events[0]?.involvedObject.uid, cluster.metadata.uid)
      assert.strictEqual(events[0]?.involvedObject.namespace, "ns")
      assert.strictEqual(events[0]?.source.component, "krtt-ipam")
    }),
  )

  it.effect("a refused Event is logged and the run goes on", () =>
    Effect.gen(function* () {
      const { fake, interpreter } = yield* setup
      fake.inject({ verb: "create", resource: "events", error: "Forbidden" })
      const outcome = yield* interpreter.run(
        {
          _tag: "Event",
          object: { apiVersion: "clusters.openmcp.cloud/v1alpha1", kind: "Cluster", ...request },
          type: "Normal",
          reason: "ReconcileSuccess",
          action: "Reconcile",
          message: "Reconcile successful",
        },
        decided,
      )
      assert.deepStrictEqual(outcome, { _tag: "Done" })
    }),
  )

  it.effect(
    "a refused write goes back to the table as WriteRefused, with the IpamWriteError it fails with",
    () =>
      Effect.gen(function* () {
        const { fake, interpreter, released } = yield* setup
        fake.inject({ verb: "patch", resource: "clusterconfigs", error: "Conflict" })
        const remove: ReconcileAction = {
          _tag: "RemoveFinalizer",
          clusterConfig: key,
          finalizer: CIDR_FINALIZER,
        }
        const outcome = yield* interpreter.run(remove, decided)
        assert.strictEqual(outcome._tag, "Failed")
        if (outcome._tag !== "Failed") return
        assert.deepStrictEqual(
          { ...outcome.trigger, message: undefined },
          {
            _tag: "WriteRefused",
            namespace: "ns",
            name: "c",
            action: remove,
            reason: "Conflict",
            message: undefined,
            answer: decided,
          },
        )
        assert.instanceOf(outcome.failure, IpamWriteError)
        assert.strictEqual(outcome.failure.cause._tag, "Conflict")
        assert.match(
          outcome.failure.message,
          /^could not RemoveFinalizer on ClusterConfig ns\/c--ipam--r: Conflict: /,
        )
        const failed = new IpamReconcileError({ row: ReconcileRow.released, refused: outcome.failure })
        assert.match(failed.message, /^ipam\.reconcile#1: Conflict: /)
        // The finalizer stayed: its CIDRs are not released.
        yield* interpreter.run({ _tag: "ReleaseCidrs", clusterConfig: key, cidrs: ["10.0.0.0/24"] }, decided)
        assert.deepStrictEqual(released, [])
      }),
  )

  it.effect("frees CIDRs once the finalizer of their ClusterConfig was removed in the same run", () =>
    Effect.gen(function* () {
      const { client, interpreter, released } = yield* setup
      const outcomes = []
      for (const action of [
        { _tag: "RemoveFinalizer", clusterConfig: key, finalizer: CIDR_FINALIZER },
        { _tag: "ReleaseCidrs", clusterConfig: key, cidrs: ["10.0.0.0/24"] },
        { _tag: "DeleteClusterConfig", clusterConfig: key },
        { _tag: "DeleteClusterConfig", clusterConfig: key },
      ] satisfies ReadonlyArray<ReconcileAction>)
        outcomes.push(yield* interpreter.run(action, decided))
      assert.deepStrictEqual(
        outcomes.map((o) => o._tag),
        ["Done", "Done", "Done", "Done"],
      )
      assert.deepStrictEqual(released, [["10.0.0.0/24"]])
      assert.strictEqual((yield* client.listAll(ClusterConfigResource, { namespace: "ns" })).items.length, 0)
    }),
  )
})
