/**
 * `krtt why`'s read-only observation of a Cluster: the Cluster controller's own `observe`
 * (shell/cluster/observe.ts) over stores filled by one LIST or GET each, instead of the
 * controller's reflectors. Only get and list requests are made; nothing is written.
 *
 * The ClusterCache's health checking state is not observable from outside the manager: no last
 * probe success is given, so the RemoteConnectionProbe condition is kept as the Cluster has it
 * (upstream's setRemoteConnectionProbeCondition does the same while nothing is known).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import { ClusterNameLabel } from "../../core/cluster/contract.ts"
import type { ClusterObserved, ClusterSpec } from "../../core/cluster/types.ts"
import { contractResource } from "../cluster/contract.ts"
import { FeatureGateDefaults } from "../cluster/controller.ts"
import { KindUnreadableError } from "../cluster/errors.ts"
import { type DescendantKind, type ObserveContext, observe } from "../cluster/observe.ts"
import { ClusterResource } from "../clustercache/service.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { type CustomResourceDefinition, crdResource } from "../kube/discovery.ts"
import type { KubeObject } from "../kube/resource.ts"
import { Resources } from "../kube/resource.ts"
import { Store } from "../reflector/store.ts"

export { ClusterResource }

/** What `krtt why` read of one Cluster. */
export interface WhyObservation {
  readonly observed: ClusterObserved
  readonly desired: ClusterSpec
  readonly object: KubeObject
}

const DESCENDANT_PLURALS: Record<DescendantKind, string> = {
  MachineDeployment: "machinedeployments",
  MachineSet: "machinesets",
  MachinePool: "machinepools",
  Machine: "machines",
}

const storeOf = (objects: ReadonlyArray<KubeObject>): Store<KubeObject> => {
  const s = new Store<KubeObject>()
  for (const o of objects) s.upsert(o)
  return s
}

/** The CustomResourceDefinitions, listed once per command. */
export const listCrds = (client: KubeClientShape) =>
  Effect.map(client.listAll<CustomResourceDefinition>(Resources.customResourceDefinitions), (l) => l.items)

/**
 * Observes `cluster` (already read) as the Cluster controller does: each provider object and
 * descendant kind is read with one namespaced LIST, the kubeconfig Secret with one GET.
 */
export const observeReadOnly = (
  client: KubeClientShape,
  crds: ReadonlyArray<CustomResourceDefinition>,
  cluster: KubeObject,
): Effect.Effect<WhyObservation> => {
  const namespace = cluster.metadata.namespace ?? ""
  const name = cluster.metadata.name ?? ""
  const ctx: ObserveContext = {
    client,
    clusters: storeOf([cluster]),
    featureGates: FeatureGateDefaults,
    external: (ref) =>
      Effect.flatMap(Effect.fromResult(contractResource(crds, ref)), (resource) =>
        client.listAll(resource, { namespace }).pipe(
          Effect.map((l) => storeOf(l.items)),
          Effect.mapError((e) => new KindUnreadableError({ message: e.message })),
        ),
      ),
    descendants: (kind) => {
      const crd = crds.find((c) => c.metadata.name === `${DESCENDANT_PLURALS[kind]}.cluster.x-k8s.io`)
      const resource = crd === undefined ? undefined : crdResource(crd)
      if (resource === undefined) return Effect.succeed(undefined)
      return client.listAll(resource, { namespace, labelSelector: `${ClusterNameLabel}=${name}` }).pipe(
        Effect.map((l): Store<KubeObject> | undefined => storeOf(l.items)),
        Effect.catch(() => Effect.succeed(undefined)),
      )
    },
    lastProbeSuccessTime: () => Effect.succeed(undefined),
  }
  return Effect.map(observe(ctx, { namespace, name }), (o) => ({
    observed: o.observed,
    desired: o.desired,
    object: cluster,
  }))
}
