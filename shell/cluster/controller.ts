/**
 * The Cluster controller (seed 001) on the shell: watches Clusters, the infrastructure and
 * control-plane objects they reference (any kind whose CRD carries the contract label), their
 * descendants (Machine, MachineDeployment, MachineSet, MachinePool where installed) and the
 * ClusterCache's connect/disconnect/probe-failure events; each reconcile feeds the core's
 * reconcile the observed state and `now`, carries out the actions, and logs the deciding row.
 *
 * Expected flow: observe → core reconcile → interpret; when the API server refuses an action,
 * the core is asked again with `ActionFailed` (Error Handling rows) and its answer is carried
 * out before the reconcile ends.
 *
 * @module
 */

import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { ClusterNameLabel } from "../../core/cluster/contract.ts"
import {
  type ClusterControllerConfig,
  ClusterControllerDefaults,
  reconcile as coreReconcile,
  DELETION,
  deletionRow,
  NORMAL,
  normalRow,
} from "../../core/cluster/index.ts"
import type { FeatureGates, Fetched } from "../../core/cluster/types.ts"
import { rowId } from "../../core/krtt/index.ts"
import type { ClusterCacheShape } from "../clustercache/service.ts"
import { make as makeController } from "../controller/controller.ts"
import { enqueueRequestForObject, enqueueRequestsFromMapFunc } from "../controller/handler.ts"
import { done, requeueAfter } from "../controller/result.ts"
import * as Source from "../controller/source.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { type CustomResourceDefinition, crdResource } from "../kube/discovery.ts"
import { type KubeObject, parseApiVersion, type ResourceRef, Resources } from "../kube/resource.ts"
import { make as makeReflector, type Reflector } from "../reflector/reflector.ts"
import type { ReadonlyStore } from "../reflector/store.ts"
import { makeRequest } from "../workqueue/request.ts"
import { resolveContract } from "./contract.ts"
import { interpret } from "./interpret.ts"
import { type DescendantKind, fetchedOf, observe } from "./observe.ts"

/** Upstream's defaults: ClusterTopology and RuntimeSDK off, MachinePool on. */
export const FeatureGateDefaults: FeatureGates = {
  runtimeSDK: false,
  clusterTopology: false,
  machinePool: true,
}

/** Options of the Cluster controller. */
export interface ClusterControllerOptions {
  readonly concurrency: number
  readonly featureGates?: FeatureGates | undefined
  readonly config?: ClusterControllerConfig | undefined
  /** How long a newly watched kind may take to list before the reconcile reports it. Default 30 s. */
  readonly syncTimeout?: number | undefined
  /**
   * Every Cluster is reconciled again at least this often (upstream's `--sync-period`, default
   * 10 min); absent or 0: only on events and requeues.
   */
  readonly syncPeriod?: number | undefined
  /** The store of the Clusters' Secrets: the kubeconfig Secret is looked up there, without a request. */
  readonly secrets?: ReadonlyStore<KubeObject> | undefined
}

/** A reconcile that ended with an error: the work queue retries it with backoff. */
export class ClusterReconcileError extends Data.TaggedError("ClusterReconcileError")<{
  readonly message: string
  readonly row: string
}> {}

const DESCENDANT_PLURALS: Record<DescendantKind, string> = {
  MachineDeployment: "machinedeployments",
  MachineSet: "machinesets",
  MachinePool: "machinepools",
  Machine: "machines",
}

const refKey = (r: ResourceRef) => `${r.group}/${r.version}/${r.resource}`

/** The Clusters an object belongs to: its Cluster owner references and its cluster-name label. */
const owningClusters = (o: KubeObject) => {
  const ns = o.metadata.namespace ?? ""
  const names = new Set<string>()
  for (const ref of o.metadata.ownerReferences ?? []) {
    if (ref.kind === "Cluster" && parseApiVersion(ref.apiVersion).group === "cluster.x-k8s.io")
      names.add(ref.name)
  }
  const label = o.metadata.labels?.[ClusterNameLabel]
  if (label !== undefined) names.add(label)
  return [...names].map((name) => makeRequest({ namespace: ns, name }))
}

/**
 * Makes the Cluster controller: watches Clusters, their provider objects and descendants, and
 * reconciles each through the pure reconcile of `core/cluster`; `start` it in a scope.
 */
export const makeClusterController = (
  deps: {
    readonly client: KubeClientShape
    readonly clusters: Reflector<KubeObject>
    readonly cache: ClusterCacheShape
  },
  options: ClusterControllerOptions,
) =>
  Effect.gen(function* () {
    const { client, clusters, cache } = deps
    const config = options.config ?? ClusterControllerDefaults
    const featureGates = options.featureGates ?? FeatureGateDefaults
    const syncTimeout = options.syncTimeout ?? 30_000
    const scope = yield* Effect.scope
    const crds = yield* makeReflector<CustomResourceDefinition>(client, {
      resource: Resources.customResourceDefinitions,
      name: "crds",
    })
    const controller = yield* makeController({
      name: "cluster",
      forKind: { group: "cluster.x-k8s.io", kind: "Cluster" },
      maxConcurrentReconciles: options.concurrency,
      reconcile: (request) => reconcileOne({ namespace: request.namespace, name: request.name }),
    })
    const watched = yield* Ref.make(new Map<string, Reflector<KubeObject>>())

    /** The store of a kind, starting (and subscribing to) its reflector on first use. */
    const storeFor = (
      resource: ResourceRef,
    ): Effect.Effect<ReadonlyStore<KubeObject> | { readonly error: string }> =>
      Effect.gen(function* () {
        const known = (yield* Ref.get(watched)).get(refKey(resource))
        const reflector =
          known ??
          (yield* Effect.gen(function* () {
            const r = yield* makeReflector(client, { resource, name: resource.resource })
            yield* controller.watch(Source.kind(r, enqueueRequestsFromMapFunc(owningClusters, resource.kind)))
            yield* Ref.update(watched, (m) => new Map(m).set(refKey(resource), r))
            return r
          }).pipe(Scope.provide(scope)))
        const synced = yield* Effect.timeoutOption(reflector.waitForSync, syncTimeout)
        if (synced._tag === "None") {
          const status = yield* reflector.status
          return {
            error: `cannot list ${resource.resource}.${resource.group}: ${status.lastError?.message ?? "not synced yet"}`,
          }
        }
        return reflector.store
      })

    yield* crds.waitForSync
    const crdList = () => crds.store.list()

    const external = (ref: { readonly apiGroup: string; readonly kind: string }) => {
      const resource = resolveContract(crdList(), ref)
      return "error" in resource ? Effect.succeed(resource) : storeFor(resource)
    }
    const descendantResource = (kind: DescendantKind): ResourceRef | undefined => {
      const crd = crds.store.get({ name: `${DESCENDANT_PLURALS[kind]}.cluster.x-k8s.io` })
      return crd === undefined ? undefined : crdResource(crd)
    }
    const descendants = (kind: DescendantKind) => {
      const resource = descendantResource(kind)
      return resource === undefined
        ? Effect.succeed(undefined)
        : Effect.map(storeFor(resource), (s) => ("error" in s ? undefined : s))
    }
    const resolve = (ref: { readonly apiGroup: string; readonly kind: string }) => {
      if (ref.apiGroup === "cluster.x-k8s.io" && ref.kind in DESCENDANT_PLURALS) {
        const r = descendantResource(ref.kind as DescendantKind)
        return Effect.succeed(r ?? { error: `no CustomResourceDefinition for ${ref.kind}` })
      }
      return Effect.succeed(resolveContract(crdList(), ref))
    }

    /** Live reads that confirm a store's miss while a Cluster is deleting (observe.ts). */
    const confirm = {
      external: (
        ref: { readonly apiGroup: string; readonly kind: string },
        key: { readonly namespace: string; readonly name: string },
      ): Effect.Effect<Fetched<KubeObject>> => {
        const resource = resolveContract(crdList(), ref)
        return "error" in resource
          ? Effect.succeed({ _tag: "GetFailed", error: resource.error })
          : fetchedOf<KubeObject>(client.get(resource, key))
      },
      descendants: (kind: DescendantKind, cluster: { readonly namespace: string; readonly name: string }) => {
        const resource = descendantResource(kind)
        return resource === undefined
          ? Effect.succeed<ReadonlyArray<KubeObject>>([])
          : client
              .listAll(resource, {
                namespace: cluster.namespace,
                labelSelector: `${ClusterNameLabel}=${cluster.name}`,
              })
              .pipe(
                Effect.map((l): ReadonlyArray<KubeObject> | { readonly error: string } => l.items),
                Effect.catch((e) => Effect.succeed({ error: e.message })),
              )
      },
    }

    const ctx = {
      client,
      clusters: clusters.store,
      secrets: options.secrets,
      featureGates,
      external,
      descendants,
      confirm,
      lastProbeSuccessTime: (key: { readonly namespace: string; readonly name: string }) =>
        Effect.map(cache.getHealthCheckingState(key), (s) => s.lastProbeSuccessTime),
      healthCheckingState: (key: { readonly namespace: string; readonly name: string }) =>
        cache.getHealthCheckingState(key),
    }

    function reconcileOne(key: { readonly namespace: string; readonly name: string }) {
      return Effect.gen(function* () {
        const { observed, desired, object } = yield* observe(ctx, key)
        const now = yield* Clock.currentTimeMillis
        let decided = coreReconcile({ observed, desired, trigger: { _tag: "Reconcile" }, now }, config)
        const rowOf = () =>
          decided.trace.deleting
            ? rowId(DELETION, deletionRow(decided.trace))
            : rowId(NORMAL, normalRow(decided.trace))
        let row = rowOf()
        const ictx = { client, resolve, external, cluster: object, component: "krtt-cluster-controller" }
        let outcome = yield* interpret(ictx, decided.actions)
        if (outcome._tag === "Failed") {
          yield* Effect.logWarning("an action failed").pipe(
            Effect.annotateLogs({ action: outcome.failure.action._tag, error: outcome.failure.error, row }),
          )
          const trigger = {
            _tag: "ActionFailed" as const,
            action: outcome.failure.action,
            error: outcome.failure.error,
            ...(outcome.failure.notFound === true ? { notFound: true } : {}),
          }
          decided = coreReconcile({ observed, desired, trigger, now: yield* Clock.currentTimeMillis }, config)
          row = rowOf()
          const after = yield* interpret(ictx, decided.actions)
          // A missing cluster CA requeues (derived row cluster.normal#18); any other failure ends
          // in its error once the status is patched.
          outcome =
            after._tag === "Done" && after.requeueAfter === undefined
              ? { _tag: "Error", error: outcome.failure.error }
              : after
        }
        yield* Effect.logDebug("cluster reconciled").pipe(
          Effect.annotateLogs({ row, phase: decided.status?.phase ?? "" }),
        )
        switch (outcome._tag) {
          case "Done":
            return outcome.requeueAfter === undefined ? done(row) : requeueAfter(outcome.requeueAfter, row)
          case "Error":
            return yield* new ClusterReconcileError({ message: outcome.error, row })
          case "Failed":
            return yield* new ClusterReconcileError({ message: outcome.failure.error, row })
        }
      })
    }

    yield* controller.watch(Source.kind(clusters, enqueueRequestForObject()))
    const period = options.syncPeriod ?? 0
    if (period > 0)
      yield* controller.watch({
        description: "sync period",
        start: (enqueue) =>
          Effect.asVoid(
            Effect.forkScoped(
              Effect.forever(
                Effect.andThen(
                  Effect.sleep(period),
                  Effect.forEach(
                    clusters.store.list(),
                    (o) =>
                      enqueue(
                        makeRequest({ namespace: o.metadata.namespace ?? "", name: o.metadata.name ?? "" }),
                      ),
                    { discard: true },
                  ),
                ),
              ),
            ),
          ),
      })
    const events = yield* cache.clusterSource("cluster", {
      probeFailureDurations: [config.remoteConnectionGracePeriod],
    })
    yield* controller.watch(
      Source.channel(
        Stream.map(events, (k) => makeRequest(k)),
        "ClusterCache events",
      ),
    )
    return { start: controller.start }
  })
