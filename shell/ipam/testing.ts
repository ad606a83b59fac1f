/**
 * What the IPAM controller's shell tests share: a fake API server with the three kinds and the
 * controller on it, an IPAMConfig, an openmcp Cluster, and waiting in virtual time.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { APPLIED_RULES_ANNOTATION } from "../../core/ipam/index.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { type IpamController, makeIpamController } from "./controller.ts"
import { ClusterConfigResource, IpamConfigResource, OpenmcpClusterResource } from "./resources.ts"

export const config = (spec: unknown): KubeObject => ({
  apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
  kind: "IPAMConfig",
  metadata: { name: "ipam" },
  spec,
})
export const validSpec = {
  parentCIDRs: { a: ["10.0.0.0/16"] },
  injectionRules: [
    {
      id: "r",
      matchPurposes: [{ operator: "ContainsAll", values: ["mcp"] }],
      injections: [{ path: "/spec/networking/nodes", parents: ["a"], subnetSize: 24 }],
    },
  ],
}
export const openmcpCluster = (name: string, purposes: ReadonlyArray<string> = ["mcp"]): KubeObject => ({
  apiVersion: "clusters.openmcp.cloud/v1alpha1",
  kind: "Cluster",
  metadata: { namespace: "ns", name },
  spec: { profile: "p", tenancy: "Exclusive", purposes },
})

/** A fake API server with the three kinds, a client, and the controller started with `workers`. */
export const setup = (
  workers: number,
): Effect.Effect<
  {
    readonly fake: FakeApiServer
    readonly client: KubeClientShape
    readonly start: () => Effect.Effect<IpamController, KubeError, Scope.Scope>
  },
  never,
  Scope.Scope
> =>
  Effect.gen(function* () {
    const fake = yield* FakeApiServer.make({
      resources: [...Object.values(Resources), OpenmcpClusterResource, IpamConfigResource],
    })
    fake.register(ClusterConfigResource, { status: false })
    const client = yield* makeMemoryClient(fake)
    const start = () =>
      Effect.gen(function* () {
        const { controller, start } = yield* makeIpamController(client, {
          config: "ipam",
          identity: { managedBy: "ipam", environment: "test" },
          concurrency: workers,
          gracefulShutdownTimeout: 1_000,
          component: "krtt-ipam",
        })
        yield* start
        return controller
      })
    return { fake, client, start }
  })

/** Moves virtual time in small steps until `probe` holds (at most `steps` steps: a loop that must end). */
export const eventually = <A, E>(what: string, probe: Effect.Effect<A | undefined, E>, steps = 400) =>
  Effect.gen(function* () {
    for (let i = 0; i < steps; i++) {
      const v = yield* probe
      if (v !== undefined) return v
      yield* TestClock.adjust("50 millis")
    }
    return yield* Effect.die(new Error(`not reached: ${what}`))
  })

export const clusters = (client: KubeClientShape) =>
  Effect.map(client.listAll(OpenmcpClusterResource, { namespace: "ns" }), (l) => l.items)
export const clusterConfigs = (client: KubeClientShape) =>
  Effect.map(client.listAll(ClusterConfigResource, { namespace: "ns" }), (l) => l.items)
export const applied = (c: KubeObject) => c.metadata.annotations?.[APPLIED_RULES_ANNOTATION]
