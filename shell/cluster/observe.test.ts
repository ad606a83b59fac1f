// observe(): while a Cluster is deleting, a store's miss is confirmed live, since absence lets the
// deletion go on (seed 001, Deletion Reconciliation rows 6 to 8): after an API server restart,
// reflectors of different kinds come back at different times.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Fetched } from "../../core/cluster/types.ts"
import { Unreachable } from "../kube/errors.ts"
import type { KubeObject } from "../kube/resource.ts"
import { Store } from "../reflector/store.ts"
import { type DescendantKind, type ObserveContext, observe } from "./observe.ts"

const NS = "default"
const infra: KubeObject = {
  apiVersion: "infrastructure.example.com/v1beta2",
  kind: "ExampleCluster",
  metadata: { name: "c1", namespace: NS },
}
const machine: KubeObject = {
  apiVersion: "cluster.x-k8s.io/v1beta2",
  kind: "Machine",
  metadata: { name: "m1", namespace: NS, labels: { "cluster.x-k8s.io/cluster-name": "c1" } },
}
const cluster = (deleting: boolean): KubeObject =>
  ({
    apiVersion: "cluster.x-k8s.io/v1beta2",
    kind: "Cluster",
    metadata: {
      name: "c1",
      namespace: NS,
      finalizers: ["cluster.cluster.x-k8s.io"],
      ...(deleting ? { deletionTimestamp: "2026-11-24T10:00:00Z" } : {}),
    },
    spec: {
      infrastructureRef: { apiGroup: "infrastructure.example.com", kind: "ExampleCluster", name: "c1" },
    },
  }) as KubeObject

/** A context whose stores are empty (they lag) while the server has `infra` and `machine`. */
const lagging = (object: KubeObject, live: { external: number; descendants: Array<DescendantKind> }) => {
  const clusters = new Store<KubeObject>()
  clusters.upsert(object)
  const empty = new Store<KubeObject>()
  const ctx: ObserveContext = {
    client: undefined as never,
    clusters,
    featureGates: { machinePool: false, clusterTopology: false } as never,
    external: () => Effect.succeed(empty),
    descendants: () => Effect.succeed(empty),
    lastProbeSuccessTime: () => Effect.succeed(undefined),
    secrets: empty,
    confirm: {
      external: () => {
        live.external++
        return Effect.succeed<Fetched<KubeObject>>({ _tag: "Found", object: infra })
      },
      descendants: (kind) => {
        live.descendants.push(kind)
        return Effect.succeed(kind === "Machine" ? [machine] : [])
      },
    },
  }
  return ctx
}

describe("observe: a store's miss while deleting", () => {
  it.effect("is confirmed live: the provider object and the descendants the server has are seen", () =>
    Effect.gen(function* () {
      const live = { external: 0, descendants: [] as Array<DescendantKind> }
      const { observed } = yield* observe(lagging(cluster(true), live), { namespace: NS, name: "c1" })
      assert.strictEqual(observed.infrastructure._tag, "Found")
      assert.strictEqual(live.external, 1)
      assert.deepStrictEqual(live.descendants, ["MachineDeployment", "MachineSet", "Machine"])
      assert.strictEqual(observed.descendants._tag, "Listed")
      if (observed.descendants._tag === "Listed") assert.strictEqual(observed.descendants.machines.length, 1)
    }),
  )

  it.effect("a failed live list is a ListFailed, never 'no descendants'", () =>
    Effect.gen(function* () {
      const live = { external: 0, descendants: [] as Array<DescendantKind> }
      const ctx = lagging(cluster(true), live)
      const failing: ObserveContext = {
        ...ctx,
        confirm: {
          external: ctx.confirm?.external ?? (() => Effect.die("unused")),
          descendants: () =>
            Effect.fail(
              new Unreachable({ verb: "list", path: "/apis/cluster.x-k8s.io", message: "connection reset" }),
            ),
        },
      }
      const { observed } = yield* observe(failing, { namespace: NS, name: "c1" })
      assert.deepStrictEqual(observed.descendants, { _tag: "ListFailed", error: "connection reset" })
    }),
  )

  it.effect("is not confirmed for a Cluster that is not deleting (no extra request)", () =>
    Effect.gen(function* () {
      const live = { external: 0, descendants: [] as Array<DescendantKind> }
      const { observed } = yield* observe(lagging(cluster(false), live), { namespace: NS, name: "c1" })
      assert.strictEqual(observed.infrastructure._tag, "NotFound")
      assert.strictEqual(live.external, 0)
      assert.deepStrictEqual(live.descendants, [])
    }),
  )
})
