/**
 * Performs the actions of core/ipam's reconcile decision (`ipam.reconcile`) against the API
 * server, in order, stopping at the first the server refuses. Nothing is decided here: each
 * action says what to write; this module only says how.
 *
 * # Guarantees
 * - `ReleaseCidrs` frees CIDRs only when the `RemoveFinalizer` of the same ClusterConfig before
 *   it succeeded (the ClusterConfig no longer holds them); a ClusterConfig already gone is not
 *   released here (someone else removed the finalizer: the next refresh frees the CIDRs).
 * - Writes to an object carry the resourceVersion the reconcile read (optimistic concurrency):
 *   a Conflict fails the reconcile, which is retried with fresh reads.
 * - `recorded` tells whether the Cluster's applied-rules annotation was written, so that the
 *   caller keeps or frees the CIDRs the decision acquired.
 * - Events are best effort: a refused Event is logged, never fails the reconcile.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import {
  APPLIED_RULES_ANNOTATION,
  OPERATION_ANNOTATION,
  type ReconcileAction,
} from "../../core/ipam/index.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { ClusterConfigResource, OpenmcpClusterResource } from "./resources.ts"

/** What the interpreter needs: the client, the objects as read, and where CIDRs are freed. */
export interface InterpretContext {
  readonly client: KubeClientShape
  /** The Cluster as the reconcile read it (undefined when gone). */
  readonly cluster: KubeObject | undefined
  /** The ClusterConfigs as the reconcile read them, by name. */
  readonly clusterConfigs: ReadonlyMap<string, KubeObject>
  readonly release: (cidrs: ReadonlyArray<string>) => Effect.Effect<void>
  /** The component name on Events. */
  readonly component: string
}

export interface InterpretOutcome {
  /** Whether a `SetAppliedRules` action was performed. */
  readonly recorded: boolean
  /** The action the server refused, with its error; undefined when every action ran. */
  readonly failed: { readonly action: ReconcileAction; readonly error: KubeError } | undefined
  /** The Cluster as the last write returned it (as read when nothing was written to it). */
  readonly cluster: KubeObject | undefined
}

const describe = (action: ReconcileAction): string => {
  switch (action._tag) {
    case "CreateClusterConfig":
      return `create ClusterConfig ${action.object.metadata.namespace}/${action.object.metadata.name}`
    case "RemoveOperationAnnotation":
    case "SetAppliedRules":
      return `${action._tag} on Cluster ${action.cluster.namespace}/${action.cluster.name}`
    case "Event":
      return `Event ${action.reason} on ${action.object.namespace}/${action.object.name}`
    default:
      return `${action._tag} on ClusterConfig ${action.clusterConfig.namespace}/${action.clusterConfig.name}`
  }
}

/** Runs `actions` in order; see the module's guarantees. */
export const interpret = (
  ctx: InterpretContext,
  actions: ReadonlyArray<ReconcileAction>,
): Effect.Effect<InterpretOutcome> =>
  Effect.gen(function* () {
    const { client } = ctx
    let cluster = ctx.cluster
    const ccs = new Map(ctx.clusterConfigs)
    /** ClusterConfigs whose finalizer this run removed: their CIDRs may be released. */
    const unheld = new Set<string>()
    let recorded = false
    for (const action of actions) {
      const step: Effect.Effect<void, KubeError> = (() => {
        switch (action._tag) {
          case "RemoveOperationAnnotation":
            return client
              .patch(
                OpenmcpClusterResource,
                action.cluster,
                mergePatch({ metadata: { annotations: { [OPERATION_ANNOTATION]: null } } }),
              )
              .pipe(
                Effect.tap((o) =>
                  Effect.sync(() => {
                    cluster = o
                  }),
                ),
                Effect.asVoid,
              )
          case "RemoveClusterConfigOperationAnnotation": {
            const cc = ccs.get(action.clusterConfig.name)
            return client
              .patch(
                ClusterConfigResource,
                action.clusterConfig,
                mergePatch({
                  metadata: {
                    resourceVersion: cc?.metadata.resourceVersion,
                    annotations: { [OPERATION_ANNOTATION]: null },
                  },
                }),
              )
              .pipe(
                Effect.tap((o) =>
                  Effect.sync(() => {
                    ccs.set(action.clusterConfig.name, o)
                  }),
                ),
                Effect.asVoid,
              )
          }
          case "SetAppliedRules":
            return client
              .patch(
                OpenmcpClusterResource,
                action.cluster,
                mergePatch({
                  metadata: {
                    resourceVersion: cluster?.metadata.resourceVersion,
                    annotations: { [APPLIED_RULES_ANNOTATION]: action.value },
                  },
                }),
              )
              .pipe(
                Effect.tap((o) =>
                  Effect.sync(() => {
                    cluster = o
                    recorded = true
                  }),
                ),
                Effect.asVoid,
              )
          case "CreateClusterConfig":
            return client
              .create(ClusterConfigResource, {
                ...action.object,
                metadata: {
                  ...action.object.metadata,
                  // The owner reference needs the Cluster's uid; core leaves it out when unknown.
                  ownerReferences: action.object.metadata.ownerReferences.map((r) => ({
                    ...r,
                    uid: r.uid ?? cluster?.metadata.uid ?? "",
                  })),
                },
              } as KubeObject)
              .pipe(Effect.asVoid)
          case "AddPatches": {
            const cc = ccs.get(action.clusterConfig.name)
            const existing = ((cc?.spec as { patches?: ReadonlyArray<unknown> } | undefined)?.patches ??
              []) as ReadonlyArray<unknown>
            return client
              .patch(
                ClusterConfigResource,
                action.clusterConfig,
                mergePatch({
                  metadata: { resourceVersion: cc?.metadata.resourceVersion },
                  spec: { patches: [...existing, ...action.patches] },
                }),
              )
              .pipe(
                Effect.tap((o) =>
                  Effect.sync(() => {
                    ccs.set(action.clusterConfig.name, o)
                  }),
                ),
                Effect.asVoid,
              )
          }
          case "AddFinalizer":
          case "RemoveFinalizer": {
            const cc = ccs.get(action.clusterConfig.name)
            const finalizers = cc?.metadata.finalizers ?? []
            const next =
              action._tag === "AddFinalizer"
                ? [...finalizers.filter((f) => f !== action.finalizer), action.finalizer]
                : finalizers.filter((f) => f !== action.finalizer)
            return client
              .patch(
                ClusterConfigResource,
                action.clusterConfig,
                mergePatch({ metadata: { resourceVersion: cc?.metadata.resourceVersion, finalizers: next } }),
              )
              .pipe(
                Effect.tap((o) =>
                  Effect.sync(() => {
                    ccs.set(action.clusterConfig.name, o)
                    if (action._tag === "RemoveFinalizer") unheld.add(action.clusterConfig.name)
                  }),
                ),
                Effect.asVoid,
              )
          }
          case "ReleaseCidrs":
            return unheld.has(action.clusterConfig.name)
              ? ctx.release(action.cidrs)
              : Effect.logWarning(
                  "CIDRs not released here: the ClusterConfig's finalizer was not removed by this reconcile",
                ).pipe(
                  Effect.annotateLogs({
                    clusterConfig: `${action.clusterConfig.namespace}/${action.clusterConfig.name}`,
                    cidrs: action.cidrs.join(","),
                  }),
                )
          case "DeleteClusterConfig":
            return client.delete(ClusterConfigResource, action.clusterConfig).pipe(
              Effect.asVoid,
              Effect.catchTag("NotFound", () => Effect.void),
            )
          case "Event":
            return Effect.gen(function* () {
              const now = new Date(yield* Clock.currentTimeMillis).toISOString()
              const uid = action.object.kind === "Cluster" ? cluster?.metadata.uid : undefined
              yield* client
                .create(Resources.events, {
                  apiVersion: "v1",
                  kind: "Event",
                  metadata: { namespace: action.object.namespace, generateName: `${action.object.name}.` },
                  involvedObject: {
                    apiVersion: action.object.apiVersion,
                    kind: action.object.kind,
                    namespace: action.object.namespace,
                    name: action.object.name,
                    ...(uid === undefined ? {} : { uid }),
                  },
                  type: action.type,
                  reason: action.reason,
                  action: action.action,
                  message: action.message,
                  source: { component: ctx.component },
                  reportingComponent: ctx.component,
                  firstTimestamp: now,
                  lastTimestamp: now,
                  count: 1,
                })
                .pipe(
                  Effect.asVoid,
                  Effect.catch((e: KubeError) =>
                    Effect.logWarning("an Event was refused").pipe(
                      Effect.annotateLogs({ event: action.reason, error: `${e._tag}: ${e.message}` }),
                    ),
                  ),
                )
            })
        }
      })()
      const result = yield* Effect.result(step)
      if (Result.isFailure(result)) {
        yield* Effect.logWarning(`could not ${describe(action)}`).pipe(
          Effect.annotateLogs({ error: `${result.failure._tag}: ${result.failure.message}` }),
        )
        return { recorded, failed: { action, error: result.failure }, cluster }
      }
    }
    return { recorded, failed: undefined, cluster }
  })
