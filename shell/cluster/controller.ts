/**
 * The Cluster controller (seed 001) on the shell: watches Clusters, the infrastructure and
 * control-plane objects they reference (any kind whose CRD carries the contract label), their
 * descendants (Machine, MachineDeployment, MachineSet, MachinePool where installed) and the
 * ClusterCache's connect/disconnect/probe-failure events; each reconcile is one run of its
 * table (shell/controller/table.ts).
 *
 * Expected flow: observe (observe.ts) → the core decides (core/cluster's `reconcile`, with the
 * governing row) → each action is carried out (interpret.ts); when the API server refuses one,
 * the runner asks the core once more with `ActionFailed` and its typed failure (Error Handling
 * rows), and the run ends in that failure unless the answer asked for a requeue: a missing
 * cluster CA requeues (Error Handling derived row 11); any other failure ends in its error once
 * the status is patched. A `ReturnError` action ends the reconcile with `ClusterReconcileError`,
 * naming the row that decided it.
 *
 * @module
 */

import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { ClusterAction } from "../../core/cluster/actions.ts"
import { type ClusterControllerConfig, ClusterControllerDefaults } from "../../core/cluster/config.ts"
import { ClusterNameLabel } from "../../core/cluster/contract.ts"
import type { ActionFailure } from "../../core/cluster/failure.ts"
import { reconcile } from "../../core/cluster/reconcile.ts"
import type { ClusterResult } from "../../core/cluster/transitions.ts"
import type { ClusterStatus, ClusterTrigger, FeatureGates } from "../../core/cluster/types.ts"
import type { ClusterCacheShape } from "../clustercache/service.ts"
import { make as makeController } from "../controller/controller.ts"
import { enqueueRequestForObject, enqueueRequestsFromMapFunc } from "../controller/handler.ts"
import * as Source from "../controller/source.ts"
import { reconcileResult, runTable, type Table } from "../controller/table.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { CustomResourceDefinition } from "../kube/discovery.ts"
import { type KubeObject, parseApiVersion, Resources } from "../kube/resource.ts"
import { make as makeReflector, type Reflector } from "../reflector/reflector.ts"
import type { ReadonlyStore } from "../reflector/store.ts"
import { makeRequest } from "../workqueue/request.ts"
import { type InterpretContext, makeRun } from "./interpret.ts"
import { makeKinds } from "./kinds.ts"
import { type ObserveContext, observe } from "./observe.ts"

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
  /** The row that decided the error. */
  readonly row: string
  /** The refused action's failure, when the reconcile ends in one. */
  readonly failure?: ActionFailure | undefined
}> {}

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

/** Every Cluster of `clusters`, again every `period` ms (upstream's `--sync-period`). */
const syncPeriodSource = (clusters: Reflector<KubeObject>, period: number): Source.Source => ({
  description: "sync period",
  start: (enqueue) => {
    const all = Effect.forEach(
      clusters.store.list(),
      (o) => enqueue(makeRequest({ namespace: o.metadata.namespace ?? "", name: o.metadata.name ?? "" })),
      { discard: true },
    )
    return Effect.asVoid(Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(period), all))))
  },
})

/** The Cluster controller's table for one reconcile: a run has the first answer and one after a refusal. */
type ClusterTable = Table<
  ClusterTrigger,
  ClusterAction,
  ClusterStatus | undefined,
  ActionFailure,
  ClusterReconcileError,
  never
>

/** What a reconcile reads and writes with. */
interface ReconcileEnv {
  readonly observe: ObserveContext
  readonly interpret: Omit<InterpretContext, "cluster">
  readonly config: ClusterControllerConfig
}

/** One reconcile of one Cluster: one run of its table, observed once. */
const reconcileCluster = (env: ReconcileEnv, key: { readonly namespace: string; readonly name: string }) =>
  Effect.gen(function* () {
    const { observed, desired, object } = yield* observe(env.observe, key)
    let last: ClusterResult | undefined
    const run = makeRun({ ...env.interpret, cluster: object })
    const table: ClusterTable = {
      table: "cluster",
      maxTransitions: 2,
      decide: (trigger) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          last = reconcile({ observed, desired, trigger, now }, env.config)
          return last
        }),
      run: (action, decided) =>
        action._tag === "ReturnError"
          ? Effect.fail(new ClusterReconcileError({ message: action.error, row: decided.row }))
          : run(action, decided),
    }
    return yield* runTable(table, { _tag: "Reconcile" }).pipe(
      Effect.flatMap((ran) =>
        reconcileResult(
          ran,
          (failure, row) => new ClusterReconcileError({ message: failure.message, row, failure }),
        ),
      ),
      Effect.ensuring(
        Effect.suspend(() =>
          Effect.logDebug("cluster reconciled").pipe(
            Effect.annotateLogs({ row: last?.row ?? "", phase: last?.status?.phase ?? "" }),
          ),
        ),
      ),
    )
  })

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
    const crds = yield* makeReflector<CustomResourceDefinition>(client, {
      resource: Resources.customResourceDefinitions,
      name: "crds",
    })
    const controller = yield* makeController({
      name: "cluster",
      forKind: { group: "cluster.x-k8s.io", kind: "Cluster" },
      maxConcurrentReconciles: options.concurrency,
      reconcile: (request) => reconcileCluster(env, { namespace: request.namespace, name: request.name }),
    })
    const kinds = yield* makeKinds({
      client,
      crds,
      syncTimeout: options.syncTimeout ?? 30_000,
      watch: (r, resource) =>
        controller.watch(Source.kind(r, enqueueRequestsFromMapFunc(owningClusters, resource.kind))),
    })
    yield* crds.waitForSync
    const env: ReconcileEnv = {
      config,
      observe: {
        client,
        clusters: clusters.store,
        secrets: options.secrets,
        featureGates,
        external: kinds.external,
        descendants: kinds.descendants,
        confirm: kinds.confirm,
        lastProbeSuccessTime: (key) =>
          Effect.map(cache.getHealthCheckingState(key), (s) => s.lastProbeSuccessTime),
        healthCheckingState: (key) => cache.getHealthCheckingState(key),
      },
      interpret: {
        client,
        resolve: kinds.resolve,
        external: kinds.external,
        component: "krtt-cluster-controller",
      },
    }

    yield* controller.watch(Source.kind(clusters, enqueueRequestForObject()))
    const period = options.syncPeriod ?? 0
    if (period > 0) yield* controller.watch(syncPeriodSource(clusters, period))
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
