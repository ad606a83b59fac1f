/**
 * One chaos run: the real shell controllers of one suite (`suite.ts`; here the operator suite:
 * the ClusterCache and its controller, the Cluster controller, wired as `krtt run` wires them in
 * shell/manager/run.ts; the others in ipam.ts, multicluster.ts, propagate.ts) against the
 * in-memory API server on virtual time (TestClock), a scenario's stimuli, and at most one
 * perturbation (on the management server's client and on the workload clients a suite asks for):
 *
 * - `crash`: the operator dies right after its `at`-th successful write (nothing after it runs)
 *   and a new one starts with nothing but what it reads from the API server;
 * - `drop`: during step `at`, every watch event the operator would receive is dropped; at the
 *   window's end its watches get 410 Expired (what a real server does to a watcher that fell
 *   behind), so the intermediate states are never observed, only the latest after the relist;
 * - `stale`: after step `at`, the operator restarts and its lists are served from a lagging view
 *   (the state at the start of step `at`), its watches resuming from that old resourceVersion;
 * - `transient`: from the operator's `at`-th request, a burst of errors of one kind (Timeout,
 *   ServerTimeout, 429, 500, Conflict, AlreadyExists, connection reset) through the fake's
 *   `Faults` matcher;
 * - `reorder`: a third-party writer edits the Cluster's labels, annotations and a foreign status
 *   condition right before the operator's `at`-th write (so the operator's write lands on a
 *   newer object than the one it computed from);
 * - `slow`: during step `at`, every request of the operator is answered `slowMillis` later (a
 *   loaded API server), so watch events arrive while reconciles are still running.
 *
 * Safety invariants are checked on every committed write of the management server (see
 * `invariants`); the run ends with the final state (masked) for the campaign's oracles, then with
 * what was left behind (`resources.ts`): watches a server holds for a cluster the operator has no
 * reason to watch, requests accepted and never reconciled after, and, once the operator stopped,
 * any fiber or watch of any of its processes.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { ClusterControllerDefaults } from "../../core/cluster/index.ts"
import { compareText } from "../../core/krtt/compare.ts"
import { errorOfTag, Faults } from "../apiserver/faults.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { makeClusterController } from "../cluster/controller.ts"
import { makeClusterCacheController } from "../clustercache/controller.ts"
import { ClusterResource, type ConnectionFactory, make as makeClusterCache } from "../clustercache/service.ts"
import { KubeClient, type KubeClientShape, type ListAllOptions, type WatchOptions } from "../kube/client.ts"
import { ApiError, type KubeError, Unreachable } from "../kube/errors.ts"
import type { Patch } from "../kube/patch.ts"
import {
  type KubeObject,
  type ObjectList,
  type ResourceRef,
  Resources,
  resourcePath,
} from "../kube/resource.ts"
import { matchesLabelSelector } from "../kube/selector.ts"
import type { WatchEvent } from "../kube/watch.ts"
import { make as makeReflector } from "../reflector/reflector.ts"
import { WorkObserver } from "../workqueue/observer.ts"
import type { Mutant } from "./mutants.ts"
import {
  busyGauges,
  clientName,
  FiberCounter,
  leakedWatches,
  serversOfSecrets,
  WorkLedger,
} from "./resources.ts"
import {
  CLUSTER_FINALIZER,
  CONTROL_PLANE,
  INFRA,
  installProviders,
  NAMESPACE,
  OperatorScenarios,
  type Scenario,
  type Stage,
} from "./scenarios.ts"
import type { Suite, SuiteContext, WriteTarget } from "./suite.ts"

export const PerturbationKinds = ["crash", "drop", "stale", "transient", "reorder", "slow"] as const
export type PerturbationKind = (typeof PerturbationKinds)[number]
export type Perturbation =
  | { readonly kind: "none" }
  | { readonly kind: PerturbationKind; readonly at: number }

/** The controllers a run can start (each selects the suite that runs it: `suites.ts`). */
export const ControllerNames = ["clustercache", "cluster", "ipam", "multicluster", "propagate"] as const
export type ControllerName = (typeof ControllerNames)[number]

/** The kinds of transient errors, in the order `transientKind` picks them. */
export const TransientKinds = [
  "Timeout",
  "ServerTimeout",
  "TooManyRequests",
  "InternalError",
  "Conflict",
  "AlreadyExists",
  "ConnectionReset",
] as const
export type TransientKind = (typeof TransientKinds)[number]

/** The campaign's numbers, in one place. */
export const ChaosDefaults = {
  /** Virtual milliseconds per tick of the driver (invariants are checked on every write anyway). */
  tickMillis: 1_000,
  /** After the faults stop: ticks within which the reference final state must be reached (ESR). */
  convergeTicks: 600,
  /** The fault-free run has settled when its state did not change for this many ticks. */
  quietTicks: 10,
  /** Then: ticks during which it must be kept. */
  keepTicks: 60,
  /** A run whose operator writes more than this many times is stopped as a write storm. */
  writeStorm: 300,
  /** An object larger than this (bytes of JSON) stops the run (kube-apiserver refuses ~3 MB requests). */
  maxObjectBytes: 262_144,
  /** Transient errors per burst. */
  transientBurst: 3,
  /** Ticks of a drop window before the watches are expired. */
  dropTicks: 5,
  /** How much later a request is answered during a `slow` step (virtual milliseconds). */
  slowMillis: 250,
  /** The sync period of the Cluster controller (upstream's --sync-period default, 10 min). */
  syncPeriod: 600_000,
  /** Points per scenario and perturbation kind of the fast campaign (`npm test`); a suite may take fewer. */
  fastPoints: { crash: 4, drop: 1, stale: 1, transient: 3, reorder: 4, slow: 1 },
  /** The fast points of the later suites (IPAM, multi-cluster, propagate), to keep `npm test` fast. */
  fastPointsLater: { crash: 2, drop: 1, stale: 1, transient: 2, reorder: 2, slow: 1 },
} as const

export type FastPoints = Readonly<Record<PerturbationKind, number>>

export interface RunPlan {
  /** The controller set the scenario belongs to. */
  readonly suite: Suite
  readonly scenario: Scenario
  readonly perturbation: Perturbation
  readonly controllers: ReadonlyArray<ControllerName>
  /** Which transient error kind (`transient` runs). */
  readonly transientKind?: TransientKind | undefined
  /** A deliberately broken operator (tests only). */
  readonly mutant?: Mutant | undefined
}

export interface Fired {
  crash: number
  drop: number
  stale: number
  transient: number
  reorder: number
  /** Requests answered late. */
  slow: number
}
export const noneFired = (): Fired => ({ crash: 0, drop: 0, stale: 0, transient: 0, reorder: 0, slow: 0 })

export interface RunResult {
  /** The masked final state, by `resource namespace/name` (generated names masked). */
  readonly final: ReadonlyArray<string>
  /** Creates and deletes per object (Events left out: every retry may emit one). */
  readonly lifecycle: Readonly<Record<string, string>>
  /** Safety violations, in order. */
  readonly violations: ReadonlyArray<string>
  /** Successful writes of the operator (the points a crash can follow). */
  readonly writes: number
  /** Requests of the operator. */
  readonly requests: number
  readonly fired: Fired
  /** Ticks after the faults stopped until the state stopped changing (or equalled `target`). */
  readonly convergedAfter: number | undefined
  /** Why the state was not kept once reached, if it was not. */
  readonly unstable: string | undefined
  /**
   * Resources left open once the run settled and the operator stopped: watches of an ended
   * process or of a cluster not engaged, fibers of a closed scope.
   */
  readonly leaks: ReadonlyArray<string>
  /**
   * Requests the live operator accepted and never reconciled after, and its queue-depth and
   * active-worker gauges that do not read 0 once nothing is queued or running.
   */
  readonly lostWork: ReadonlyArray<string>
  /** The most reconciles one controller of the operator ran at once. */
  readonly peakConcurrency: number
}

const WRITES = new Set(["create", "update", "patch", "delete", "updateStatus", "patchStatus"])
const gr = (r: ResourceRef) => `${r.group}/${r.resource}`

/** The operator's view of the state between ticks. */
interface ChaosState {
  requests: number
  writes: number
  crashed: boolean
  /** Which operator process is alive: requests of an older one never answer. */
  incarnation: number
  dropping: boolean
  /** Requests are answered late (`slow`). */
  slow: boolean
  staleRv: string | undefined
  readonly fired: Fired
}

/** The foreign condition the third-party writer keeps on Clusters. */
export const FOREIGN_CONDITION = "ChaosForeignReady"
const THIRD_PARTY_PREFIX = "chaos.krtt.dev/"

const transientError = (kind: TransientKind, target: { verb: string; path: string }): KubeError => {
  const fields = { verb: target.verb, path: target.path, message: `injected ${kind}` }
  switch (kind) {
    case "Timeout":
      return errorOfTag("Timeout", target, fields.message)
    case "ServerTimeout":
      return new ApiError({ ...fields, status: 500, reason: "ServerTimeout" })
    case "TooManyRequests":
      return new ApiError({ ...fields, status: 429, reason: "TooManyRequests" })
    case "InternalError":
      return new ApiError({ ...fields, status: 500, reason: "InternalError" })
    case "Conflict":
      return errorOfTag("Conflict", target, fields.message)
    case "AlreadyExists":
      return errorOfTag("AlreadyExists", target, fields.message)
    case "ConnectionReset":
      return new Unreachable({ ...fields, message: "connection reset by peer", code: "ECONNRESET" })
  }
}

/**
 * The operator's client: the memory client over the management server with the perturbations
 * in between. Requests after a crash never answer (the process is gone).
 */
const chaosClient = (
  base: KubeClientShape,
  server: FakeApiServer,
  state: ChaosState,
  hooks: {
    readonly crashAfterWrite: number | undefined
    readonly transientFrom: number | undefined
    readonly transientKind: TransientKind
    readonly beforeWrite: (n: number, target: WriteTarget) => Effect.Effect<void>
    readonly faults: Faults
    /** Which lists are served from the lagging view during `stale` (the management server's only). */
    readonly staleReads: (options: ListAllOptions | undefined) => boolean
  },
): KubeClientShape => {
  const faults = hooks.faults
  const me = state.incarnation
  const dead = () => state.crashed || state.incarnation !== me
  const guard = <A>(
    verb: string,
    ref: ResourceRef,
    key: { readonly namespace?: string | undefined; readonly name?: string | undefined },
    run: () => Effect.Effect<A, KubeError>,
  ): Effect.Effect<A, KubeError> =>
    Effect.suspend(() => {
      if (dead()) return Effect.never
      const n = ++state.requests
      if (hooks.transientFrom !== undefined && n === hooks.transientFrom)
        faults.add({
          error: (t) => transientError(hooks.transientKind, t),
          times: ChaosDefaults.transientBurst,
        })
      const path = resourcePath(ref, { namespace: key.namespace, name: key.name })
      const outcome = faults.take({
        verb: verb === "updateStatus" ? "update" : verb === "patchStatus" ? "patch" : (verb as "get"),
        path,
        resource: ref.resource,
        namespace: key.namespace,
        name: key.name,
      })
      if (outcome?.error !== undefined) {
        state.fired.transient++
        return Effect.fail(outcome.error)
      }
      if (state.slow) state.fired.slow++
      const late = state.slow
      const answer = () => (late ? Effect.andThen(Effect.sleep(ChaosDefaults.slowMillis), run()) : run())
      if (!WRITES.has(verb)) return answer()
      const w = state.writes + 1
      return Effect.andThen(
        hooks.beforeWrite(w, { server, ref, namespace: key.namespace, name: key.name }),
        Effect.flatMap(answer(), (a) => {
          if (dead()) return Effect.never
          state.writes++
          if (hooks.crashAfterWrite === state.writes) {
            state.crashed = true
            state.fired.crash++
            return Effect.never
          }
          return Effect.succeed(a)
        }),
      )
    })
  const staleList = <T extends KubeObject>(ref: ResourceRef, o: ListAllOptions | undefined) => {
    if (state.staleRv === undefined || !hooks.staleReads(o)) return undefined
    const view = server.listAt<T>(ref, state.staleRv)
    if (view === undefined) return undefined
    state.fired.stale++
    const list: ObjectList<T> = {
      ...view,
      items: view.items.filter(
        (i) =>
          (o?.namespace === undefined || i.metadata.namespace === o.namespace) &&
          matchesLabelSelector(o?.labelSelector, i),
      ),
    }
    return list
  }
  return {
    ...base,
    get: (ref, key) => guard("get", ref, key, () => base.get(ref, key)),
    getStatus: (ref, key) => guard("get", ref, key, () => base.getStatus(ref, key)),
    list: (ref, o) => guard("list", ref, { namespace: o?.namespace }, () => base.list(ref, o)),
    listAll: <T extends KubeObject>(
      ref: ResourceRef,
      o?: ListAllOptions,
    ): Effect.Effect<ObjectList<T>, KubeError> =>
      guard("list", ref, { namespace: o?.namespace }, () => {
        const stale = staleList<T>(ref, o)
        return stale === undefined ? base.listAll<T>(ref, o) : Effect.succeed(stale)
      }),
    create: (ref, obj, o) =>
      guard("create", ref, { namespace: obj.metadata.namespace }, () => base.create(ref, obj, o)),
    update: (ref, obj, o) => guard("update", ref, obj.metadata, () => base.update(ref, obj, o)),
    updateStatus: (ref, obj, o) =>
      guard("updateStatus", ref, obj.metadata, () => base.updateStatus(ref, obj, o)),
    patch: (ref, key, p, o) => guard("patch", ref, key, () => base.patch(ref, key, p, o)),
    patchStatus: (ref, key, p, o) => guard("patchStatus", ref, key, () => base.patchStatus(ref, key, p, o)),
    delete: (ref, key, o) => guard("delete", ref, key, () => base.delete(ref, key, o)),
    watch: <T extends KubeObject>(
      ref: ResourceRef,
      o?: WatchOptions,
    ): Stream.Stream<WatchEvent<T>, KubeError> =>
      Stream.unwrap(
        Effect.map(
          guard("watch", ref, { namespace: o?.namespace }, () => Effect.succeed(base.watch<T>(ref, o))),
          (events) =>
            Stream.filter(events, (e) => {
              if (dead()) return false
              if (state.dropping && e.type !== "BOOKMARK" && e.type !== "ERROR") {
                state.fired.drop++
                return false
              }
              return true
            }),
        ),
      ),
  }
}

type Condition = { readonly type: string; readonly status?: string }
const conditionsOf = (o: KubeObject | undefined): ReadonlyArray<Condition> =>
  ((o as { status?: { conditions?: ReadonlyArray<Condition> } } | undefined)?.status?.conditions ??
    []) as ReadonlyArray<Condition>

/** Whether a committed write lost the third party's condition (what it says, or undefined). */
export const foreignConditionLost = (
  type: string,
  old: KubeObject | undefined,
  object: KubeObject,
): string | undefined => {
  if (type === "DELETED" || old === undefined) return undefined
  const before = conditionsOf(old).find((c) => c.type === FOREIGN_CONDITION)
  const after = conditionsOf(object).find((c) => c.type === FOREIGN_CONDITION)
  return before !== undefined && after === undefined
    ? `another writer's condition ${FOREIGN_CONDITION} lost`
    : undefined
}

/**
 * The safety invariants (seed 001, "Deletion Reconciliation" rows 6 to 8: the control plane is
 * deleted first, the infrastructure once it is gone, the finalizer last), checked on every
 * committed write of the management server:
 * a provider object is never deleted before its Cluster is deleting; the infrastructure is never
 * deleted while the control plane exists; the Cluster's finalizer is never removed while its
 * provider objects exist; a foreign condition is never lost.
 */
export const watchInvariants = (mgmt: FakeApiServer, violations: Array<string>): (() => void) =>
  mgmt.onCommit(({ resource, type, object, old }) => {
    const ns = object.metadata.namespace ?? ""
    const name = object.metadata.name ?? ""
    const find = (ref: ResourceRef) =>
      mgmt.objects(ref).find((o) => o.metadata.namespace === ns && o.metadata.name === name)
    const startsDeletion =
      type === "DELETED" ||
      (object.metadata.deletionTimestamp !== undefined && old?.metadata.deletionTimestamp === undefined)
    if ((resource === gr(INFRA) || resource === gr(CONTROL_PLANE)) && startsDeletion && old !== undefined) {
      const cluster = find(ClusterResource)
      if (cluster !== undefined && cluster.metadata.deletionTimestamp === undefined)
        violations.push(
          `${object.kind ?? resource} ${ns}/${name} deleted before its Cluster was deleting (rv ${object.metadata.resourceVersion})`,
        )
      if (resource === gr(INFRA) && type !== "DELETED" && find(CONTROL_PLANE) !== undefined)
        violations.push(
          `infrastructure ${ns}/${name} deleted while the control plane exists (rv ${object.metadata.resourceVersion})`,
        )
    }
    if (resource === gr(ClusterResource) && old !== undefined) {
      const had = old.metadata.finalizers?.includes(CLUSTER_FINALIZER) === true
      const has = object.metadata.finalizers?.includes(CLUSTER_FINALIZER) === true
      if (had && (!has || type === "DELETED")) {
        const children = [INFRA, CONTROL_PLANE].filter((r) => find(r) !== undefined).map((r) => r.kind)
        if (children.length > 0)
          violations.push(
            `Cluster ${ns}/${name}: finalizer removed while ${children.join(" and ")} exist (rv ${object.metadata.resourceVersion})`,
          )
      }
      const lost = foreignConditionLost(type, old, object)
      if (lost !== undefined)
        violations.push(`Cluster ${ns}/${name}: ${lost} (rv ${object.metadata.resourceVersion})`)
    }
  })

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const MASKED_KEYS = new Set(["resourceVersion", "uid", "managedFields", "creationTimestamp"])

/** Masks what differs between equal runs: resourceVersions, uids, timestamps, generated names, the third party's own fields. */
export const mask = (u: unknown, key = ""): unknown => {
  if (MASKED_KEYS.has(key)) return "<masked>"
  if (typeof u === "string") return TIME.test(u) ? "<time>" : u
  if (Array.isArray(u))
    return u
      .filter((c) => !(key === "conditions" && (c as Condition)?.type === FOREIGN_CONDITION))
      .map((x) => mask(x))
  if (typeof u === "object" && u !== null) {
    const entries = Object.entries(u)
      .filter(([k]) => !k.startsWith(THIRD_PARTY_PREFIX))
      .filter(
        ([k, v]) =>
          !(
            (k === "labels" || k === "annotations") &&
            typeof v === "object" &&
            v !== null &&
            Object.keys(v).every((x) => x.startsWith(THIRD_PARTY_PREFIX))
          ),
      )
      .sort(([a], [b]) => compareText(a, b))
      .map(([k, v]) => [k, mask(v, k)])
    return Object.fromEntries(entries)
  }
  return u
}

/** Names made from `generateName` (`<prefix><5 characters>`) lose their suffix. */
const nameOf = (o: KubeObject) =>
  o.metadata.generateName !== undefined ? `${o.metadata.generateName}<generated>` : (o.metadata.name ?? "")

/**
 * The state compared with the reference: every object but Events, masked; with `workloads`,
 * theirs too (each line prefixed with its server URL).
 */
export const snapshot = (
  mgmt: FakeApiServer,
  workloads: ReadonlyArray<readonly [string, FakeApiServer]> = [],
  maskObject: (resource: string, o: KubeObject) => KubeObject = (_, o) => o,
): ReadonlyArray<string> =>
  [["", mgmt] as const, ...workloads]
    .flatMap(([url, server]) =>
      server
        .resources()
        .filter((r) => r.resource !== "events")
        .flatMap((r) =>
          server.objects(r).map((o) => {
            const masked = mask(
              maskObject(r.resource, { ...o, metadata: { ...o.metadata, name: nameOf(o) } }),
            )
            return `${url === "" ? "" : `${url} `}${r.resource} ${o.metadata.namespace ?? ""}/${nameOf(o)} ${JSON.stringify(masked)}`
          }),
        ),
    )
    .sort()

/**
 * The third-party writer: labels, annotations and (with `condition`) a foreign status condition
 * on one object.
 */
export const thirdPartyWrite = (
  server: FakeApiServer,
  ref: ResourceRef,
  key: { readonly namespace?: string | undefined; readonly name: string },
  n: number,
  condition = true,
) =>
  Effect.gen(function* () {
    const c = server.client()
    const found = yield* Effect.result(c.get(ref, key))
    if (found._tag === "Failure") return false
    const meta: Patch = {
      type: "merge",
      body: {
        metadata: {
          labels: { [`${THIRD_PARTY_PREFIX}touched`]: String(n) },
          annotations: { [`${THIRD_PARTY_PREFIX}note`]: `write ${n}` },
        },
      },
    }
    if (found.success.metadata.deletionTimestamp === undefined) yield* Effect.result(c.patch(ref, key, meta))
    if (!condition) return true
    // A status writer of its own condition, with optimistic concurrency, as a well-behaved one is.
    for (let attempt = 0; attempt < 5; attempt++) {
      const fresh = yield* Effect.result(c.get(ref, key))
      if (fresh._tag === "Failure") return true
      const o = fresh.success as KubeObject & { status?: { conditions?: Array<Condition> } }
      const conditions = [
        ...(o.status?.conditions ?? []).filter((x) => x.type !== FOREIGN_CONDITION),
        { type: FOREIGN_CONDITION, status: "True", reason: "Observed", message: `write ${n}` },
      ]
      const written = yield* Effect.result(c.updateStatus(ref, { ...o, status: { ...o.status, conditions } }))
      if (written._tag === "Success" || written.failure._tag !== "Conflict") return true
    }
    return true
  })

/**
 * A suite's third party: it edits the object of `ref` about to be written; when the write is of
 * another kind, the first object of `ref` (in `fallbackNamespace`), or (without one) nothing.
 */
export const thirdPartyOn =
  (
    ref: ResourceRef,
    options: { readonly fallbackNamespace?: string | undefined; readonly condition: boolean },
  ): Suite["thirdParty"] =>
  (mgmt, target, n) => {
    const onTarget = target.ref.resource === ref.resource && target.name !== undefined
    if (!onTarget && options.fallbackNamespace === undefined) return Effect.succeed(false)
    const name = onTarget ? target.name : mgmt.objects(ref)[0]?.metadata.name
    const key = { namespace: onTarget ? target.namespace : options.fallbackNamespace, name: name ?? "" }
    return name === undefined
      ? Effect.succeed(false)
      : thirdPartyWrite(onTarget ? target.server : mgmt, ref, key, n, options.condition)
  }

/** The operator as `krtt run` wires it, in `scope`; returns when its controllers have started. */
const startOperator = (ctx: SuiteContext) =>
  Effect.gen(function* () {
    const { client, controllers, mutant } = ctx
    const connectionFactory: ConnectionFactory = (kc) =>
      makeMemoryClient(ctx.workload(kc.getCurrentCluster()?.server ?? ""), {}, ctx.clientName)
    const clusters = yield* makeReflector(client, { resource: ClusterResource, name: "clusters" })
    const secrets = yield* makeReflector(client, {
      resource: Resources.secrets,
      name: "secrets",
      labelSelector: "cluster.x-k8s.io/cluster-name",
    })
    yield* secrets.waitForSync
    const cache = yield* makeClusterCache({
      clusters: clusters.store,
      secrets: secrets.store,
      connectionFactory,
    }).pipe(Effect.provideService(KubeClient, client))
    const starts: Array<Effect.Effect<void, never, Scope.Scope>> = []
    if (controllers.includes("clustercache")) {
      const cc = yield* makeClusterCacheController(cache, clusters, { concurrency: 10, secrets })
      starts.push(cc.start)
    }
    if (controllers.includes("cluster")) {
      const cluster = yield* makeClusterController(
        { client, clusters, cache },
        {
          concurrency: 10,
          config: ClusterControllerDefaults,
          syncPeriod: ChaosDefaults.syncPeriod,
          secrets: secrets.store,
        },
      )
      starts.push(cluster.start)
    }
    if (mutant?.extra !== undefined) starts.push(mutant.extra(client))
    for (const start of starts) yield* start
  })

/**
 * The operator of `krtt run` (the ClusterCache and the Cluster controller) in the scenarios of
 * e2e/operator (`scenarios.ts`), with seed 001's deletion-order invariants.
 */
export const OperatorSuite: Suite = {
  name: "operator",
  controllers: ["clustercache", "cluster"],
  scenarios: OperatorScenarios,
  install: installProviders,
  start: (ctx) => Effect.orDie(startOperator(ctx)),
  invariants: (mgmt, _workloads, violations) => watchInvariants(mgmt, violations),
  thirdParty: thirdPartyOn(ClusterResource, { fallbackNamespace: NAMESPACE, condition: true }),
  // The ClusterCache's accessors: one per Cluster, reaching the server its kubeconfig Secret names.
  engagedServers: (mgmt) => {
    const clusters = new Set(mgmt.objects(ClusterResource).map((c) => `${c.metadata.name}-kubeconfig`))
    return serversOfSecrets(mgmt, NAMESPACE, "value", (s) => clusters.has(s.metadata.name ?? ""))
  },
  snapshotWorkloads: false,
}

const advance = (ticks: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < ticks; i++) yield* TestClock.adjust(ChaosDefaults.tickMillis)
  })

/**
 * Runs one plan to its end. `target` is the reference run's final state: convergence is measured
 * against it; without it (the reference run itself), against the state ceasing to change.
 */
export const runOnce = (plan: RunPlan, target?: ReadonlyArray<string>): Effect.Effect<RunResult, KubeError> =>
  Effect.acquireUseRelease(
    Effect.sync(() => plan.mutant?.patch?.()),
    () => runPlan(plan, target),
    (restore) => Effect.sync(() => restore?.()),
  )

const runPlan = (
  plan: RunPlan,
  target: ReadonlyArray<string> | undefined,
): Effect.Effect<RunResult, KubeError> =>
  Effect.gen(function* () {
    const suite = plan.suite
    const mgmt = yield* FakeApiServer.make({ garbageCollection: suite.garbageCollection !== false })
    yield* suite.install(mgmt)
    const violations: Array<string> = []
    const lifecycle: Record<string, string> = {}
    let oversized: string | undefined
    const follow = (server: FakeApiServer, prefix: string) =>
      server.onCommit(({ resource, type, object }) => {
        if (oversized === undefined && JSON.stringify(object).length > ChaosDefaults.maxObjectBytes)
          oversized = `${object.kind ?? resource} ${object.metadata.namespace ?? ""}/${object.metadata.name ?? ""} grew past ${ChaosDefaults.maxObjectBytes} bytes`
        if (resource === "/events") return
        const k = `${prefix}${resource} ${object.metadata.namespace ?? ""}/${nameOf(object)}`
        if (type === "ADDED") lifecycle[k] = `${lifecycle[k] ?? ""}+`
        else if (type === "DELETED") lifecycle[k] = `${lifecycle[k] ?? ""}-`
      })
    const workloads = new Map<string, FakeApiServer>()
    const unfollow: Array<() => void> = []
    const workload = (url: string) => {
      let w = workloads.get(url)
      if (w === undefined) {
        w = Effect.runSync(FakeApiServer.make())
        workloads.set(url, w)
        if (suite.snapshotWorkloads) unfollow.push(follow(w, `${url} `))
      }
      return w
    }
    const stage: Stage = { mgmt, workload }
    const unwatch = suite.invariants(mgmt, () => [...workloads.entries()], violations)
    unfollow.push(follow(mgmt, ""))
    const state: ChaosState = {
      requests: 0,
      writes: 0,
      crashed: false,
      incarnation: 0,
      dropping: false,
      slow: false,
      staleRv: undefined,
      fired: noneFired(),
    }
    const p = plan.perturbation
    const at = p.kind === "none" ? -1 : p.at
    let reordered = false
    const faults = new Faults()
    /** Servers the operator reaches through perturbed clients (their watches expire after a drop). */
    const reachedServers = new Set<FakeApiServer>([mgmt])
    const perturb = (server: FakeApiServer, base: KubeClientShape) =>
      chaosClient(base, server, state, {
        faults,
        staleReads: (o) => server === mgmt && (suite.staleList?.(o) ?? true),
        crashAfterWrite: p.kind === "crash" ? at : undefined,
        transientFrom: p.kind === "transient" ? at : undefined,
        transientKind: plan.transientKind ?? "InternalError",
        beforeWrite: (n, written) =>
          p.kind === "reorder" && n === at && !reordered
            ? Effect.gen(function* () {
                reordered = true
                if (yield* suite.thirdParty(mgmt, written, n)) state.fired.reorder++
              })
            : Effect.void,
      })
    const clientOf = (base: KubeClientShape) => {
      const perturbed = perturb(mgmt, base)
      return plan.mutant?.wrap === undefined ? perturbed : plan.mutant.wrap(perturbed, state.incarnation)
    }
    const context = (base: KubeClientShape, me: number): SuiteContext => ({
      mgmt,
      client: clientOf(base),
      workload,
      clientName: clientName(me),
      perturbed: (server) =>
        Effect.map(makeMemoryClient(server, {}, clientName(me)), (c) => {
          reachedServers.add(server)
          const perturbed = perturb(server, c)
          return plan.mutant?.wrapWorkload === undefined ? perturbed : plan.mutant.wrapWorkload(perturbed)
        }),
      controllers: plan.controllers,
      mutant: plan.mutant,
      violation: (message) => violations.push(message),
      exit: Effect.sync(() => {
        if (state.incarnation === me) state.crashed = true
      }),
    })
    const snap = () =>
      snapshot(mgmt, suite.snapshotWorkloads ? [...workloads.entries()] : [], suite.maskObject)

    /** Each process's live fibers and work, by incarnation. */
    const processes: Array<{
      readonly fibers: FiberCounter
      readonly work: WorkLedger
      readonly metrics: Metric.MetricRegistry
    }> = []
    const boot = () =>
      Effect.gen(function* () {
        const me = state.incarnation
        const process = { fibers: new FiberCounter(), work: new WorkLedger(), metrics: new Map() }
        processes[me] = process
        const base = yield* makeMemoryClient(mgmt, {}, clientName(me))
        const s = yield* Scope.make()
        const start = suite
          .start(context(base, me))
          .pipe(
            Scope.provide(s),
            Effect.provideService(WorkObserver, process.work),
            Effect.provideService(Metric.FiberRuntimeMetrics, process.fibers.service),
            Effect.provideService(Metric.MetricRegistry, process.metrics),
          )
        yield* Effect.forkIn(start, s)
        return s
      })
    let scope = yield* boot()
    // A crash: the old process never answers again (its client is dead); its scope is closed in
    // the background (in-flight reconciles of a dead process never finish, so the controller's
    // graceful stop takes its timeout of virtual time).
    const restart = Effect.gen(function* () {
      state.incarnation++
      state.crashed = false
      yield* Effect.forkDetach(Scope.close(scope, Exit.void))
      scope = yield* boot()
    })
    const storm = () => state.writes > ChaosDefaults.writeStorm || oversized !== undefined
    /** Ticks, restarting a crashed operator at once; nothing more once the operator storms. */
    const settle = (ticks: number) =>
      Effect.gen(function* () {
        for (let i = 0; i < ticks && !storm(); i++) {
          yield* advance(1)
          if (state.crashed) yield* restart
        }
      })

    for (const [i, step] of plan.scenario.steps.entries()) {
      const rvBefore = mgmt.resourceVersion()
      if (p.kind === "drop" && i === at) state.dropping = true
      if (p.kind === "slow" && i === at) state.slow = true
      yield* step.run(stage)
      const ticks = Math.ceil(step.settleMillis / ChaosDefaults.tickMillis)
      if (p.kind === "drop" && i === at) {
        yield* settle(ChaosDefaults.dropTicks)
        state.dropping = false
        for (const server of reachedServers) server.expireWatches()
        yield* settle(ticks - ChaosDefaults.dropTicks)
      } else yield* settle(ticks)
      state.slow = false
      if (p.kind === "stale" && i === at) {
        state.staleRv = rvBefore
        yield* restart
        yield* settle(4)
        state.staleRv = undefined
      }
    }

    // The faults stop: measure how long until the reference state is reached, then that it is kept.
    state.dropping = false
    state.staleRv = undefined
    let convergedAfter: number | undefined
    let last = snap()
    let quiet = 0
    for (let t = 1; t <= ChaosDefaults.convergeTicks && !storm(); t++) {
      yield* settle(1)
      const now = snap()
      if (
        target !== undefined
          ? sameState(now, target)
          : sameState(now, last) && ++quiet >= ChaosDefaults.quietTicks
      ) {
        convergedAfter = t
        break
      }
      if (!sameState(now, last)) quiet = 0
      last = now
    }
    const reached = snap()
    let unstable: string | undefined
    if (storm()) {
      convergedAfter = undefined
      unstable = `write storm: ${oversized ?? `the operator wrote more than ${ChaosDefaults.writeStorm} times`}`
    } else if (convergedAfter !== undefined) {
      for (let t = 1; t <= ChaosDefaults.keepTicks && unstable === undefined; t++) {
        yield* settle(1)
        const now = snap()
        if (!sameState(now, reached))
          unstable = `changed ${t} ticks after it was reached: ${firstDifference(reached, now)}`
      }
    }
    const final = snap()
    const settled = storm() ? undefined : processes[state.incarnation]
    const lostWork = settled === undefined ? [] : [...settled.work.lost()]
    if (settled !== undefined) lostWork.push(...(yield* busyGauges(settled.metrics)))
    for (const p of processes) violations.push(...p.work.overlaps())
    const live = clientName(state.incarnation)
    const engaged = new Set(suite.engagedServers?.(mgmt) ?? [])
    const servers = (): ReadonlyArray<readonly [string, FakeApiServer]> => [
      ["", mgmt],
      ...workloads.entries(),
    ]
    const leaks = servers().flatMap(([url, server]) =>
      leakedWatches(url, server, live, url === "" || engaged.has(url)),
    )
    // The operator stops (its scope closes, as on SIGTERM): then nothing of any process may be left.
    leaks.push(...(yield* stopAll(scope, processes, servers)))
    state.incarnation++
    unwatch()
    for (const u of unfollow) u()
    return {
      final,
      lifecycle,
      violations,
      writes: state.writes,
      requests: state.requests,
      fired: state.fired,
      convergedAfter,
      unstable,
      leaks,
      lostWork,
      peakConcurrency: Math.max(0, ...processes.map((p) => p.work.peak)),
    }
  })

/** Ticks a stopping operator gets to close its scope (its graceful stop takes up to 30 s). */
const STOP_TICKS = 60

/**
 * Closes the live process's scope and waits (in virtual time) for it; then every process's fibers
 * must have ended and no server may hold a watch for any of them.
 */
const stopAll = (
  scope: Scope.Closeable,
  processes: ReadonlyArray<{ readonly fibers: FiberCounter }>,
  servers: () => ReadonlyArray<readonly [string, FakeApiServer]>,
) =>
  Effect.gen(function* () {
    const closing = yield* Effect.forkChild(Scope.close(scope, Exit.void))
    for (let t = 0; t < STOP_TICKS && closing.pollUnsafe() === undefined; t++) yield* advance(1)
    const found: Array<string> = []
    if (closing.pollUnsafe() === undefined)
      found.push(`leak: the operator's scope did not close within ${STOP_TICKS} ticks of its stop`)
    for (const [n, p] of processes.entries())
      if (p.fibers.live > 0)
        found.push(
          `leak: ${p.fibers.live} fiber${p.fibers.live === 1 ? "" : "s"} of ${clientName(n)} still running after its scope closed`,
        )
    for (const [url, server] of servers()) found.push(...leakedWatches(url, server, undefined, false))
    return found
  })

export const sameState = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i])

/** The first line where two states differ (as multisets: a duplicate counts), for a failure message. */
export const firstDifference = (expected: ReadonlyArray<string>, actual: ReadonlyArray<string>): string => {
  const counts = new Map<string, number>()
  for (const x of expected) counts.set(x, (counts.get(x) ?? 0) + 1)
  const extra: Array<string> = []
  for (const x of actual) {
    const n = counts.get(x) ?? 0
    if (n > 0) counts.set(x, n - 1)
    else extra.push(x)
  }
  const missing = [...counts.entries()].filter(([, n]) => n > 0).map(([x]) => x)
  if (missing.length === 0 && extra.length === 0) return "no difference"
  // Two versions of one object: show where they part (after the object's name), not only their start.
  const [m, x] = [missing[0], extra[0]]
  let from = 0
  if (m !== undefined && x !== undefined && m.split(" ", 2).join(" ") === x.split(" ", 2).join(" ")) {
    while (from < m.length && m[from] === x[from]) from++
    from = Math.max(0, from - 120)
  }
  const short = (s: string | undefined) => {
    if (s === undefined) return ""
    const head = from > 0 ? `${s.split(" ", 2).join(" ")} …${s.slice(from, from + 400)}` : s.slice(0, 400)
    return head.length < s.length ? `${head}…` : s
  }
  return `expected ${short(m) || "(nothing more)"} but found ${short(x) || "(nothing)"}`
}
