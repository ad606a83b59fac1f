/**
 * `krtt inventory`'s controllers: an AGGREGATING multi-cluster controller (seed 003, Goals 2)
 * that keeps one hub ConfigMap `krtt-inventory` with a key per engaged cluster, wired on the
 * public multi-cluster runtime (`shell/multicluster/index.ts`).
 *
 * # Expected flow
 * Two controllers of one manager:
 * - `inventory-nodes` `Watches` Nodes in every engaged provider cluster; its reconcile forwards
 *   each cluster's request to the one hub request `cluster:///NS/krtt-inventory` (so the hub is
 *   never asked for its own Nodes: a hub with Watches would watch them too);
 * - `inventory` is engaged with the hub only (`For` the ConfigMap, `engageWithLocalCluster`), so
 *   an edit or a deletion of the ConfigMap is repaired; its reconcile is `reconcile.ts`.
 * Clusters that leave or turn unhealthy send no Node event: a poll of the provider's view every
 * `clusterPollInterval` (1 s) enqueues the hub request when it changes.
 *
 * # Guarantees
 * Keys that name no cluster this controller knows are never touched. One request, so one
 * reconcile at a time.
 *
 * @module
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import { INVENTORY_CONFIGMAP, InventoryConfigError, inventoryConfig } from "../../../core/inventory/index.ts"
import { done, requeueAfter } from "../../controller/result.ts"
import { Resources } from "../../kube/resource.ts"
import {
  type BuilderError,
  controllerManagedBy,
  enqueueRequestsFromMapFunc,
  HubCluster,
  type MultiClusterController,
  type MultiClusterManager,
} from "../../multicluster/index.ts"
import { makeRequest } from "../../workqueue/request.ts"
import { type Node, NodesResource, pollProvider, readinessChanged, type VersionSeen } from "./observe.ts"
import { type InventoryController, type InventoryOptions, InventoryOptionsError } from "./options.ts"
import { reconcileInventory } from "./reconcile.ts"

/** Adds the inventory's two controllers to `manager` and starts the provider poll. */
export const addToManager = (
  manager: MultiClusterManager,
  options: InventoryOptions,
): Effect.Effect<
  InventoryController,
  InventoryConfigError | InventoryOptionsError | BuilderError,
  Scope.Scope
> =>
  Effect.gen(function* () {
    const config = yield* Effect.try({
      try: () => inventoryConfig(options.config),
      catch: (e) =>
        e instanceof InventoryConfigError ? e : new InventoryConfigError({ message: String(e) }),
    })
    if (options.namespace === "")
      return yield* new InventoryOptionsError({
        message: "--namespace: give the hub namespace of the inventory",
      })
    const target = { namespace: options.namespace, name: options.name ?? INVENTORY_CONFIGMAP }
    const request = makeRequest(target, HubCluster)
    const stop =
      options.gracefulShutdownTimeout === undefined
        ? {}
        : { gracefulShutdownTimeout: Duration.millis(options.gracefulShutdownTimeout) }
    const pending = yield* Ref.make<ReadonlyMap<string, number>>(new Map())
    const versions = yield* Ref.make<ReadonlyMap<string, VersionSeen>>(new Map())
    // The hub controller is created first; the node controller (created next) forwards into
    // its queue, and the hub's reconcile asks it which clusters it watches.
    let nodes: MultiClusterController | undefined
    const hub = yield* controllerManagedBy(manager)
      .named("inventory")
      .withOptions({ engageWithLocalCluster: true, engageWithProviderClusters: false, ...stop })
      .for(Resources.configMaps, {
        namespace: target.namespace,
        predicates: [(e) => e.object.metadata.name === target.name],
      })
      .complete(() =>
        nodes === undefined
          ? Effect.succeed(requeueAfter(Duration.millis(config.retry)))
          : reconcileInventory({ manager, nodes, config, versions, target, pending }),
      )
    nodes = yield* controllerManagedBy(manager)
      .named("inventory-nodes")
      .withOptions(stop)
      .watches(
        NodesResource,
        enqueueRequestsFromMapFunc<Node>((_node, cluster) => [makeRequest({ name: "nodes" }, cluster.name)]),
        { predicates: [readinessChanged] },
      )
      .complete(() => Effect.as(hub.queue.add(request), done()))
    // Clusters that leave or turn unhealthy send no Node event: watch the provider's view.
    yield* Effect.forkScoped(pollProvider(manager, config.clusterPollInterval, hub.queue.add(request)))
    return { hub, nodes, request }
  })
