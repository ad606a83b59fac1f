/**
 * `krtt propagate`'s controllers (seed 003, Goals 1: a UNIFORM multi-cluster controller sourcing
 * from the hub), wired on the public APIs of the multi-cluster runtime (`controllerManagedBy`,
 * the manager's clusters and provider) and of the scoped cache (`asScopedCache`).
 *
 * # Expected flow
 * One controller per kind (ConfigMap, Secret) watches the hub (`For`, engaged with the hub only);
 * a hub request is one source, reconciled by `source.ts`. Copies' events, the scoped caches'
 * `PermissionLost` events and clusters engaged or gone enqueue sources (`follow.ts`).
 *
 * # Guarantees
 * - Secret data is never logged: logs and Events name objects, never their content.
 * - Everything started here (followers, the cluster sweep) stops with the scope.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import {
  PropagateConfigError,
  PropagateLabel,
  propagateConfig,
  type SourceKind,
} from "../../../core/propagate/index.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import {
  type BuilderError,
  controllerManagedBy,
  type MultiClusterController,
  type MultiClusterManager,
} from "../../multicluster/index.ts"
import { makeRequest } from "../../workqueue/request.ts"
import { type Enqueue, isSourceOrReleasing, makeFollow, sweepClusters } from "./follow.ts"
import { resourceOf } from "./observe.ts"
import type { PropagateOptions, Propagator } from "./options.ts"
import { makePending } from "./pending.ts"
import { makeRefusals } from "./refusals.ts"
import { cleanReleasedSource, reconcileSource, type SourceDeps } from "./source.ts"

/**
 * Adds the propagation controllers to `manager` (before or after `start`). `hub` is the hub's
 * client (finalizer, annotation, Events, the pending ConfigMap).
 */
export const addToManager = (
  manager: MultiClusterManager,
  hub: KubeClientShape,
  options: PropagateOptions,
): Effect.Effect<Propagator, PropagateConfigError | BuilderError, Scope.Scope> =>
  Effect.gen(function* () {
    const config = yield* Effect.try({
      try: () => propagateConfig(options.config ?? {}),
      catch: (e) =>
        e instanceof PropagateConfigError ? e : new PropagateConfigError({ message: String(e) }),
    })
    const kinds = options.kinds ?? (["ConfigMap", "Secret"] as const)
    const scope = yield* Effect.scope
    const byKind = new Map<SourceKind, MultiClusterController>()
    const enqueue: Enqueue = (kind, namespace, name) =>
      Effect.suspend(() => byKind.get(kind)?.queue.add(makeRequest({ namespace, name })) ?? Effect.void)
    const copyNamespace = options.copyNamespace
    const deps: SourceDeps = {
      manager,
      hub,
      config,
      component: options.component ?? "krtt-propagate",
      follow: makeFollow(scope, enqueue, makeRefusals(config.permissionRecheckInterval)),
      pending: makePending(hub, options.pendingNamespace, config.retryInterval),
      namespaceOf: (cluster, namespace) =>
        copyNamespace === undefined ? namespace : copyNamespace(cluster, namespace),
      labelsOf: (cluster) => options.clusterLabels?.(cluster) ?? Effect.succeed({}),
      lastEvents: new Map(),
    }
    for (const kind of kinds) {
      const controller = yield* controllerManagedBy(manager)
        .named(kind === "Secret" ? "propagate-secrets" : "propagate-configmaps")
        .withOptions({ engageWithLocalCluster: true, maxConcurrentReconciles: config.concurrency })
        .for(resourceOf(kind), {
          predicates: [
            (e) =>
              isSourceOrReleasing(e.object) ||
              (e._tag === "Updated" && e.old.metadata.labels?.[PropagateLabel] === "true"),
          ],
        })
        .complete(reconcileSource(deps, kind))
      byKind.set(kind, controller)
    }
    const clean = cleanReleasedSource(deps)
    yield* sweepClusters(
      { manager, kinds, config, enqueue, follow: deps.follow, pending: deps.pending, clean },
      scope,
    )
    return { controllers: [...byKind.values()], config }
  })
