// The IPAM controller's shell on the in-memory API server (virtual time): what it writes for the
// decisions of core/ipam, the concurrency guarantee, the config's refusal, the triggers.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { TestClock } from "effect/testing"
import { allocations, CIDR_FINALIZER, cidrOf, overlaps } from "../../core/ipam/index.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { IpamControllerDefaults } from "./controller.ts"
import { ClusterConfigResource, IpamConfigResource, OpenmcpClusterResource } from "./resources.ts"
import {
  applied,
  clusterConfigs,
  clusters,
  config,
  eventually,
  openmcpCluster,
  setup,
  validSpec,
} from "./testing.ts"

describe("IPAM controller (in-memory API server)", () => {
  it("documents its numbers", () => {
    assert.deepStrictEqual(
      { ...IpamControllerDefaults },
      {
        concurrency: 10,
        environment: "default",
        component: "krtt-ipam",
        configStatusRetries: 10,
        configStatusRetryBase: 1_000,
        configStatusRetryMax: 30_000,
      },
    )
  })

  it.effect("10 workers reconciling 60 Clusters at once never hand out one CIDR twice", () =>
    Effect.gen(function* () {
      const { client, start } = yield* setup(10)
      yield* client.create(IpamConfigResource, config(validSpec))
      for (let i = 0; i < 60; i++) yield* client.create(OpenmcpClusterResource, openmcpCluster(`c${i}`))
      const controller = yield* start()
      const ccs = yield* eventually(
        "60 ClusterConfigs",
        Effect.map(clusterConfigs(client), (l) => (l.length === 60 ? l : undefined)),
      )
      const cidrs = ccs.flatMap((cc) =>
        ((cc.spec as { patches: ReadonlyArray<{ value: string }> }).patches ?? []).map((p) => p.value),
      )
      assert.strictEqual(new Set(cidrs).size, 60)
      for (const [i, a] of cidrs.entries())
        for (const b of cidrs.slice(i + 1)) assert.isFalse(overlaps(cidrOf(a), cidrOf(b)), `${a} ∩ ${b}`)
      for (const cc of ccs) {
        assert.deepStrictEqual(cc.metadata.finalizers, [CIDR_FINALIZER])
        assert.strictEqual(cc.metadata.ownerReferences?.[0]?.kind, "Cluster")
        assert.isTrue((cc.metadata.ownerReferences?.[0]?.uid ?? "") !== "")
      }
      assert.strictEqual(allocations(yield* controller.store.current).length, 60)
      const cs = yield* clusters(client)
      assert.isTrue(cs.every((c) => applied(c) !== undefined))
    }),
  )

  it.effect(
    "refuses an invalid IPAMConfig with Valid=False and an Event naming the field, and keeps the last valid one",
    () =>
      Effect.gen(function* () {
        const { client, start } = yield* setup(2)
        yield* client.create(IpamConfigResource, config(validSpec))
        yield* start()
        const current = yield* client.get(IpamConfigResource, { name: "ipam" })
        yield* client.update(IpamConfigResource, {
          ...current,
          spec: { ...validSpec, parentCIDRs: { a: ["10.0.0.0/16"], b: ["10.0.300.0/24"] } },
        })
        const condition = yield* eventually(
          "Valid=False",
          Effect.map(client.get(IpamConfigResource, { name: "ipam" }), (o) =>
            (
              o.status as
                | { conditions?: ReadonlyArray<{ type: string; status: string; message: string }> }
                | undefined
            )?.conditions?.find((c) => c.type === "Valid" && c.status === "False"),
          ),
        )
        assert.include(condition.message, "spec.parentCIDRs.b")
        const events = (yield* client.listAll(Resources.events, { namespace: "default" }))
          .items as ReadonlyArray<KubeObject & { reason?: string; message?: string }>
        assert.isTrue(
          events.some(
            (e) => e.reason === "InvalidConfig" && (e.message ?? "").includes("spec.parentCIDRs.b"),
          ),
        )
        // The last valid config is still in force.
        yield* client.create(OpenmcpClusterResource, openmcpCluster("late"))
        yield* eventually(
          "the new Cluster allocated",
          Effect.map(clusters(client), (l) =>
            l.some((c) => c.metadata.name === "late" && applied(c) !== undefined) ? true : undefined,
          ),
        )
      }),
  )

  it.effect(
    "a ClusterConfig removed by hand comes back from the annotation; a patch removed by hand comes back on the reconcile annotation",
    () =>
      Effect.gen(function* () {
        const twoPaths = {
          ...validSpec,
          injectionRules: [
            {
              id: "r",
              injections: [
                { path: "/spec/networking/nodes", parents: ["a"], subnetSize: 24 },
                { path: "/spec/networking/pods", parents: ["a"], subnetSize: 26 },
              ],
            },
          ],
        }
        const { client, start } = yield* setup(1)
        yield* client.create(IpamConfigResource, config(twoPaths))
        yield* client.create(OpenmcpClusterResource, openmcpCluster("kept"))
        yield* start()
        const cc = yield* eventually(
          "a ClusterConfig",
          Effect.map(clusterConfigs(client), (l) => (l.length === 1 ? l[0] : undefined)),
        )
        const key = { namespace: "ns", name: cc.metadata.name ?? "" }
        const patches = (cc.spec as { patches: ReadonlyArray<{ path: string; value: string }> }).patches
        // Deleted by hand (finalizer removed first): ipam.trigger#4, restored by ipam.reconcile#5.
        yield* client.patch(ClusterConfigResource, key, {
          type: "merge",
          body: { metadata: { finalizers: null } },
        })
        yield* client.delete(ClusterConfigResource, key)
        const back = yield* eventually(
          "the ClusterConfig restored",
          Effect.map(clusterConfigs(client), (l) =>
            l.length === 1 && l[0]?.metadata.uid !== cc?.metadata.uid ? l[0] : undefined,
          ),
        )
        assert.deepStrictEqual((back.spec as { patches: unknown }).patches, patches)
        assert.deepStrictEqual(back.metadata.finalizers, [CIDR_FINALIZER])
        // A patch removed by hand: the update triggers the owner's reconcile, as upstream's
        // (ipam.trigger#10), and the patch is added back.
        const current = yield* client.get(ClusterConfigResource, key)
        yield* client.update(ClusterConfigResource, {
          ...current,
          spec: { ...(current.spec as object), patches: patches.slice(0, 1) },
        })
        const repaired = yield* eventually(
          "the patch added back",
          Effect.map(client.get(ClusterConfigResource, key), (o) =>
            (o.spec as { patches: ReadonlyArray<unknown> }).patches.length === 2 ? o : undefined,
          ),
        )
        assert.sameDeepMembers((repaired.spec as { patches: Array<unknown> }).patches, [...patches])
        // The reconcile annotation on the ClusterConfig (ipam.trigger#11) is used up by the reconcile.
        yield* client.patch(ClusterConfigResource, key, {
          type: "merge",
          body: { metadata: { annotations: { "openmcp.cloud/operation": "reconcile" } } },
        })
        yield* eventually(
          "the ClusterConfig's reconcile annotation removed",
          Effect.map(client.get(ClusterConfigResource, key), (o) =>
            o.metadata.annotations?.["openmcp.cloud/operation"] === undefined ? true : undefined,
          ),
        )
      }),
  )

  it.effect(
    "a Cluster update reconciles nothing (ipam.trigger#8); the reconcile annotation does, and is removed (ipam.trigger#3)",
    () =>
      Effect.gen(function* () {
        const { client, start } = yield* setup(1)
        yield* client.create(IpamConfigResource, config(validSpec))
        yield* client.create(OpenmcpClusterResource, openmcpCluster("quiet"))
        yield* start()
        yield* eventually(
          "a ClusterConfig",
          Effect.map(clusterConfigs(client), (l) => (l.length === 1 ? true : undefined)),
        )
        // Let every reconcile the start caused settle.
        for (let i = 0; i < 40; i++) yield* TestClock.adjust("50 millis")
        const reconciles = Effect.map(Metric.snapshot, (snap) =>
          snap
            .filter(
              (m) =>
                m.id === "controller_runtime_reconcile_total" &&
                (m.attributes as Record<string, string> | undefined)?.controller === "ipam",
            )
            .reduce((n, m) => n + ((m.state as { count?: number }).count ?? 0), 0),
        )
        const before = yield* reconciles
        const key = { namespace: "ns", name: "quiet" }
        yield* client.patch(OpenmcpClusterResource, key, {
          type: "merge",
          body: { metadata: { labels: { x: "y" } } },
        })
        for (let i = 0; i < 40; i++) yield* TestClock.adjust("50 millis")
        assert.strictEqual(yield* reconciles, before)
        yield* client.patch(OpenmcpClusterResource, key, {
          type: "merge",
          body: { metadata: { annotations: { "openmcp.cloud/operation": "reconcile" } } },
        })
        yield* eventually(
          "the reconcile annotation removed",
          Effect.map(client.get(OpenmcpClusterResource, key), (o) =>
            o.metadata.annotations?.["openmcp.cloud/operation"] === undefined ? true : undefined,
          ),
        )
        for (let i = 0; i < 40; i++) yield* TestClock.adjust("50 millis")
        assert.strictEqual(yield* reconciles, before + 1)
      }),
  )
})
