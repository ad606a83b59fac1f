// The IPAM controller's releases on the in-memory API server (virtual time): a gone Cluster's
// CIDRs freed only after the finalizer went, also across a restart, and handed at once to a
// Cluster waiting for CIDRs; a finalizer that could not be removed keeps them held.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { TestClock } from "effect/testing"
import { allocations, CIDR_FINALIZER } from "../../core/ipam/index.ts"
import { ClusterConfigResource, IpamConfigResource, OpenmcpClusterResource } from "./resources.ts"
import { clusterConfigs, config, eventually, openmcpCluster, setup, validSpec } from "./testing.ts"

describe("IPAM controller: releases (in-memory API server)", () => {
  it.effect(
    "a gone Cluster's ClusterConfigs lose the finalizer, then their CIDRs are released (ipam.reconcile#1)",
    () =>
      Effect.gen(function* () {
        const { client, start } = yield* setup(1)
        yield* client.create(IpamConfigResource, config(validSpec))
        yield* client.create(OpenmcpClusterResource, openmcpCluster("gone"))
        const controller = yield* start()
        yield* eventually(
          "a ClusterConfig",
          Effect.map(clusterConfigs(client), (l) => (l.length === 1 ? true : undefined)),
        )
        assert.strictEqual(allocations(yield* controller.store.current).length, 1)
        yield* client.delete(OpenmcpClusterResource, { namespace: "ns", name: "gone" })
        yield* eventually(
          "the ClusterConfig gone",
          Effect.map(clusterConfigs(client), (l) => (l.length === 0 ? true : undefined)),
        )
        yield* eventually(
          "the CIDR released",
          Effect.map(controller.store.current, (s) => (allocations(s).length === 0 ? true : undefined)),
        )
      }),
  )

  it.effect(
    "a ClusterConfig listed at start with its deletion timestamp, its Cluster gone, is released (ipam.trigger#5)",
    () =>
      Effect.gen(function* () {
        const { client, start } = yield* setup(1)
        yield* client.create(IpamConfigResource, config(validSpec))
        yield* client.create(ClusterConfigResource, {
          apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
          kind: "ClusterConfig",
          metadata: {
            namespace: "ns",
            name: "gone--ipam--r",
            labels: {
              "openmcp.cloud/managed-by": "ipam",
              "openmcp.cloud/managed-purpose": "gardener-ipam",
              "openmcp.cloud/environment": "test",
              "ipam.gardener.clusters.openmcp.cloud/cluster": "gone",
              "ipam.gardener.clusters.openmcp.cloud/injection-rule": "r",
            },
            finalizers: [CIDR_FINALIZER],
            ownerReferences: [
              {
                apiVersion: "clusters.openmcp.cloud/v1alpha1",
                kind: "Cluster",
                name: "gone",
                uid: "u-1",
                controller: true,
              },
            ],
          },
          spec: { patches: [{ op: "add", path: "/spec/networking/nodes", value: "10.0.7.0/24" }] },
        })
        // What the garbage collector did while the controller was down.
        yield* client.delete(ClusterConfigResource, { namespace: "ns", name: "gone--ipam--r" })
        const controller = yield* start()
        yield* eventually(
          "the ClusterConfig gone",
          Effect.map(clusterConfigs(client), (l) => (l.length === 0 ? true : undefined)),
        )
        assert.deepStrictEqual(allocations(yield* controller.store.current), [])
      }),
  )

  it.effect(
    "an exhausted Cluster is retried with the rate limiter, and gets its CIDRs as soon as a release frees some (ipam.reconcile#7, ipam.trigger#20)",
    () =>
      Effect.gen(function* () {
        const full = { ...validSpec, parentCIDRs: { a: ["10.0.0.0/23"] } }
        const { client, start } = yield* setup(1)
        yield* client.create(IpamConfigResource, config(full))
        for (const name of ["a", "b", "w"]) yield* client.create(OpenmcpClusterResource, openmcpCluster(name))
        yield* start()
        const cidrsOf = (name: string) =>
          Effect.map(clusterConfigs(client), (l) => l.find((cc) => cc.metadata.name === `${name}--ipam--r`))
        const condition = Effect.map(
          client.get(OpenmcpClusterResource, { namespace: "ns", name: "w" }),
          (o) =>
            (
              (o.status as { conditions?: ReadonlyArray<{ type: string; status: string; reason: string }> })
                ?.conditions ?? []
            ).find((c) => c.type === "CIDRsAllocated"),
        )
        const waiting = yield* eventually(
          "w waits for CIDRs",
          Effect.map(condition, (c) => (c?.status === "False" ? c : undefined)),
        )
        assert.strictEqual(waiting.reason, "ParentsExhausted")
        const requeues = Effect.map(Metric.snapshot, (snap) =>
          snap
            .filter((m) => {
              const a = m.attributes as Record<string, string> | undefined
              return (
                m.id === "controller_runtime_reconcile_total" &&
                a?.controller === "ipam" &&
                a.result === "requeue"
              )
            })
            .reduce((n, m) => n + ((m.state as { count?: number }).count ?? 0), 0),
        )
        const before = yield* requeues
        // A minute of exhaustion: retried again and again, the backoff growing past a minute.
        for (let i = 0; i < 60; i++) yield* TestClock.adjust("1 second")
        assert.isAbove((yield* requeues) - before, 5)
        assert.isUndefined(yield* cidrsOf("w"))
        yield* client.delete(OpenmcpClusterResource, { namespace: "ns", name: "a" })
        // Within a second of the release, not after the backoff.
        const got = yield* eventually("w gets the released CIDR", cidrsOf("w"), 20)
        assert.deepStrictEqual(
          (got.spec as { patches: ReadonlyArray<{ value: string }> }).patches.map((p) => p.value),
          ["10.0.0.0/24"],
        )
        yield* eventually(
          "w's condition True",
          Effect.map(condition, (c) => (c?.status === "True" ? true : undefined)),
        )
      }),
  )

  it.effect("a ClusterConfig whose finalizer could not be removed keeps its CIDRs held", () =>
    Effect.gen(function* () {
      const { fake, client, start } = yield* setup(1)
      yield* client.create(IpamConfigResource, config(validSpec))
      yield* client.create(OpenmcpClusterResource, openmcpCluster("stuck"))
      const controller = yield* start()
      yield* eventually(
        "a ClusterConfig",
        Effect.map(clusterConfigs(client), (l) => (l.length === 1 ? true : undefined)),
      )
      fake.inject({ verb: "patch", resource: "clusterconfigs", error: "Forbidden" })
      yield* client.delete(OpenmcpClusterResource, { namespace: "ns", name: "stuck" })
      yield* TestClock.adjust("5 seconds")
      assert.strictEqual((yield* clusterConfigs(client)).length, 1)
      assert.strictEqual(allocations(yield* controller.store.current).length, 1)
      fake.clearFaults()
      yield* eventually(
        "released once the finalizer could be removed",
        Effect.map(controller.store.current, (s) => (allocations(s).length === 0 ? true : undefined)),
      )
    }),
  )
})
