/**
 * What table `inventory.entry` reads, as `krtt inventory` observes it: each cluster's view
 * (engaged with its Node counts and version, unhealthy, waiting, or gone) and the hub ConfigMap
 * as it is now.
 *
 * # Expected flow
 * The hub reconcile reads the provider's clusters and the ConfigMap, then asks `viewOf` for each
 * cluster the provider knows; a cluster that only a stored document names is `Absent`. Clusters
 * that leave or turn unhealthy send no Node event: `pollProvider` notices them.
 *
 * # Guarantees
 * - A cluster whose Nodes or `/version` cannot be read counts as `Waiting` and asks for a retry:
 *   its entry is left as it is, never marked unreachable on a read error of ours.
 * - `/version` is read again only after `versionRefresh`, or when the cluster's generation
 *   (credentials, endpoint) changes.
 *
 * @module
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type { ClusterView, InventoryConfig } from "../../../core/inventory/index.ts"
import type { Predicate } from "../../controller/predicate.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import type { KubeError } from "../../kube/errors.ts"
import { type KubeObject, type ResourceRef, Resources } from "../../kube/resource.ts"
import type {
  Cluster,
  ClusterState,
  MultiClusterController,
  MultiClusterManager,
} from "../../multicluster/index.ts"

/** core/v1 Nodes (cluster-scoped). */
export const NodesResource: ResourceRef = {
  group: "",
  version: "v1",
  resource: "nodes",
  kind: "Node",
  namespaced: false,
}

export interface Node extends KubeObject {
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

/** The fields of the provider's view that change the inventory. */
export const signature = (states: ReadonlyArray<ClusterState>): string =>
  JSON.stringify(
    [...states]
      .map((s) => [s.name, s.engaged, s.healthy])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  )

/**
 * Runs `changed` whenever the provider's view of its clusters (engaged, healthy) differs from the
 * last one, looking every `interval` ms; never ends. Nothing to watch without a provider.
 */
export const pollProvider = (
  manager: MultiClusterManager,
  interval: number,
  changed: Effect.Effect<void>,
): Effect.Effect<void> =>
  Effect.gen(function* () {
    const provider = manager.provider
    if (provider === undefined) return
    const last = yield* Ref.make("")
    const poll = Effect.gen(function* () {
      const sig = signature(yield* provider.clusters)
      if (sig !== (yield* Ref.getAndSet(last, sig))) yield* changed
      yield* Effect.sleep(Duration.millis(interval))
    })
    return yield* Effect.forever(poll)
  })

/** The cluster a stored value names, when it is a JSON object with a string `cluster`. */
export const storedCluster = (value: string): string | undefined => {
  try {
    const v = JSON.parse(value) as { cluster?: unknown }
    return typeof v === "object" && v !== null && typeof v.cluster === "string" ? v.cluster : undefined
  } catch {
    return undefined
  }
}

/** The ConfigMap as read: the object (none yet) and a copy of its data to decide on. */
export interface StoredInventory {
  readonly current: KubeObject | undefined
  readonly data: Record<string, string>
}

/** Reads the inventory ConfigMap from the hub (not the cache: a write is checked against it). */
export const readInventory = (
  hub: KubeClientShape,
  target: { readonly namespace: string; readonly name: string },
): Effect.Effect<StoredInventory, KubeError> =>
  hub.get(Resources.configMaps, target).pipe(
    Effect.map(
      (current): StoredInventory => ({
        current,
        data: { ...((current.data as Record<string, string> | undefined) ?? {}) },
      }),
    ),
    Effect.catchTag("NotFound", () => Effect.succeed<StoredInventory>({ current: undefined, data: {} })),
  )

/** A cluster's `/version` as last read. */
export interface VersionSeen {
  readonly generation: string
  readonly version: string
  readonly at: number
}

/** What observing a cluster needs: the manager, the Node controller, the versions read. */
export interface ViewDeps {
  readonly manager: MultiClusterManager
  readonly nodes: MultiClusterController
  readonly config: InventoryConfig
  readonly versions: Ref.Ref<ReadonlyMap<string, VersionSeen>>
}

const versionOf = (deps: ViewDeps, cluster: Cluster, now: number) =>
  Effect.gen(function* () {
    const seen = (yield* Ref.get(deps.versions)).get(cluster.name)
    if (
      seen !== undefined &&
      seen.generation === cluster.generation &&
      now - seen.at < deps.config.versionRefresh
    )
      return seen.version
    const doc = (yield* cluster.client.raw({ method: "GET", path: "/version" })) as { gitVersion?: unknown }
    const version = typeof doc?.gitVersion === "string" ? doc.gitVersion : ""
    yield* Ref.update(deps.versions, (m) =>
      new Map(m).set(cluster.name, { generation: cluster.generation, version, at: now }),
    )
    return version
  })

/** Forgets the versions of clusters the provider no longer knows. */
export const forgetVersions = (deps: ViewDeps, states: ReadonlyArray<ClusterState>): Effect.Effect<void> =>
  Ref.update(deps.versions, (m) => {
    const known = new Set<string>(states.map((st) => st.name))
    return [...m.keys()].every((k) => known.has(k)) ? m : new Map([...m].filter(([k]) => known.has(k)))
  })

/** What one cluster looks like now, and whether to look again soon. */
export interface Observed {
  readonly view: ClusterView
  readonly retry: boolean
}

const waiting: ClusterView = { _tag: "Waiting" }

/** What one cluster the provider knows looks like now; a cluster that cannot be read counts as waiting. */
export const viewOf = (deps: ViewDeps, state: ClusterState, now: number): Effect.Effect<Observed> =>
  Effect.gen(function* () {
    if (!state.engaged) {
      const view: ClusterView = state.healthy ? waiting : { _tag: "Unhealthy", reason: state.reason }
      return { view, retry: false }
    }
    // Engaged with the manager, its Node watch not yet synced: look again soon (a cluster
    // without Nodes sends no event once it is).
    if (!(yield* deps.nodes.isEngaged(state.name))) return { view: waiting, retry: true }
    const cluster = yield* deps.manager.getCluster(state.name)
    const list = yield* cluster.cache.list<Node>(NodesResource)
    const kubernetesVersion = yield* versionOf(deps, cluster, now)
    const facts = { kubernetesVersion, nodes: list.length, readyNodes: list.filter(nodeReady).length }
    return { view: { _tag: "Engaged", facts }, retry: false } satisfies Observed
  }).pipe(
    Effect.catch((e: { readonly message: string }) =>
      Effect.as(
        Effect.logWarning("inventory: cannot read a cluster; it is left as it is").pipe(
          Effect.annotateLogs({ cluster: state.name, error: e.message }),
        ),
        { view: waiting, retry: true },
      ),
    ),
  )
