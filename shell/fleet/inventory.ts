/**
 * `krtt inventory`'s controller : an AGGREGATING multi-cluster controller
 * (seed 003, Goals 2) that keeps one hub ConfigMap `krtt-inventory` with a key per engaged
 * cluster, built only on the public multi-cluster runtime (`shell/multicluster/index.ts`).
 *
 * Two controllers of one manager:
 * - `inventory-nodes` `Watches` Nodes in every engaged provider cluster; its reconcile forwards
 *   each cluster's request to the one hub request `cluster:///NS/krtt-inventory` (so the hub is
 *   never asked for its own Nodes: a hub with Watches would watch them too);
 * - `inventory` is engaged with the hub only (`For` the ConfigMap, `engageWithLocalCluster`), so an
 *   edit or a deletion of the ConfigMap is repaired; its reconcile computes every cluster's entry
 *   with the pure table `inventory.entry` (`core/inventory/`) and writes the ConfigMap once.
 *
 * Clusters that leave or turn unhealthy send no Node event: a poll of the provider's view every
 * `clusterPollInterval` (1 s) enqueues the hub request when it changes.
 *
 * Guarantees: every write is an update checked against the resourceVersion that was read (or a
 * create), built on the data that was read, so another cluster's key is never lost; a conflict
 * reconciles again at once. Keys that name no cluster this controller knows (not a document of
 * a known cluster's shape) are never touched. One request, so one reconcile at a time.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import {
  type ClusterView,
  type EntryAction,
  entryKey,
  entryTransition,
  INVENTORY_CONFIGMAP,
  type InventoryConfig,
  inventoryConfig,
} from "../../core/inventory/index.ts"
import type { Predicate } from "../controller/predicate.ts"
import { done, type ReconcileResult, requeueAfter } from "../controller/result.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import { Resources } from "../kube/resource.ts"
import {
  type Cluster,
  type ClusterState,
  controllerManagedBy,
  enqueueRequestsFromMapFunc,
  HubCluster,
  type MultiClusterController,
  type MultiClusterManager,
} from "../multicluster/index.ts"
import { makeRequest, type Request } from "../workqueue/request.ts"

/** Decisions of `inventory.entry` that asked for something, by row. */
export const inventoryDecisions = Metric.counter("krtt_inventory_decisions_total", {
  description:
    "Decisions of the inventory table that asked for an action, by documented row (inventory.entry#n).",
  incremental: true,
})
/** Clusters in the ConfigMap after the last reconcile, by `state` (`reachable`, `unreachable`). */
export const inventoryClusters = Metric.gauge("krtt_inventory_clusters", {
  description: "Clusters in the krtt-inventory ConfigMap after the last reconcile, by state.",
})
/** Writes of the ConfigMap, by `result` (`written`, `conflict`). */
export const inventoryWrites = Metric.counter("krtt_inventory_writes_total", {
  description:
    "Writes of the krtt-inventory ConfigMap, by result (written, conflict: read and decided again).",
  incremental: true,
})

/** core/v1 Nodes (cluster-scoped). */
export const NodesResource: ResourceRef = {
  group: "",
  version: "v1",
  resource: "nodes",
  kind: "Node",
  namespaced: false,
}

export interface InventoryOptions {
  /** Namespace of the ConfigMap on the hub. */
  readonly namespace: string
  /** Name of the ConfigMap. Default `krtt-inventory`. */
  readonly name?: string | undefined
  /** The numbers (debounce, poll, version refresh, retry); defaults `InventoryDefaults`. */
  readonly config?: Partial<InventoryConfig> | undefined
  /** How long a stop waits for in-flight reconciles (the manager's `--graceful-shutdown-timeout`). */
  readonly gracefulShutdownTimeout?: number | undefined
}

/** What `addInventoryController` returns. */
export interface InventoryController {
  readonly hub: MultiClusterController
  readonly nodes: MultiClusterController
  /** The one hub request. */
  readonly request: Request
}

interface Node extends KubeObject {
  readonly status?: {
    readonly conditions?: ReadonlyArray<{ readonly type: string; readonly status: string }>
  }
}

/** Whether a Node's `Ready` condition is `True`. */
export const nodeReady = (node: Node): boolean =>
  node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true

/**
 * Node events that can change an entry: every creation and deletion, and an update only when the
 * Node's readiness flips. Kubelets rewrite their Node's status every 10 s (heartbeats); those
 * updates change no count and reconcile nothing.
 */
export const readinessChanged: Predicate<Node> = (event) =>
  event._tag !== "Updated" || nodeReady(event.old) !== nodeReady(event.object)

interface VersionSeen {
  readonly generation: string
  readonly version: string
  readonly at: number
}

/** The fields of the provider's view that change the inventory. */
const signature = (states: ReadonlyArray<ClusterState>): string =>
  JSON.stringify(
    [...states]
      .map((s) => [s.name, s.engaged, s.healthy])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  )

/** Adds the inventory's two controllers to `manager` and starts the provider poll. */
export const addInventoryController = (
  manager: MultiClusterManager,
  options: InventoryOptions,
): Effect.Effect<InventoryController, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const config = yield* Effect.try({
      try: () => inventoryConfig(options.config),
      catch: (e) => e as Error,
    })
    if (options.namespace === "")
      return yield* Effect.fail(new Error("--namespace: give the hub namespace of the inventory"))
    const target = { namespace: options.namespace, name: options.name ?? INVENTORY_CONFIGMAP }
    const request = makeRequest(target, HubCluster)
    const pending = yield* Ref.make(new Map<string, number>())
    const versions = yield* Ref.make(new Map<string, VersionSeen>())
    // The hub controller is created first; the node controller (created next) forwards into
    // its queue, and the hub's reconcile asks it which clusters it watches.
    let nodesController: MultiClusterController | undefined
    const stop =
      options.gracefulShutdownTimeout === undefined
        ? {}
        : { gracefulShutdownTimeout: Duration.millis(options.gracefulShutdownTimeout) }

    const versionOf = (cluster: Cluster, now: number) =>
      Effect.gen(function* () {
        const seen = (yield* Ref.get(versions)).get(cluster.name)
        if (
          seen !== undefined &&
          seen.generation === cluster.generation &&
          now - seen.at < config.versionRefresh
        )
          return seen.version
        const doc = (yield* cluster.client.raw({ method: "GET", path: "/version" })) as {
          gitVersion?: unknown
        }
        const version = typeof doc?.gitVersion === "string" ? doc.gitVersion : ""
        yield* Ref.update(versions, (m) =>
          new Map(m).set(cluster.name, { generation: cluster.generation, version, at: now }),
        )
        return version
      })

    /** What one cluster looks like now; a cluster that cannot be read counts as waiting. */
    const viewOf = (
      state: ClusterState,
      nodes: MultiClusterController,
      now: number,
    ): Effect.Effect<{ readonly view: ClusterView; readonly retry: boolean }> =>
      Effect.gen(function* () {
        if (!state.engaged) {
          const view: ClusterView = state.healthy
            ? { _tag: "Waiting" }
            : { _tag: "Unhealthy", reason: state.reason }
          return { view, retry: false }
        }
        const waiting: ClusterView = { _tag: "Waiting" }
        // Engaged with the manager, its Node watch not yet synced: look again soon (a cluster
        // without Nodes sends no event once it is).
        if (!(yield* nodes.isEngaged(state.name))) return { view: waiting, retry: true }
        const cluster = yield* manager.getCluster(state.name)
        const list = yield* cluster.cache.list<Node>(NodesResource)
        const kubernetesVersion = yield* versionOf(cluster, now)
        const view: ClusterView = {
          _tag: "Engaged",
          facts: { kubernetesVersion, nodes: list.length, readyNodes: list.filter(nodeReady).length },
        }
        return { view, retry: false }
      }).pipe(
        Effect.catch((e: unknown) =>
          Effect.as(
            Effect.logWarning("inventory: cannot read a cluster; it is left as it is").pipe(
              Effect.annotateLogs({
                cluster: state.name,
                error: (e as { message?: string }).message ?? String(e),
              }),
            ),
            { view: { _tag: "Waiting" } as ClusterView, retry: true },
          ),
        ),
      )

    const reconcile = (nodes: MultiClusterController) => (): Effect.Effect<ReconcileResult, Error> =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const states = manager.provider === undefined ? [] : yield* manager.provider.clusters
        // the version of a cluster that left is never needed again
        yield* Ref.update(versions, (m) => {
          const known = new Set<string>(states.map((st) => st.name))
          return [...m.keys()].every((k) => known.has(k)) ? m : new Map([...m].filter(([k]) => known.has(k)))
        })
        const hub = manager.hub.client
        const current = yield* hub
          .get(Resources.configMaps, target)
          .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
        const data: Record<string, string> = {
          ...((current?.data as Record<string, string> | undefined) ?? {}),
        }

        // Every cluster the provider knows, and every cluster a stored document names.
        const views = new Map<string, ClusterView>()
        let retry = false
        for (const state of states) {
          const v = yield* viewOf(state, nodes, now)
          views.set(state.name, v.view)
          retry ||= v.retry
        }
        for (const [key, value] of Object.entries(data)) {
          const named = storedCluster(value)
          if (named !== undefined && entryKey(named) === key && !views.has(named))
            views.set(named, { _tag: "Absent" })
        }

        const before = yield* Ref.get(pending)
        const nextPending = new Map<string, number>()
        const actions: Array<EntryAction> = []
        for (const [cluster, view] of views) {
          const r = entryTransition(
            {
              observed: { cluster, view, stored: data[entryKey(cluster)], pendingSince: before.get(cluster) },
              desired: {},
              trigger: { _tag: "Reconcile" },
              now,
            },
            config,
          )
          if (r.status.pendingSince !== undefined) nextPending.set(cluster, r.status.pendingSince)
          actions.push(...r.actions)
          if (r.actions.length > 0)
            yield* Metric.update(inventoryDecisions.pipe(Metric.withAttributes({ row: r.row })), 1)
          if (r.actions.some((a) => a._tag !== "RequeueAfter"))
            yield* Effect.logDebug("inventory entry").pipe(Effect.annotateLogs({ cluster, row: r.row }))
        }

        let changed = false
        let delay: number | undefined = retry ? config.retry : undefined
        for (const a of actions) {
          if (a._tag === "PutEntry" && data[a.key] !== a.value) {
            data[a.key] = a.value
            changed = true
          } else if (a._tag === "RemoveEntry" && a.key in data) {
            delete data[a.key]
            changed = true
          } else if (a._tag === "RequeueAfter") delay = Math.min(delay ?? a.delay, a.delay)
        }
        if (changed) {
          const sorted = Object.fromEntries(Object.entries(data).sort(([a], [b]) => a.localeCompare(b)))
          const write =
            current === undefined
              ? hub.create(Resources.configMaps, { metadata: { ...target }, data: sorted } as KubeObject)
              : // update carries current.metadata.resourceVersion: a concurrent write is a Conflict
                hub.update(Resources.configMaps, { ...current, data: sorted })
          const lost = yield* write.pipe(
            Effect.as(false),
            Effect.catchTag(["Conflict", "AlreadyExists"], () => Effect.succeed(true)),
          )
          yield* Metric.update(
            inventoryWrites.pipe(Metric.withAttributes({ result: lost ? "conflict" : "written" })),
            1,
          )
          // Lost a race: read again and decide again at once; the pending starts are kept.
          if (lost) {
            yield* Ref.set(pending, nextPending)
            return requeueAfter(Duration.zero)
          }
        }
        yield* Ref.set(pending, nextPending)
        let reachable = 0
        let unreachable = 0
        for (const [key, value] of Object.entries(data)) {
          const named = storedCluster(value)
          if (named === undefined || entryKey(named) !== key) continue
          if ((JSON.parse(value) as { reachable?: unknown }).reachable === true) reachable++
          else unreachable++
        }
        yield* Metric.update(inventoryClusters.pipe(Metric.withAttributes({ state: "reachable" })), reachable)
        yield* Metric.update(
          inventoryClusters.pipe(Metric.withAttributes({ state: "unreachable" })),
          unreachable,
        )
        return delay === undefined ? done() : requeueAfter(Duration.millis(delay))
      }).pipe(
        Effect.mapError((e) =>
          e instanceof Error ? e : new Error(String((e as { message?: string }).message ?? e)),
        ),
      )

    const hubController = yield* controllerManagedBy(manager)
      .named("inventory")
      .withOptions({ engageWithLocalCluster: true, engageWithProviderClusters: false, ...stop })
      .for(Resources.configMaps, {
        namespace: target.namespace,
        predicates: [(e) => e.object.metadata.name === target.name],
      })
      .complete((_: Request) =>
        nodesController === undefined
          ? Effect.succeed(requeueAfter(Duration.millis(config.retry)))
          : reconcile(nodesController)(),
      )
      .pipe(Effect.mapError((e) => new Error(e.message)))

    nodesController = yield* controllerManagedBy(manager)
      .named("inventory-nodes")
      .withOptions(stop)
      .watches(
        NodesResource,
        enqueueRequestsFromMapFunc<Node>((_node, cluster) => [makeRequest({ name: "nodes" }, cluster.name)]),
        { predicates: [readinessChanged] },
      )
      .complete((_: Request) => Effect.as(hubController.queue.add(request), done()))
      .pipe(Effect.mapError((e) => new Error(e.message)))

    // Clusters that leave or turn unhealthy send no Node event: watch the provider's view.
    const provider = manager.provider
    if (provider !== undefined) {
      const last = yield* Ref.make("")
      yield* Effect.forkScoped(
        Effect.forever(
          Effect.gen(function* () {
            const sig = signature(yield* provider.clusters)
            if (sig !== (yield* Ref.getAndSet(last, sig))) yield* hubController.queue.add(request)
            yield* Effect.sleep(Duration.millis(config.clusterPollInterval))
          }),
        ),
      )
    }
    return { hub: hubController, nodes: nodesController, request }
  })

/** The cluster a stored value names, when it is a JSON object with a string `cluster`. */
const storedCluster = (value: string): string | undefined => {
  try {
    const v = JSON.parse(value) as { cluster?: unknown }
    return typeof v === "object" && v !== null && typeof v.cluster === "string" ? v.cluster : undefined
  } catch {
    return undefined
  }
}
