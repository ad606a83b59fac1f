/**
 * The multi-cluster controller builder (controller-runtime's `builder`, multicluster-runtime's
 * `mcbuilder`): name a controller, declare its watches, complete it with a reconciler; the
 * controller is registered with the manager and engaged with its clusters.
 *
 * ```ts
 * yield* controllerManagedBy(manager)
 *   .named("configmap-mirror")
 *   .for(Resources.configMaps, { engageWithLocalCluster: true })
 *   .watches(Resources.secrets, enqueueRequestForObject(), { clusterFilter: (c) => c.name !== "x" })
 *   .complete((req) => reconcile(req))
 * ```
 *
 * Each of `for`, `owns` and `watches` takes its own engage options (hub, provider clusters, both)
 * and cluster filter, as upstream's `WithEngageWithLocalCluster`, `WithEngageWithProviderClusters`
 * and `WithClusterFilter`; `withOptions` sets the controller's, the defaults of its watches.
 * Unset, a watch runs on the hub without a provider; with one, `Watches` run on the provider's
 * clusters and `For`/`Owns` on the hub only (seed 003: controllers "triggered by events on the
 * hub cluster can continue to use For and Owns"), which then needs `engageWithLocalCluster`.
 *
 * `typedControllerManagedBy(manager, requestType)` builds a controller of the user's own request
 * type (upstream's `TypedControllerManagedBy[request]`); `for`/`owns` need the type's
 * `forObject`.
 *
 * @module
 */

import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import * as E from "effect/Effect"
import type * as Scope from "effect/Scope"
import { closestKey } from "../../core/krtt/suggest.ts"
import type { Predicate } from "../controller/predicate.ts"
import type { ReconcileResult } from "../controller/result.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { Request } from "../workqueue/request.ts"
import {
  type MultiClusterController,
  type MultiClusterControllerOptions,
  make as makeController,
} from "./controller.ts"
import {
  type ClusterEventHandler,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  mapHandler,
} from "./handler.ts"
import type { MultiClusterManager } from "./manager.ts"
import { type ClusterAware, clusterRequest, type RequestType } from "./request.ts"
import type { EngageOptions, WatchDeclaration } from "./watchOptions.ts"

/** Options of `withOptions`: everything but the name, the watches, the request type and the reconciler. */
export type BuilderOptions = Omit<
  MultiClusterControllerOptions<never>,
  "name" | "reconcile" | "watches" | "requestType"
>

/** Options of one watch: its namespace, predicates, and its own engage options and cluster filter. */
export interface WatchOptions<T extends KubeObject> extends EngageOptions {
  readonly namespace?: string | undefined
  readonly predicates?: ReadonlyArray<Predicate<T>> | undefined
}

/** A builder; each call returns a new one. */
export interface Builder<Req extends ClusterAware = Request> {
  readonly named: (name: string) => Builder<Req>
  readonly withOptions: (options: BuilderOptions) => Builder<Req>
  /** Requests for the objects of `resource` (hub only unless its options say otherwise). */
  readonly for: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    options?: WatchOptions<T>,
  ) => Builder<Req>
  /** Requests for the `For` object that controls each object of `resource`, in the object's cluster. */
  readonly owns: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    options?: WatchOptions<T>,
  ) => Builder<Req>
  /** Requests from `handler` for events of `resource` (provider clusters unless its options say otherwise). */
  readonly watches: <T extends KubeObject = KubeObject>(
    resource: ResourceRef,
    handler: ClusterEventHandler<T, Req>,
    options?: WatchOptions<T>,
  ) => Builder<Req>
  /** Builds the controller and adds it to the manager (it runs until the scope closes). */
  readonly complete: <Err>(
    reconcile: (request: Req) => Effect.Effect<ReconcileResult, Err>,
  ) => Effect.Effect<MultiClusterController, BuilderError, Scope.Scope>
}

/**
 * A builder used wrongly (no name, `Owns` before `For`, no watch, `For` without `forObject`, an
 * unknown option: named with the closest known one).
 */
export class BuilderError extends Data.TaggedError("BuilderError")<{ readonly message: string }> {}

interface State<Req extends ClusterAware> {
  readonly name: string | undefined
  readonly options: BuilderOptions
  readonly forResource: ResourceRef | undefined
  readonly watches: ReadonlyArray<WatchDeclaration<never, Req>>
  readonly problems: ReadonlyArray<string>
}

/** Every key of the options objects, checked against their types by the compiler. */
const WATCH_OPTION_KEYS = Object.keys({
  namespace: true,
  predicates: true,
  engageWithLocalCluster: true,
  engageWithProviderClusters: true,
  clusterFilter: true,
} satisfies Record<keyof WatchOptions<KubeObject>, true>)
const BUILDER_OPTION_KEYS = Object.keys({
  engageWithLocalCluster: true,
  engageWithProviderClusters: true,
  clusterFilter: true,
  maxConcurrentReconciles: true,
  gracefulShutdownTimeout: true,
  engagement: true,
  baseDelay: true,
  maxDelay: true,
  bucket: true,
} satisfies Record<keyof BuilderOptions, true>)

/** Unknown keys of an options object (JavaScript callers, typos), each with the closest known key. */
const unknownOptions = (where: string, given: object, known: ReadonlyArray<string>): ReadonlyArray<string> =>
  Object.keys(given)
    .filter((k) => !known.includes(k))
    .map((k) => {
      const near = closestKey(k, known)
      return `${where}: unknown option "${k}"${near === undefined ? "" : `; did you mean "${near}"?`} (known: ${known.join(", ")})`
    })

const declare = <T extends KubeObject, Req extends ClusterAware>(
  kind: WatchDeclaration["kind"],
  resource: ResourceRef,
  handler: ClusterEventHandler<T, Req>,
  o: WatchOptions<T>,
): WatchDeclaration<never, Req> =>
  ({
    kind,
    resource,
    handler,
    namespace: o.namespace,
    predicates: o.predicates,
    engageWithLocalCluster: o.engageWithLocalCluster,
    engageWithProviderClusters: o.engageWithProviderClusters,
    clusterFilter: o.clusterFilter,
  }) as unknown as WatchDeclaration<never, Req>

const builder = <Req extends ClusterAware>(
  manager: MultiClusterManager,
  requestType: RequestType<Req>,
  s: State<Req>,
): Builder<Req> => {
  const next = (change: Partial<State<Req>>) => builder(manager, requestType, { ...s, ...change })
  const forObject = requestType.forObject
  const refuse = (call: string) =>
    `${call} needs a request type with forObject: ${requestType.name} cannot be made from an object key`
  const add = (w: WatchDeclaration<never, Req>) => [...s.watches, w]
  return {
    named: (name) => next({ name }),
    withOptions: (options) =>
      next({
        options: { ...s.options, ...options },
        problems: [...s.problems, ...unknownOptions("withOptions()", options, BUILDER_OPTION_KEYS)],
      }),
    for: (resource, o = {}) =>
      forObject === undefined
        ? next({ problems: [...s.problems, refuse("for()")] })
        : next({
            problems: [...s.problems, ...unknownOptions(`for(${resource.kind})`, o, WATCH_OPTION_KEYS)],
            forResource: resource,
            watches: add(
              declare(
                "For",
                resource,
                mapHandler(enqueueRequestForObject(), (r) => forObject(r.cluster, r)),
                o,
              ),
            ),
          }),
    owns: (resource, o = {}) => {
      const owner = s.forResource
      if (forObject === undefined) return next({ problems: [...s.problems, refuse("owns()")] })
      if (owner === undefined)
        return next({
          problems: [...s.problems, "owns() needs for() first: it enqueues the owner of the For kind"],
        })
      const handler = enqueueRequestForOwner({
        ownerGroup: owner.group,
        ownerKind: owner.kind,
        ownerClusterScoped: !owner.namespaced,
      })
      return next({
        watches: add(
          declare(
            "Owns",
            resource,
            mapHandler(handler, (r) => forObject(r.cluster, r)),
            o,
          ),
        ),
        problems: [...s.problems, ...unknownOptions(`owns(${resource.kind})`, o, WATCH_OPTION_KEYS)],
      })
    },
    watches: (resource, handler, o = {}) =>
      next({
        watches: add(declare("Watches", resource, handler, o)),
        problems: [...s.problems, ...unknownOptions(`watches(${resource.kind})`, o, WATCH_OPTION_KEYS)],
      }),
    complete: (reconcile) => completeWith(manager, requestType, s, reconcile),
  }
}

const completeWith = <Req extends ClusterAware, Err>(
  manager: MultiClusterManager,
  requestType: RequestType<Req>,
  s: State<Req>,
  reconcile: (request: Req) => Effect.Effect<ReconcileResult, Err>,
): Effect.Effect<MultiClusterController, BuilderError, Scope.Scope> =>
  E.gen(function* () {
    const problem = s.problems[0]
    if (problem !== undefined) return yield* E.fail(new BuilderError({ message: problem }))
    const name = s.name ?? s.forResource?.resource
    if (name === undefined || name === "")
      return yield* E.fail(
        new BuilderError({ message: "the controller needs a name: call named() (or for())" }),
      )
    if (s.watches.length === 0)
      return yield* E.fail(
        new BuilderError({ message: `controller ${name}: declare at least one watch (for, owns, watches)` }),
      )
    const controller = yield* makeController<Err, Req>(manager, {
      ...s.options,
      name,
      requestType,
      reconcile,
      watches: s.watches,
    })
    yield* manager.add(controller)
    return controller
  })

/** A builder of a controller managed by `manager`, its requests `{cluster, namespace, name}`. */
export const controllerManagedBy = (manager: MultiClusterManager): Builder<Request> =>
  typedControllerManagedBy(manager, clusterRequest)

/** A builder of a controller of the request type `requestType` (see `customRequest`). */
export const typedControllerManagedBy = <Req extends ClusterAware>(
  manager: MultiClusterManager,
  requestType: RequestType<Req>,
): Builder<Req> =>
  builder(manager, requestType, {
    name: undefined,
    options: {},
    forResource: undefined,
    watches: [],
    problems: [],
  })
