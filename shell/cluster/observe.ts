/**
 * What the Cluster controller reads for one reconcile: the Cluster, its ClusterClass, the
 * referenced infrastructure and control-plane objects, its descendants, the kubeconfig Secret
 * and the ClusterCache's last successful probe, turned into the input of the core's tables.
 *
 * Objects of watched kinds are read from their reflectors' stores; the kubeconfig Secret from
 * the store of the Clusters' Secrets (label-selected, as upstream's secret cache) when the
 * manager gives one, else live; the ClusterClass is read live.
 *
 * A store that lags (a reflector still relisting after an API server restart, a watch behind)
 * may not have seen an object that exists. While the Cluster is deleting, absence decides
 * (Deletion Reconciliation rows 6 to 8: a provider object or a descendant that is gone lets the
 * deletion go on, and the finalizer goes last), so there a miss is confirmed live (`confirm`):
 * one GET per missing provider object, one LIST per descendant kind the store shows empty. A
 * Cluster that is not deleting never pays for it. Without it, a Cluster deleted mid-provisioning
 * while its reflectors relist after an API server restart would lose its finalizer and leave its
 * providers (e2e/chaos/apiserver-restart.test.ts).
 *
 * @module
 */

import * as Effect from "effect/Effect"
import { ClusterNameLabel } from "../../core/cluster/contract.ts"
import type {
  ClusterClass,
  ClusterObserved,
  ClusterSpec,
  ControlPlane,
  Descendants,
  FeatureGates,
  Fetched,
  InfrastructureCluster,
  Lookup,
  Machine,
  MachineGroup,
  ObservedCluster,
} from "../../core/cluster/types.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import { type KubeObject, type ResourceRef, Resources } from "../kube/resource.ts"
import type { ReadonlyStore } from "../reflector/store.ts"
import type { ContractError } from "./contract.ts"
import type { KindUnreadableError } from "./errors.ts"

export const ClusterClassResource: ResourceRef = {
  group: "cluster.x-k8s.io",
  version: "v1beta2",
  resource: "clusterclasses",
  kind: "ClusterClass",
  namespaced: true,
}

/** The descendant kinds, as `cluster.x-k8s.io/v1beta2` names them. */
export const DescendantKinds = ["MachineDeployment", "MachineSet", "MachinePool", "Machine"] as const
export type DescendantKind = (typeof DescendantKinds)[number]

/** Where the stores of watched kinds are, and whether each is usable. */
export interface ObserveContext {
  readonly client: KubeClientShape
  readonly clusters: ReadonlyStore<KubeObject>
  readonly featureGates: FeatureGates
  /** The store of an external kind; fails with why it cannot be read. */
  readonly external: (ref: {
    readonly apiGroup: string
    readonly kind: string
  }) => Effect.Effect<ReadonlyStore<KubeObject>, ContractError | KindUnreadableError>
  /** The store of a descendant kind; `undefined` when its CRD is not installed. */
  readonly descendants: (kind: DescendantKind) => Effect.Effect<ReadonlyStore<KubeObject> | undefined>
  /**
   * Live reads that confirm a store's miss while the Cluster is deleting (see the module's
   * comment). Absent: the stores are trusted (tests that give no client).
   */
  readonly confirm?:
    | {
        readonly external: (
          ref: { readonly apiGroup: string; readonly kind: string },
          key: { readonly namespace: string; readonly name: string },
        ) => Effect.Effect<Fetched<KubeObject>>
        readonly descendants: (
          kind: DescendantKind,
          cluster: { readonly namespace: string; readonly name: string },
        ) => Effect.Effect<ReadonlyArray<KubeObject>, KubeError>
      }
    | undefined
  readonly lastProbeSuccessTime: (cluster: {
    readonly namespace: string
    readonly name: string
  }) => Effect.Effect<number | undefined>
  /**
   * The store of the Clusters' Secrets (label `cluster.x-k8s.io/cluster-name`): the kubeconfig
   * Secret is looked up there, without a request. Absent: a GET per reconcile.
   */
  readonly secrets?: ReadonlyStore<KubeObject> | undefined
  /** The ClusterCache's health checking state; when absent only the last success is known. */
  readonly healthCheckingState?: (cluster: {
    readonly namespace: string
    readonly name: string
  }) => Effect.Effect<{
    readonly lastProbeSuccessTime?: number | undefined
    readonly consecutiveFailures: number
  }>
}

/** A read that failed, as the core's observation: the error's message is its text. */
export const getFailed = (e: KubeError | ContractError | KindUnreadableError): Fetched<never> => ({
  _tag: "GetFailed",
  error: e.message,
})

/** A GET as the core's observation: found, not found, or failed. */
export const fetchedOf = <A>(e: Effect.Effect<KubeObject, KubeError>): Effect.Effect<Fetched<A>> =>
  e.pipe(
    Effect.map((object): Fetched<A> => ({ _tag: "Found", object: object as unknown as A })),
    Effect.catch((err) =>
      Effect.succeed<Fetched<A>>(err._tag === "NotFound" ? { _tag: "NotFound" } : getFailed(err)),
    ),
  )

const fromStore = <A>(store: ReadonlyStore<KubeObject>, namespace: string, name: string): Fetched<A> => {
  const o = store.get({ namespace, name })
  return o === undefined ? { _tag: "NotFound" } : { _tag: "Found", object: o as unknown as A }
}

/** The input of the Cluster controller's tables for one Cluster, or `undefined` when it is gone. */
export const observe = (
  ctx: ObserveContext,
  key: ClusterKey,
): Effect.Effect<{
  readonly observed: ClusterObserved
  readonly desired: ClusterSpec
  readonly object: KubeObject | undefined
}> =>
  Effect.gen(function* () {
    const object = ctx.clusters.get(key)
    const cluster: Fetched<ObservedCluster> =
      object === undefined
        ? { _tag: "NotFound" }
        : { _tag: "Found", object: object as unknown as ObservedCluster }
    const spec = ((object as { spec?: ClusterSpec } | undefined)?.spec ?? {}) as ClusterSpec
    const confirm = object?.metadata.deletionTimestamp === undefined ? undefined : ctx.confirm
    const clusterClass = yield* observeClusterClass(ctx, key, spec)
    const descendants = yield* observeDescendants(ctx, key, confirm)
    const kubeconfigSecret = yield* observeKubeconfigSecret(ctx, key, spec)
    const remoteConnection = yield* observeRemoteConnection(ctx, key)
    return {
      object,
      desired: spec,
      observed: {
        cluster,
        clusterClass,
        infrastructure: yield* observeExternal<InfrastructureCluster>(
          ctx,
          key,
          confirm,
          spec.infrastructureRef,
        ),
        controlPlane: yield* observeExternal<ControlPlane>(ctx, key, confirm, spec.controlPlaneRef),
        descendants,
        kubeconfigSecret,
        featureGates: ctx.featureGates,
        remoteConnection,
      },
    }
  })

/** The namespace and name of the Cluster being observed. */
type ClusterKey = { readonly namespace: string; readonly name: string }

/** The live reads of a deleting Cluster's observation; `undefined` trusts the stores. */
type Confirm = ObserveContext["confirm"]

/** The ClusterClass of a topology, read live; none without a topology. */
const observeClusterClass = (
  ctx: ObserveContext,
  key: ClusterKey,
  spec: ClusterSpec,
): Effect.Effect<Fetched<ClusterClass>> =>
  spec.topology === undefined
    ? Effect.succeed<Fetched<ClusterClass>>({ _tag: "NotFound" })
    : fetchedOf<ClusterClass>(
        ctx.client.get(ClusterClassResource, {
          namespace: spec.topology.classRef.namespace ?? key.namespace,
          name: spec.topology.classRef.name,
        }),
      )

/**
 * A provider object from its kind's store; a miss is confirmed live while the Cluster is
 * deleting. No reference reads as not found.
 */
const observeExternal = <A>(
  ctx: ObserveContext,
  key: ClusterKey,
  confirm: Confirm,
  ref: ClusterSpec["infrastructureRef"],
): Effect.Effect<Fetched<A>> =>
  ref === undefined
    ? Effect.succeed<Fetched<A>>({ _tag: "NotFound" })
    : ctx.external(ref).pipe(
        Effect.flatMap((store) => {
          const cached = fromStore<A>(store, key.namespace, ref.name)
          return cached._tag === "Found" || confirm === undefined
            ? Effect.succeed(cached)
            : (confirm.external(ref, { namespace: key.namespace, name: ref.name }) as Effect.Effect<
                Fetched<A>
              >)
        }),
        Effect.catch((e) => Effect.succeed<Fetched<A>>(getFailed(e))),
      )

/**
 * The Cluster's descendants from their kinds' stores (MachinePools only with their gate, a kind
 * without its CRD as none); a kind the store shows empty is listed live while the Cluster is
 * deleting, and a failed live list fails the whole observation of descendants.
 */
const observeDescendants = (
  ctx: ObserveContext,
  key: ClusterKey,
  confirm: Confirm,
): Effect.Effect<Descendants> =>
  Effect.gen(function* () {
    let listFailed: string | undefined
    const listed: Record<DescendantKind, ReadonlyArray<KubeObject>> = {
      MachineDeployment: [],
      MachineSet: [],
      MachinePool: [],
      Machine: [],
    }
    for (const kind of DescendantKinds) {
      if (kind === "MachinePool" && !ctx.featureGates.machinePool) continue
      const store = yield* ctx.descendants(kind)
      if (store !== undefined) {
        listed[kind] = store
          .byLabel(ClusterNameLabel, key.name)
          .filter((o) => o.metadata.namespace === key.namespace)
        if (listed[kind].length === 0 && confirm !== undefined) {
          const live = yield* Effect.result(confirm.descendants(kind, key))
          if (live._tag === "Failure") listFailed = live.failure.message
          else listed[kind] = live.success
        }
      }
    }
    return listFailed !== undefined
      ? { _tag: "ListFailed", error: listFailed }
      : {
          _tag: "Listed",
          machineDeployments: listed.MachineDeployment as unknown as ReadonlyArray<MachineGroup>,
          machineSets: listed.MachineSet as unknown as ReadonlyArray<MachineGroup>,
          machinePools: listed.MachinePool as unknown as ReadonlyArray<MachineGroup>,
          machines: listed.Machine as unknown as ReadonlyArray<Machine>,
        }
  })

/**
 * The `<cluster>-kubeconfig` Secret, from the Secrets' store when there is one, else live. Only
 * reconcileKubeconfig reads it, and only for a Cluster without a controlPlaneRef (a
 * control-plane provider writes its own): the request is skipped otherwise.
 */
const observeKubeconfigSecret = (
  ctx: ObserveContext,
  key: ClusterKey,
  spec: ClusterSpec,
): Effect.Effect<Lookup> =>
  Effect.gen(function* () {
    const secretKey = { namespace: key.namespace, name: `${key.name}-kubeconfig` }
    const secret: Fetched<KubeObject> =
      spec.controlPlaneRef !== undefined
        ? { _tag: "NotFound" }
        : ctx.secrets !== undefined
          ? fromStore<KubeObject>(ctx.secrets, secretKey.namespace, secretKey.name)
          : yield* fetchedOf<KubeObject>(ctx.client.get(Resources.secrets, secretKey))
    return secret._tag === "Found" ? { _tag: "Found" } : secret
  })

/** The ClusterCache's view of the remote connection: its last probe success and its failures. */
const observeRemoteConnection = (
  ctx: ObserveContext,
  key: ClusterKey,
): Effect.Effect<ClusterObserved["remoteConnection"]> =>
  Effect.gen(function* () {
    const { lastProbeSuccessTime, consecutiveFailures } =
      ctx.healthCheckingState === undefined
        ? { lastProbeSuccessTime: yield* ctx.lastProbeSuccessTime(key), consecutiveFailures: 0 }
        : yield* ctx.healthCheckingState(key)
    return {
      ...(lastProbeSuccessTime === undefined ? {} : { lastProbeSuccessTime }),
      ...(consecutiveFailures === 0 ? {} : { consecutiveFailures }),
    }
  })
