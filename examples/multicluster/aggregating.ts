/**
 * An AGGREGATING multi-cluster controller (seed 003, Goals 2): it watches every engaged cluster
 * and writes one object on the hub. It keeps the hub ConfigMap `fleet/web-summary` listing, per
 * cluster, how many ConfigMaps labelled `app=web` that cluster has.
 *
 * - Events on provider clusters (`Watches`) map to ONE hub request, `cluster:///fleet/web-summary`
 *   (`enqueueRequestsFromMapFunc` may name any cluster; `""` is the hub).
 * - The summary itself is watched on the hub (`For`), so an edit or a deletion is repaired. A
 *   manager with a provider engages the hub only when asked: the `For` watch's own
 *   `engageWithLocalCluster: true` (the seed's `EngageWithDefaultCluster`, upstream's per-watch
 *   `WithEngageWithLocalCluster`); the `Watches` stay on the provider clusters.
 * - Clusters come and go without an event on the summary, so the reconciler asks to run again
 *   after `resync` (default 30 s) and always recomputes from `manager.clusters`.
 *
 * Run it against a hub (here with each namespace of the hub as a cluster, the kcp story):
 *
 *     node examples/multicluster/aggregating.ts --kubeconfig hub.kubeconfig --provider namespaces
 *
 * The `demo` runs it on in-memory API servers (the examples test runs it).
 *
 * @module
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { type KubeObject, Resources } from "krtt/kube"
import {
  controllerManagedBy,
  enqueueRequestsFromMapFunc,
  HubCluster,
  type MultiClusterController,
  type MultiClusterManager,
  makeCluster,
  makeManager,
  makeMemoryProvider,
  makeRequest,
  programMain,
  type ReconcileResult,
  requeueAfter,
} from "krtt/multicluster"
import { FakeApiServer, makeMemoryClient } from "krtt/testing"
import { waitFor } from "./uniform.js"

export const SUMMARY = { namespace: "fleet", name: "web-summary" } as const
export const WEB_SELECTOR = "app=web"

/** Counts `app=web` ConfigMaps per engaged cluster (from each cluster's cache) and writes the summary. */
export const reconcileSummary =
  (manager: MultiClusterManager, resync: Duration.Input) => (): Effect.Effect<ReconcileResult, unknown> =>
    Effect.gen(function* () {
      const data: Record<string, string> = {}
      for (const cluster of yield* manager.clusters) {
        const web = yield* cluster.cache.list(Resources.configMaps, { labelSelector: WEB_SELECTOR })
        data[cluster.name] = String(web.length)
      }
      const sorted = Object.fromEntries(Object.entries(data).sort(([a], [b]) => a.localeCompare(b)))
      const hub = manager.hub.client
      const current = yield* hub
        .get(Resources.configMaps, SUMMARY)
        .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
      if (current === undefined)
        yield* hub.create(Resources.configMaps, { metadata: { ...SUMMARY }, data: sorted } as KubeObject)
      else if (JSON.stringify(current.data ?? {}) !== JSON.stringify(sorted))
        yield* hub.update(Resources.configMaps, { ...current, data: sorted })
      return requeueAfter(resync)
    })

/** Adds the summary controller. */
export const addSummaryController = (
  manager: MultiClusterManager,
  resync: Duration.Input = "30 seconds",
): Effect.Effect<MultiClusterController, unknown, Scope.Scope> =>
  controllerManagedBy(manager)
    .named("web-summary")
    .for(Resources.configMaps, {
      engageWithLocalCluster: true,
      namespace: SUMMARY.namespace,
      predicates: [(e) => e.object.metadata.name === SUMMARY.name],
    })
    .watches(
      Resources.configMaps,
      enqueueRequestsFromMapFunc((o) =>
        o.metadata.labels?.app === "web" ? [makeRequest(SUMMARY, HubCluster)] : [],
      ),
    )
    .complete(reconcileSummary(manager, resync))

const web = (name: string): KubeObject => ({
  metadata: { namespace: "default", name, labels: { app: "web" } },
  data: {},
})

/** The controller on in-memory API servers; returns the summary after each step. */
export const demo: Effect.Effect<Array<string>, unknown> = Effect.scoped(
  Effect.gen(function* () {
    const log: Array<string> = []
    const hubServer = yield* FakeApiServer.make()
    const hub = yield* makeCluster({ client: yield* makeMemoryClient(hubServer) })
    const provider = yield* makeMemoryProvider({ name: "demo" })
    const east = yield* FakeApiServer.make()
    const west = yield* FakeApiServer.make()
    yield* east.client().create(Resources.configMaps, web("a"))
    yield* east.client().create(Resources.configMaps, web("b"))
    yield* west.client().create(Resources.configMaps, web("c"))
    yield* provider.add("east", east)
    yield* provider.add("west", west)
    const manager = yield* makeManager({ hub, provider })
    yield* addSummaryController(manager, Duration.millis(200))
    yield* manager.start
    const summary = hubServer
      .client()
      .get(Resources.configMaps, SUMMARY)
      .pipe(
        Effect.map((o) => JSON.stringify(o.data ?? {})),
        Effect.catchTag("NotFound", () => Effect.succeed("none")),
      )
    const expect = (what: string, value: string) =>
      Effect.andThen(
        waitFor(
          what,
          Effect.map(summary, (s) => s === value),
        ),
        Effect.sync(() => void log.push(`${what}: ${value}`)),
      )
    yield* expect("start", JSON.stringify({ east: "2", west: "1" }))
    yield* west.client().create(Resources.configMaps, web("d"))
    yield* expect("west grows", JSON.stringify({ east: "2", west: "2" }))
    yield* hubServer.client().delete(Resources.configMaps, SUMMARY)
    yield* expect("summary deleted and repaired", JSON.stringify({ east: "2", west: "2" }))
    yield* provider.remove("west")
    yield* expect("west leaves", JSON.stringify({ east: "2" }))
    return log
  }),
)

if (import.meta.main)
  NodeRuntime.runMain(
    programMain("aggregating", ({ manager }) => Effect.asVoid(addSummaryController(manager))),
  )
