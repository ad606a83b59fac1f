/**
 * The multi-cluster controller builder (controller-runtime's `builder`, multicluster-runtime's
 * `mcbuilder`): name a controller, declare its watches, complete it with a reconciler; the
 * controller is registered with the manager and engaged with its clusters.
 *
 * ```ts
 * yield* controllerManagedBy(manager)
 *   .named("configmap-mirror")
 *   .watches(Resources.configMaps, enqueueRequestForObject())
 *   .complete((req) => reconcile(req))
 * ```
 *
 * `For` and `Owns` watch the hub only (seed 003: "Controllers that should be triggered by events on
 * the hub cluster can continue to use For and Owns"); with a provider, such a controller needs
 * `withOptions({ engageWithLocalCluster: true })`, as the seed's example shows. `Watches` watch
 * every cluster the controller is engaged with.
 *
 * @module
 */

import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import * as E from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Predicate } from "../controller/predicate.ts"
import type { ReconcileResult } from "../controller/result.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { Request } from "../workqueue/request.ts"
import {
  type MultiClusterController,
  type MultiClusterControllerOptions,
  make as makeController,
  type WatchDeclaration,
} from "./controller.ts"
import { type ClusterEventHandler, enqueueRequestForObject, enqueueRequestForOwner } from "./handler.ts"
import type { MultiClusterManager } from "./manager.ts"

/** Options of `withOptions`: everything but the name, the watches and the reconciler. */
export type BuilderOptions = Omit<MultiClusterControllerOptions<never>, "name" | "reconcile" | "watches">

/** Options of one watch. */
export interface WatchOptions<T extends KubeObject> {
  readonly namespace?: string | undefined
  readonly predicates?: ReadonlyArray<Predicate<T>> | undefined
}

/** A builder; each call returns a new one. */
export interface Builder {
  readonly named: (name: string) => Builder
  readonly withOptions: (options: BuilderOptions) => Builder
  /** Requests for the objects of `resource` on the hub. */
  readonly for: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    options?: WatchOptions<T>,
  ) => Builder
  /** Requests for the `For` object that controls each object of `resource` on the hub. */
  readonly owns: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    options?: WatchOptions<T>,
  ) => Builder
  /** Requests from `handler` for events of `resource` on every engaged cluster. */
  readonly watches: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    handler: ClusterEventHandler<T>,
    options?: WatchOptions<T>,
  ) => Builder
  /** Builds the controller and adds it to the manager (it runs until the scope closes). */
  readonly complete: <Err>(
    reconcile: (request: Request) => Effect.Effect<ReconcileResult, Err>,
  ) => Effect.Effect<MultiClusterController, BuilderError, Scope.Scope>
}

/** A builder used wrongly (no name, `Owns` before `For`, no watch). */
export class BuilderError extends Data.TaggedError("BuilderError")<{ readonly message: string }> {}

interface State {
  readonly name: string | undefined
  readonly options: BuilderOptions
  readonly forResource: ResourceRef | undefined
  readonly watches: ReadonlyArray<WatchDeclaration<never>>
  readonly ownsBeforeFor: boolean
}

const builder = (manager: MultiClusterManager, s: State): Builder => ({
  named: (name) => builder(manager, { ...s, name }),
  withOptions: (options) => builder(manager, { ...s, options: { ...s.options, ...options } }),
  for: (resource, o = {}) =>
    builder(manager, {
      ...s,
      forResource: resource,
      watches: [
        ...s.watches,
        {
          kind: "For",
          resource,
          namespace: o.namespace,
          handler: enqueueRequestForObject(),
          predicates: o.predicates,
        } as WatchDeclaration<never>,
      ],
    }),
  owns: (resource, o = {}) => {
    const owner = s.forResource
    if (owner === undefined) return builder(manager, { ...s, ownsBeforeFor: true })
    return builder(manager, {
      ...s,
      watches: [
        ...s.watches,
        {
          kind: "Owns",
          resource,
          namespace: o.namespace,
          handler: enqueueRequestForOwner({
            ownerGroup: owner.group,
            ownerKind: owner.kind,
            ownerClusterScoped: !owner.namespaced,
          }),
          predicates: o.predicates,
        } as WatchDeclaration<never>,
      ],
    })
  },
  watches: (resource, handler, o = {}) =>
    builder(manager, {
      ...s,
      watches: [
        ...s.watches,
        {
          kind: "Watches",
          resource,
          namespace: o.namespace,
          handler,
          predicates: o.predicates,
        } as WatchDeclaration<never>,
      ],
    }),
  complete: (reconcile) =>
    E.gen(function* () {
      if (s.ownsBeforeFor)
        return yield* E.fail(
          new BuilderError({ message: "owns() needs for() first: it enqueues the owner of the For kind" }),
        )
      const name = s.name ?? s.forResource?.resource
      if (name === undefined || name === "")
        return yield* E.fail(
          new BuilderError({ message: "the controller needs a name: call named() (or for())" }),
        )
      if (s.watches.length === 0)
        return yield* E.fail(
          new BuilderError({
            message: `controller ${name}: declare at least one watch (for, owns, watches)`,
          }),
        )
      const controller = yield* makeController(manager, {
        ...s.options,
        name,
        reconcile: reconcile as (request: Request) => Effect.Effect<ReconcileResult, unknown>,
        watches: s.watches,
      })
      yield* manager.add(controller)
      return controller
    }),
})

/** A builder of a controller managed by `manager`. */
export const controllerManagedBy = (manager: MultiClusterManager): Builder =>
  builder(manager, {
    name: undefined,
    options: {},
    forResource: undefined,
    watches: [],
    ownsBeforeFor: false,
  })
