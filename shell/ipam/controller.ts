/**
 * The IPAM Cluster controller (seed 004, "The Cluster Controller"): watches openmcp Clusters and
 * the ClusterConfigs it manages, and creates ClusterConfigs that inject CIDRs, deciding through
 * core/ipam (`ipam.trigger`, `ipam.reconcile`, `validateIpamConfig`, `restoreIpam`) and only
 * carrying out what those decide. This module wires the parts together.
 *
 * # Expected flow
 * Reflectors for Clusters, ClusterConfigs (label `openmcp.cloud/managed-purpose=gardener-ipam`)
 * and the IPAMConfig named by `--config` sync; the config is taken in (configIntake.ts); the
 * allocator state is restored from the API server (refresh.ts); then every watch event goes
 * through `triggerTransition` (observe.ts maps it), whose `Enqueue` actions feed the work queue,
 * and `Started` enqueues every matching Cluster. A reconcile reads the Cluster and its
 * ClusterConfigs fresh (observe.ts) and runs the reconcile table (table.ts) with `runTable`:
 * first for the ClusterConfigs of an earlier Cluster of the same name, if any, then for the
 * Cluster; `reconcileResult` makes the run the reconcile's result, with the deciding row. Every
 * `internalStateRefreshCycleDuration` the state is rebuilt and `StateRefreshed` enqueues the
 * matching Clusters again.
 *
 * # Guarantees
 * - A config change is validated first: an invalid one gets `Valid=False` with the field and an
 *   Event naming it, and the last valid config stays in force.
 * - CIDRs are released only by `ipam.reconcile#1` (the Cluster is gone), after the finalizer of
 *   the ClusterConfig holding them was removed.
 * - ClusterConfigs of an earlier Cluster of the same name (their controller owner reference has
 *   another uid) are released through the same row: that Cluster is gone.
 * - A ClusterConfig listed with a deletion timestamp (set while the controller was down) counts
 *   as that timestamp arriving (ipam.trigger#5): a Cluster deleted during a restart is released.
 * - A reconcile whose write was refused fails with `IpamReconcileError` naming the deciding row;
 *   a Cluster waiting for CIDRs (`ipam.reconcile#7`) is retried with the rate limiter, and at
 *   once when a release frees some (`ipam.trigger#20`).
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import {
  type IpamConfigSpec,
  type IpamEvent,
  MANAGED_PURPOSE,
  MANAGED_PURPOSE_LABEL,
  triggerTransition,
} from "../../core/ipam/index.ts"
import type { TableLoopError } from "../../core/krtt/run.ts"
import { type Controller, make as makeController } from "../controller/controller.ts"
import { type ReconcileResult, requeue } from "../controller/result.ts"
import { reconcileResult, runTable } from "../controller/table.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import type { KubeObject } from "../kube/resource.ts"
import { make as makeReflector, type Reflector } from "../reflector/reflector.ts"
import { HubCluster, makeRequest, type Request } from "../workqueue/request.ts"
import { type ConfigIntake, takeConfig } from "./configIntake.ts"
import type { IpamControllerOptions } from "./defaults.ts"
import { IpamReconcileError } from "./errors.ts"
import { recordDecision } from "./metrics.ts"
import { clusterConfigEvent, clusterEvent, observeCluster } from "./observe.ts"
import { refreshCycles, refreshState } from "./refresh.ts"
import {
  ClusterConfigResource,
  clusterView,
  IpamConfigResource,
  OpenmcpClusterResource,
} from "./resources.ts"
import { type IpamStore, makeIpamStore } from "./state.ts"
import { makeReconcileTable, type ReconcileDeps, type ReconcileRun } from "./table.ts"

export { IpamControllerDefaults, type IpamControllerOptions } from "./defaults.ts"

/** A running IPAM controller. */
export interface IpamController {
  readonly controller: Controller<never>
  readonly store: IpamStore
  /** Whether the reflectors have synced and the state was restored. */
  readonly ready: Effect.Effect<boolean>
  /** The last valid config (undefined before one is known). */
  readonly config: Effect.Effect<IpamConfigSpec | undefined>
  /** Rebuilds the allocator state from the API server now (as a refresh cycle does). */
  readonly refresh: Effect.Effect<void, KubeError>
}

/** Clusters whose last reconcile found a parent exhausted, by `namespace/name`. */
type Waiting = ReadonlyMap<string, { readonly namespace: string; readonly name: string }>

/** What a reconcile shares with the rest of the controller. */
interface ReconcileContext extends ReconcileDeps {
  readonly configRef: Ref.Ref<IpamConfigSpec | undefined>
  readonly waitingRef: Ref.Ref<Waiting>
  /** Each release of CIDRs, for the trigger table (ipam.trigger#20) once the workers run. */
  readonly releases: Queue.Queue<void>
}

/** One reconcile: observe, run the table for an earlier Cluster's ClusterConfigs and for the Cluster. */
const reconcileCluster = (
  ctx: ReconcileContext,
  request: Request,
): Effect.Effect<ReconcileResult, KubeError | IpamReconcileError | TableLoopError> =>
  Effect.gen(function* () {
    const key = { namespace: request.namespace, name: request.name }
    const observed = yield* observeCluster(ctx.client, key)
    const config = yield* Ref.get(ctx.configRef)
    const toError = (refused: IpamReconcileError["refused"], row: string) =>
      new IpamReconcileError({ row, refused })
    const runFor = (cluster: KubeObject | undefined, objects: ReadonlyArray<KubeObject>) =>
      Effect.gen(function* () {
        const t = makeReconcileTable(ctx, config, key, cluster, objects)
        const run: ReconcileRun = yield* runTable(t.table, { _tag: "Reconcile", ...key })
        yield* t.settle(run)
        return run
      })
    // An earlier Cluster of this name is gone: its ClusterConfigs are released (ipam.reconcile#1).
    const before = observed.earlier.length > 0 ? yield* runFor(undefined, observed.earlier) : undefined
    if (before !== undefined) yield* reconcileResult(before, toError)
    const run = yield* runFor(observed.cluster, observed.current)
    const result = yield* reconcileResult(run, toError)
    const status = run.last.status
    yield* Ref.update(ctx.waitingRef, (m) => {
      const next = new Map(m)
      if (status.waiting) next.set(`${key.namespace}/${key.name}`, key)
      else next.delete(`${key.namespace}/${key.name}`)
      return next
    })
    if ([before, run].some((r) => r !== undefined && r.last.status.released.length > 0))
      yield* Queue.offer(ctx.releases, undefined)
    // Waiting for CIDRs: tried again with the controller's rate limiter, as upstream's error is.
    return status.waiting ? requeue(result.row) : result
  })

/** Runs the trigger table for an event and enqueues what it says. */
const runTrigger = (
  ctx: ReconcileContext,
  clusters: Reflector<KubeObject>,
  controller: Controller<never>,
  event: IpamEvent,
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const needsClusters =
      event._tag === "Started" || event._tag === "StateRefreshed" || event._tag === "ConfigChanged"
    const decision = triggerTransition({
      observed: {
        config: yield* Ref.get(ctx.configRef),
        clusters: needsClusters ? clusters.store.list().map(clusterView) : [],
        waiting: event._tag === "CidrsReleased" ? [...(yield* Ref.get(ctx.waitingRef)).values()] : [],
      },
      desired: ctx.identity,
      trigger: event,
      now: yield* Clock.currentTimeMillis,
    })
    yield* recordDecision(decision.row)
    yield* Effect.forEach(
      decision.actions,
      (a) => controller.enqueue(makeRequest({ namespace: a.namespace, name: a.name }, HubCluster)),
      { discard: true },
    )
  })

/** Builds the controller: reflectors, config handling, trigger sources, the reconcile; `start` it in a scope. */
export const makeIpamController = (
  client: KubeClientShape,
  options: IpamControllerOptions,
): Effect.Effect<
  { readonly controller: IpamController; readonly start: Effect.Effect<void, KubeError, Scope.Scope> },
  never,
  Scope.Scope
> =>
  Effect.gen(function* () {
    const store = yield* makeIpamStore()
    const ctx: ReconcileContext = {
      client,
      store,
      identity: options.identity,
      component: options.component,
      configRef: yield* Ref.make<IpamConfigSpec | undefined>(undefined),
      waitingRef: yield* Ref.make<Waiting>(new Map()),
      releases: yield* Queue.unbounded<void>(),
    }
    const readyRef = yield* Ref.make(false)
    const clusters = yield* makeReflector(client, {
      resource: OpenmcpClusterResource,
      name: "openmcp-clusters",
    })
    const clusterConfigs = yield* makeReflector(client, {
      resource: ClusterConfigResource,
      name: "ipam-clusterconfigs",
      labelSelector: `${MANAGED_PURPOSE_LABEL}=${MANAGED_PURPOSE}`,
    })
    const configs = yield* makeReflector(client, {
      resource: IpamConfigResource,
      name: "ipamconfig",
      fieldSelector: `metadata.name=${options.config}`,
    })
    const controller = yield* makeController({
      name: "ipam",
      reconcile: (request: Request) => reconcileCluster(ctx, request),
      maxConcurrentReconciles: options.concurrency,
      gracefulShutdownTimeout: options.gracefulShutdownTimeout,
    })
    const trigger = (event: IpamEvent) => runTrigger(ctx, clusters, controller, event)
    const intake: ConfigIntake = { ...ctx, name: options.config, trigger }
    const refresh = refreshState(client, store, ctx.configRef, options.identity)

    const start: Effect.Effect<void, KubeError, Scope.Scope> = Effect.gen(function* () {
      yield* Effect.all([clusters.waitForSync, clusterConfigs.waitForSync, configs.waitForSync], {
        discard: true,
      })
      yield* takeConfig(intake, configs.store.list()[0])
      yield* refresh
      // Config events go through a queue: reflector handlers stay short.
      const pending = yield* Queue.unbounded<KubeObject | undefined>()
      yield* configs.subscribe((e) =>
        Effect.asVoid(Queue.offer(pending, e._tag === "Deleted" ? undefined : e.object)),
      )
      yield* Effect.forkScoped(
        Effect.forever(Effect.flatMap(Queue.take(pending), (o) => takeConfig(intake, o))),
      )
      yield* clusters.subscribe((e) => trigger(clusterEvent(e)))
      yield* clusterConfigs.subscribe((e) => trigger(clusterConfigEvent(e)))
      yield* controller.start
      yield* Effect.forkScoped(
        Effect.forever(Effect.andThen(Queue.take(ctx.releases), trigger({ _tag: "CidrsReleased" }))),
      )
      yield* trigger({ _tag: "Started" })
      yield* Ref.set(readyRef, true)
      yield* Effect.forkScoped(refreshCycles(refresh, ctx.configRef, trigger))
    })

    return {
      controller: { controller, store, ready: Ref.get(readyRef), config: Ref.get(ctx.configRef), refresh },
      start,
    }
  })
