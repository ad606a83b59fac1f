/**
 * The IPAM Cluster controller (seed 004, "The Cluster Controller"): watches openmcp Clusters and
 * the ClusterConfigs it manages, and creates ClusterConfigs that inject CIDRs, deciding through
 * core/ipam (`ipam.trigger`, `ipam.reconcile`, `validateIpamConfig`, `restoreIpam`) and only
 * interpreting what those decide.
 *
 * # Expected flow
 * Reflectors for Clusters, ClusterConfigs (label `openmcp.cloud/managed-purpose=gardener-ipam`)
 * and the IPAMConfig named by `--config` sync; the config is validated; the allocator state is
 * restored from the API server (`restoreIpam`); then every watch event goes through
 * `triggerTransition`, whose `Enqueue` actions feed the work queue, and `Started` enqueues every
 * matching Cluster. A reconcile reads the Cluster and its ClusterConfigs fresh from the API server
 * (a cache could still miss the previous reconcile's writes), decides with `reconcileCluster`
 * against the allocator under its lock (`IpamStore.decide`), and performs the actions.
 * Every `internalStateRefreshCycleDuration` the state is rebuilt and `StateRefreshed` enqueues the
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
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import {
  CIDRS_ALLOCATED_CONDITION,
  CLUSTER_TARGET_LABEL,
  type ClusterConfigView,
  CONFIG_VALID_CONDITION,
  type ControllerIdentity,
  type IpamCondition,
  type IpamConfigSpec,
  type IpamEvent,
  type ReconcileResult as IpamReconcileResult,
  MANAGED_PURPOSE,
  MANAGED_PURPOSE_LABEL,
  reconcileCluster,
  restoreIpam,
  triggerTransition,
  validateIpamConfig,
} from "../../core/ipam/index.ts"
import { type Controller, make as makeController } from "../controller/controller.ts"
import { done, type ReconcileResult, requeue } from "../controller/result.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { make as makeReflector, type ReflectorEvent } from "../reflector/reflector.ts"
import { HubCluster, makeRequest, type Request } from "../workqueue/request.ts"
import { interpret } from "./interpret.ts"
import { recordDecision, recordUsage, stateRestores } from "./metrics.ts"
import {
  ClusterConfigResource,
  clusterConfigView,
  clusterView,
  IpamConfigResource,
  OpenmcpClusterResource,
} from "./resources.ts"
import { type IpamStore, makeIpamStore } from "./state.ts"

/** The controller's options; documented defaults in `IpamControllerDefaults`. */
export interface IpamControllerOptions {
  /** Name of the IPAMConfig to follow (`--config`). */
  readonly config: string
  readonly identity: ControllerIdentity
  /** Workers (`--concurrency`). */
  readonly concurrency: number
  readonly gracefulShutdownTimeout: number
  /** The component name on Events. */
  readonly component: string
}

/** The controller's defaults: concurrency, the names it reports under, and its status retries. */
export const IpamControllerDefaults = {
  concurrency: 10,
  environment: "default",
  component: "krtt-ipam",
  /**
   * A refused IPAMConfig status write is tried again this many times, after 1 s, doubling up to
   * 30 s, so that a transient error does not leave the Valid condition unwritten until the next change.
   */
  configStatusRetries: 10,
  configStatusRetryBase: 1_000,
  configStatusRetryMax: 30_000,
} as const

const configStatusRetry = Schedule.min([
  Schedule.exponential(IpamControllerDefaults.configStatusRetryBase),
  Schedule.spaced(IpamControllerDefaults.configStatusRetryMax),
]).pipe(Schedule.upTo({ times: IpamControllerDefaults.configStatusRetries }))

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

const record = (d: { readonly row: string }) => recordDecision(d.row)

/** A ClusterConfig's controller owner reference of kind Cluster names another uid than the live Cluster's. */
const fromEarlierCluster = (cc: KubeObject, uid: string | undefined): boolean =>
  uid !== undefined &&
  (cc.metadata.ownerReferences ?? []).some(
    (r) => r.controller === true && r.kind === "Cluster" && r.uid !== uid,
  )

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
    const who = options.identity
    const store = yield* makeIpamStore()
    const configRef = yield* Ref.make<IpamConfigSpec | undefined>(undefined)
    const readyRef = yield* Ref.make(false)
    /** Each release of CIDRs, for the trigger table (ipam.trigger#20) once the workers run. */
    const releases = yield* Queue.unbounded<void>()
    /** Clusters whose last reconcile found a parent exhausted, by `namespace/name`. */
    const waitingRef = yield* Ref.make<ReadonlyMap<string, { namespace: string; name: string }>>(new Map())
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

    const reconcile = (request: Request): Effect.Effect<ReconcileResult, Error> =>
      Effect.gen(function* () {
        const key = { namespace: request.namespace, name: request.name }
        const cluster = yield* client
          .get(OpenmcpClusterResource, key)
          .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
        const list = yield* client.listAll(ClusterConfigResource, {
          namespace: request.namespace,
          labelSelector: `${MANAGED_PURPOSE_LABEL}=${MANAGED_PURPOSE},${CLUSTER_TARGET_LABEL}=${request.name}`,
        })
        const earlier = list.items.filter((cc) => fromEarlierCluster(cc, cluster?.metadata.uid))
        const current = list.items.filter((cc) => !earlier.includes(cc))
        const config = yield* Ref.get(configRef)
        const trigger = { _tag: "Reconcile" as const, ...key }
        const run = (observedCluster: KubeObject | undefined, objects: ReadonlyArray<KubeObject>) =>
          Effect.gen(function* () {
            const { result, ticket } = yield* store.decide(
              (ipam): IpamReconcileResult =>
                reconcileCluster({
                  observed: {
                    cluster: observedCluster === undefined ? undefined : clusterView(observedCluster),
                    clusterConfigs: objects.map(clusterConfigView),
                  },
                  desired: { config, identity: who },
                  trigger,
                  ipam,
                }),
              (r) => r.status.acquired,
            )
            yield* record(result)
            const outcome = yield* interpret(
              {
                client,
                cluster: observedCluster,
                clusterConfigs: new Map(objects.map((o) => [o.metadata.name ?? "", o])),
                release: store.release,
                component: options.component,
              },
              result.actions,
            )
            yield* store.settle(ticket, ticket.acquired.length === 0 || outcome.recorded)
            yield* Effect.flatMap(store.usage, recordUsage)
            if (outcome.failed !== undefined)
              return yield* Effect.fail(
                new Error(`${result.row}: ${outcome.failed.error._tag}: ${outcome.failed.error.message}`),
              )
            // On the version the last write returned: the one read is stale once annotated.
            if (outcome.cluster !== undefined && result.status.conditions.length > 0)
              yield* setClusterConditions(client, outcome.cluster, result.status.conditions)
            return result
          })
        // An earlier Cluster of this name is gone: its ClusterConfigs are released (ipam.reconcile#1).
        const before = earlier.length > 0 ? yield* run(undefined, earlier) : undefined
        const result = yield* run(cluster, current)
        yield* Ref.update(waitingRef, (m) => {
          const next = new Map(m)
          if (result.status.waiting) next.set(`${key.namespace}/${key.name}`, key)
          else next.delete(`${key.namespace}/${key.name}`)
          return next
        })
        if ([before, result].some((r) => r !== undefined && r.status.released.length > 0))
          yield* Queue.offer(releases, undefined)
        // Waiting for CIDRs: tried again with the controller's rate limiter, as upstream's error is.
        return result.status.waiting ? requeue(result.row) : done(result.row)
      }).pipe(
        Effect.mapError(
          (e): Error =>
            "_tag" in e && typeof e._tag === "string" ? new Error(`${e._tag}: ${e.message}`) : e,
        ),
      )

    const controller = yield* makeController({
      name: "ipam",
      reconcile,
      maxConcurrentReconciles: options.concurrency,
      gracefulShutdownTimeout: options.gracefulShutdownTimeout,
    })

    /** Runs the trigger table for an event and enqueues what it says. */
    const trigger = (event: IpamEvent): Effect.Effect<void> =>
      Effect.gen(function* () {
        const config = yield* Ref.get(configRef)
        const needsClusters =
          event._tag === "Started" || event._tag === "StateRefreshed" || event._tag === "ConfigChanged"
        const decision = triggerTransition({
          observed: {
            config,
            clusters: needsClusters ? clusters.store.list().map(clusterView) : [],
            waiting: event._tag === "CidrsReleased" ? [...(yield* Ref.get(waitingRef)).values()] : [],
          },
          desired: who,
          trigger: event,
          now: yield* Clock.currentTimeMillis,
        })
        yield* record(decision)
        yield* Effect.forEach(
          decision.actions,
          (a) => controller.enqueue(makeRequest({ namespace: a.namespace, name: a.name }, HubCluster)),
          { discard: true },
        )
      })

    const clusterEvent = (e: ReflectorEvent<KubeObject>): IpamEvent =>
      e._tag === "Added"
        ? { _tag: "ClusterCreated", cluster: clusterView(e.object) }
        : e._tag === "Deleted"
          ? { _tag: "ClusterDeleted", cluster: clusterView(e.object) }
          : { _tag: "ClusterUpdated", old: clusterView(e.old), cluster: clusterView(e.object) }
    /**
     * A ClusterConfig first seen with its deletion timestamp already set (the list after a
     * restart, when the garbage collector took it while the controller was down) is the news of
     * that timestamp, which the watch would otherwise have brought as an update: it is handed to
     * the trigger table as one (ipam.trigger#5), so the gone Cluster's CIDRs are released.
     */
    const clusterConfigEvent = (e: ReflectorEvent<KubeObject>): IpamEvent => {
      const view = (o: KubeObject): ClusterConfigView => clusterConfigView(o)
      if (e._tag === "Added" && e.object.metadata.deletionTimestamp !== undefined) {
        const cc = view(e.object)
        return {
          _tag: "ClusterConfigUpdated",
          old: { ...cc, deletionTimestamp: undefined },
          clusterConfig: cc,
        }
      }
      return e._tag === "Added"
        ? { _tag: "ClusterConfigCreated", clusterConfig: view(e.object) }
        : e._tag === "Deleted"
          ? { _tag: "ClusterConfigDeleted", clusterConfig: view(e.object) }
          : { _tag: "ClusterConfigUpdated", old: view(e.old), clusterConfig: view(e.object) }
    }

    /** Validates the IPAMConfig; a valid one replaces the last, an invalid one is refused with its field. */
    const takeConfig = (object: KubeObject | undefined): Effect.Effect<void> =>
      Effect.gen(function* () {
        if (object === undefined) {
          const had = yield* Ref.get(configRef)
          if (had !== undefined)
            yield* Effect.logWarning(
              "the IPAMConfig was deleted: nothing is reconciled until it is back",
            ).pipe(Effect.annotateLogs({ config: options.config }))
          yield* Ref.set(configRef, undefined)
          return
        }
        const validated = validateIpamConfig({ spec: object.spec ?? {} })
        const now = new Date(yield* Clock.currentTimeMillis).toISOString()
        if ("errors" in validated) {
          const first = validated.errors[0]
          const message = validated.errors.map((e) => `${e.path}: ${e.message}`).join("; ")
          yield* Effect.logError("the IPAMConfig is invalid; keeping the last valid one").pipe(
            Effect.annotateLogs({ config: options.config, field: first?.path ?? "spec", error: message }),
          )
          yield* writeConfigStatus(
            client,
            object,
            {
              type: CONFIG_VALID_CONDITION,
              status: "False",
              reason: "Invalid",
              message,
            },
            now,
          )
          yield* configEvent(
            client,
            object,
            options.component,
            "Warning",
            "InvalidConfig",
            `${message}; the last valid config stays in force`,
            now,
          )
          return
        }
        const old = yield* Ref.get(configRef)
        yield* Ref.set(configRef, validated.config)
        yield* store.reconfigure(validated.config)
        yield* Effect.flatMap(store.usage, recordUsage)
        yield* writeConfigStatus(
          client,
          object,
          {
            type: CONFIG_VALID_CONDITION,
            status: "True",
            reason: "Valid",
            message: "the config is in force",
          },
          now,
        )
        yield* trigger({ _tag: "ConfigChanged", old })
      })

    const refresh: Effect.Effect<void, KubeError> = Effect.gen(function* () {
      const since = yield* store.beginRestore
      const [cs, ccs] = yield* Effect.all(
        [
          client.listAll(OpenmcpClusterResource),
          client.listAll(ClusterConfigResource, {
            labelSelector: `${MANAGED_PURPOSE_LABEL}=${MANAGED_PURPOSE}`,
          }),
        ],
        { concurrency: 2 },
      ).pipe(Effect.onError(() => store.abortRestore))
      const restored = restoreIpam({
        config: yield* Ref.get(configRef),
        clusters: cs.items.map(clusterView),
        clusterConfigs: ccs.items.map(clusterConfigView),
        identity: who,
      })
      const conflicts = yield* store.completeRestore(since, restored.ipam)
      for (const c of [
        ...restored.conflicts.map((x) => `${x.cidr} of ${x.cluster} (${x.rule}) overlaps ${x.with}`),
        ...conflicts,
      ])
        yield* Effect.logError("a CIDR of the cluster state overlaps another; it is not restored").pipe(
          Effect.annotateLogs({ conflict: c }),
        )
      for (const u of restored.unreadable)
        yield* Effect.logWarning("unreadable applied-rules annotation").pipe(
          Effect.annotateLogs({ cluster: u }),
        )
      yield* Metric.update(stateRestores, 1)
      yield* Effect.flatMap(store.usage, recordUsage)
    })

    const start: Effect.Effect<void, KubeError, Scope.Scope> = Effect.gen(function* () {
      yield* Effect.all([clusters.waitForSync, clusterConfigs.waitForSync, configs.waitForSync], {
        discard: true,
      })
      yield* takeConfig(configs.store.list()[0])
      yield* refresh
      // Config events go through a queue: reflector handlers stay short.
      const pending = yield* Queue.unbounded<KubeObject | undefined>()
      yield* configs.subscribe((e) =>
        Effect.asVoid(Queue.offer(pending, e._tag === "Deleted" ? undefined : e.object)),
      )
      yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(pending), takeConfig)))
      yield* clusters.subscribe((e) => trigger(clusterEvent(e)))
      yield* clusterConfigs.subscribe((e) => trigger(clusterConfigEvent(e)))
      yield* controller.start
      yield* Effect.forkScoped(
        Effect.forever(Effect.andThen(Queue.take(releases), trigger({ _tag: "CidrsReleased" }))),
      )
      yield* trigger({ _tag: "Started" })
      yield* Ref.set(readyRef, true)
      // Refresh cycles: internalStateRefreshCycleDuration of the config in force (0: none).
      yield* Effect.forkScoped(
        Effect.forever(
          Effect.gen(function* () {
            const cycle = (yield* Ref.get(configRef))?.internalStateRefreshCycleDuration ?? 0
            if (cycle <= 0) return yield* Effect.sleep("1 second")
            yield* Effect.sleep(cycle)
            if (((yield* Ref.get(configRef))?.internalStateRefreshCycleDuration ?? 0) <= 0) return
            yield* refresh.pipe(
              Effect.andThen(trigger({ _tag: "StateRefreshed" })),
              Effect.catch((e: KubeError) =>
                Effect.logError("the state refresh failed; trying again next cycle").pipe(
                  Effect.annotateLogs({ error: `${e._tag}: ${e.message}` }),
                ),
              ),
            )
          }),
        ),
      )
    })

    return {
      controller: {
        controller,
        store,
        ready: Ref.get(readyRef),
        config: Ref.get(configRef),
        refresh,
      },
      start,
    }
  })

// ---------------------------------------------------------------------------------------------
// Status and Events of the IPAMConfig, conditions of Clusters

interface Condition {
  readonly type: string
  readonly status: string
  readonly reason: string
  readonly message: string
  readonly lastTransitionTime?: string | undefined
  readonly observedGeneration?: number | undefined
}

/** The conditions with `c` set; the transition time moves only when the status changes. */
const withCondition = (
  existing: ReadonlyArray<Condition>,
  c: IpamCondition,
  now: string,
  generation: number | undefined,
): ReadonlyArray<Condition> => {
  const before = existing.find((x) => x.type === c.type)
  const next: Condition = {
    ...c,
    lastTransitionTime: before !== undefined && before.status === c.status ? before.lastTransitionTime : now,
    ...(generation === undefined ? {} : { observedGeneration: generation }),
  }
  return [...existing.filter((x) => x.type !== c.type), next]
}

const conditionsOf = (o: KubeObject): ReadonlyArray<Condition> =>
  ((o.status as { conditions?: ReadonlyArray<Condition> } | undefined)?.conditions ??
    []) as ReadonlyArray<Condition>

const writeConfigStatus = (client: KubeClientShape, object: KubeObject, c: IpamCondition, now: string) => {
  const before = conditionsOf(object).find((x) => x.type === c.type)
  const generation = object.metadata.generation
  const observed = (object.status as { observedGeneration?: number } | undefined)?.observedGeneration
  if (before?.status === c.status && before.message === c.message && observed === generation)
    return Effect.void
  return client
    .patchStatus(
      IpamConfigResource,
      { name: object.metadata.name ?? "" },
      mergePatch({
        status: {
          observedGeneration: generation,
          conditions: withCondition(conditionsOf(object), c, now, generation),
        },
      }),
    )
    .pipe(
      Effect.retry(configStatusRetry),
      Effect.asVoid,
      Effect.catch((e: KubeError) =>
        Effect.logWarning("could not write the IPAMConfig's status").pipe(
          Effect.annotateLogs({ error: `${e._tag}: ${e.message}` }),
        ),
      ),
    )
}

const configEvent = (
  client: KubeClientShape,
  object: KubeObject,
  component: string,
  type: "Normal" | "Warning",
  reason: string,
  message: string,
  now: string,
) =>
  client
    .create(Resources.events, {
      apiVersion: "v1",
      kind: "Event",
      // A cluster-scoped object's Events live in `default`, as kubectl describe looks for them.
      metadata: { namespace: "default", generateName: `${object.metadata.name ?? "ipamconfig"}.` },
      involvedObject: {
        apiVersion: object.apiVersion,
        kind: object.kind,
        name: object.metadata.name,
        uid: object.metadata.uid,
      },
      type,
      reason,
      message,
      source: { component },
      reportingComponent: component,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    })
    .pipe(
      Effect.asVoid,
      Effect.catch((e: KubeError) =>
        Effect.logWarning("an Event was refused").pipe(
          Effect.annotateLogs({ error: `${e._tag}: ${e.message}` }),
        ),
      ),
    )

/**
 * Sets the CIDRsAllocated condition on a Cluster's status, on the version it was read at (the
 * provider and others own the other conditions: a write computed from an older version would drop
 * theirs). A failure (a Conflict, a transient error) fails the reconcile, which is retried with a
 * fresh read (`krtt chaos`, scenario ipam-concurrent, holds it to that). A status the Cluster's
 * schema refuses (openmcp's CRD requires `phase`, `lastReconcileTime` and `observedGeneration`
 * until the provider has written them) is logged and left: retrying cannot make it valid, and the
 * Event says the same.
 */
const setClusterConditions = (
  client: KubeClientShape,
  cluster: KubeObject,
  conditions: ReadonlyArray<IpamCondition>,
): Effect.Effect<void, KubeError> =>
  Effect.gen(function* () {
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    const existing = conditionsOf(cluster)
    const c = conditions.find((x) => x.type === CIDRS_ALLOCATED_CONDITION)
    if (c === undefined) return
    const before = existing.find((x) => x.type === c.type)
    if (before?.status === c.status && before.message === c.message) return
    yield* client
      .patchStatus(
        OpenmcpClusterResource,
        { namespace: cluster.metadata.namespace ?? "", name: cluster.metadata.name ?? "" },
        mergePatch({
          metadata: { resourceVersion: cluster.metadata.resourceVersion },
          status: { conditions: withCondition(existing, c, now, undefined) },
        }),
      )
      .pipe(
        Effect.catchTag("Invalid", (e) =>
          Effect.logWarning("the Cluster's status refused the CIDRsAllocated condition").pipe(
            Effect.annotateLogs({
              cluster: `${cluster.metadata.namespace}/${cluster.metadata.name}`,
              error: e.message,
            }),
          ),
        ),
      )
  })
