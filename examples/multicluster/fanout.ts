/**
 * A FAN-OUT multi-cluster controller (seed 003, Low-Level Requirements 2: "Central hub cluster
 * events can trigger reconciliation on multiple clusters"), written as a multicluster-runtime
 * controller is ported: its own request type, engage options per watch, the reconcile's cluster
 * read from the context, and a cluster-aware runnable beside it.
 *
 * A hub ConfigMap in namespace `fleet` whose annotation `krtt.dev/clusters` names clusters
 * (`east,west`) is copied to each of them; a cluster it no longer names loses its copy; a copy
 * deleted or edited on a cluster is repaired.
 *
 * - Requests are `CopyRequest { cluster, policy }` (`typedControllerManagedBy` with
 *   `customRequest`); `forObject` says what `for` enqueues.
 * - The hub policies are watched on the hub only (`engageWithLocalCluster: true,
 *   engageWithProviderClusters: false`) and fanned out with `enqueueRequestsForClusters`.
 * - The copies are watched on the provider clusters only (`for` with
 *   `engageWithProviderClusters: true`): that engages the controller with them (a request of a
 *   cluster the controller is not engaged with is dropped) and repairs drift.
 * - The reconciler reads its cluster with `currentCluster` (upstream's `ClusterFromContext`).
 *
 *     node examples/multicluster/fanout.ts --kubeconfig hub.kubeconfig --provider kubeconfig-file \
 *       --provider-kubeconfig /etc/fleet/ --provider-kubeconfig ~/extra.kubeconfig
 *
 * The `demo` runs it on in-memory API servers (the examples test runs it).
 *
 * @module
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { type KubeObject, Resources } from "krtt/kube"
import {
  type Cluster,
  type ClusterAwareRunnable,
  type ClusterName,
  currentCluster,
  customRequest,
  done,
  enqueueRequestsForClusters,
  type MultiClusterController,
  type MultiClusterManager,
  makeCluster,
  makeManager,
  makeMemoryProvider,
  programMain,
  type ReconcileResult,
  typedControllerManagedBy,
} from "krtt/multicluster"
import { FakeApiServer, makeMemoryClient } from "krtt/testing"
import { waitFor } from "./uniform.js"

export const NAMESPACE = "fleet"
export const CLUSTERS_ANNOTATION = "krtt.dev/clusters"
export const COPY_LABEL = "krtt.dev/copy-of"

/** The controller's own request: which policy, on which cluster. */
export interface CopyRequest {
  readonly cluster: ClusterName
  readonly policy: string
}

const CopyRequest = customRequest<CopyRequest>({
  name: "CopyRequest",
  forObject: (cluster, key) => ({ cluster, policy: key.name }),
})

/** The clusters a policy names. */
export const clustersOf = (o: KubeObject): ReadonlyArray<string> =>
  (o.metadata.annotations?.[CLUSTERS_ANNOTATION] ?? "")
    .split(",")
    .map((c) => c.trim())
    .filter((c) => c !== "")

/** Makes the request's cluster hold a copy of the policy if the policy names it, and no copy otherwise. */
export const reconcileCopy =
  (manager: MultiClusterManager) =>
  (req: CopyRequest): Effect.Effect<ReconcileResult, unknown> =>
    Effect.gen(function* () {
      const cluster = yield* currentCluster
      const key = { namespace: NAMESPACE, name: req.policy }
      const policy = yield* manager.hub.client
        .get(Resources.configMaps, key)
        .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
      const copy = yield* cluster.client
        .get(Resources.configMaps, key)
        .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
      const wanted = policy !== undefined && clustersOf(policy).includes(cluster.name)
      if (!wanted) {
        if (copy?.metadata.labels?.[COPY_LABEL] === req.policy)
          yield* cluster.client.delete(Resources.configMaps, key)
        return done()
      }
      const data = policy.data ?? {}
      const labels = { [COPY_LABEL]: req.policy }
      if (copy === undefined)
        yield* cluster.client.create(Resources.configMaps, {
          metadata: { ...key, labels },
          data,
        } as KubeObject)
      else if (JSON.stringify(copy.data ?? {}) !== JSON.stringify(data))
        yield* cluster.client.update(Resources.configMaps, { ...copy, data })
      return done()
    })

/** Adds the fan-out controller. */
export const addCopyController = (
  manager: MultiClusterManager,
): Effect.Effect<MultiClusterController, unknown, Scope.Scope> =>
  typedControllerManagedBy(manager, CopyRequest)
    .named("policy-copies")
    .watches(
      Resources.configMaps,
      enqueueRequestsForClusters({
        clusters: clustersOf,
        request: (o, cluster): CopyRequest => ({ cluster, policy: o.metadata.name ?? "" }),
      }),
      { namespace: NAMESPACE, engageWithLocalCluster: true, engageWithProviderClusters: false },
    )
    .for(Resources.configMaps, {
      namespace: NAMESPACE,
      engageWithLocalCluster: false,
      engageWithProviderClusters: true,
      predicates: [(e) => e.object.metadata.labels?.[COPY_LABEL] !== undefined],
    })
    .complete(reconcileCopy(manager))

/** A runnable the manager engages like a controller: it logs the clusters it is engaged with. */
export const engagedLog = (into: Array<string>): ClusterAwareRunnable => ({
  name: "engaged-log",
  engage: (cluster: Cluster) => Effect.sync(() => void into.push(`engaged ${cluster.name || "(hub)"}`)),
  disengage: (cluster: Cluster) => Effect.sync(() => void into.push(`disengaged ${cluster.name}`)),
})

const policy = (clusters: string, data: Record<string, string>): KubeObject => ({
  metadata: { namespace: NAMESPACE, name: "quota", annotations: { [CLUSTERS_ANNOTATION]: clusters } },
  data,
})

/** The controller on in-memory API servers; returns what happened, step by step. */
export const demo: Effect.Effect<Array<string>, unknown> = Effect.scoped(
  Effect.gen(function* () {
    const log: Array<string> = []
    const hubServer = yield* FakeApiServer.make()
    const hub = yield* makeCluster({ client: yield* makeMemoryClient(hubServer) })
    const provider = yield* makeMemoryProvider({ name: "demo" })
    const servers = new Map<string, FakeApiServer>()
    for (const name of ["east", "west", "north"]) {
      const server = yield* FakeApiServer.make()
      servers.set(name, server)
      yield* provider.add(name, server)
    }
    const manager = yield* makeManager({ hub, provider })
    const engaged: Array<string> = []
    yield* manager.add(engagedLog(engaged))
    yield* addCopyController(manager)
    yield* manager.start
    yield* hubServer.client().create(Resources.configMaps, policy("east,west", { pods: "10" }))
    const copies = Effect.gen(function* () {
      const out: Array<string> = []
      for (const [name, server] of servers) {
        const list = yield* server.client().list(Resources.configMaps, { namespace: NAMESPACE })
        for (const o of list.items)
          out.push(`${name}=${(o.data as Record<string, string> | undefined)?.pods}`)
      }
      return out.sort().join(" ")
    })
    const expect = (what: string, value: string) =>
      Effect.andThen(
        waitFor(
          what,
          Effect.map(copies, (c) => c === value),
        ),
        Effect.sync(() => void log.push(`${what}: ${value}`)),
      )
    yield* expect("fanned out", "east=10 west=10")
    const current = yield* hubServer
      .client()
      .get(Resources.configMaps, { namespace: NAMESPACE, name: "quota" })
    yield* hubServer.client().update(Resources.configMaps, {
      ...current,
      ...policy("east,north", { pods: "20" }),
      metadata: { ...current.metadata, annotations: { [CLUSTERS_ANNOTATION]: "east,north" } },
    })
    yield* expect("west dropped, north added", "east=20 north=20")
    const east = servers.get("east") as FakeApiServer
    yield* east.client().delete(Resources.configMaps, { namespace: NAMESPACE, name: "quota" })
    yield* expect("east's copy repaired", "east=20 north=20")
    log.push(`runnable: ${[...engaged].sort().join(", ")}`)
    return log
  }),
)

if (import.meta.main)
  NodeRuntime.runMain(programMain("fanout", ({ manager }) => Effect.asVoid(addCopyController(manager))))
