/**
 * Carries out the actions of core/ipam's reconcile (`ipam.reconcile`) against the API server,
 * one at a time, for the table runner (shell/controller/table.ts): `run(action)` answers each
 * with an `Outcome` of core/krtt/run.ts. Nothing is decided here: each action says what to
 * write; this module only says how.
 *
 * # Expected flow
 * `makeInterpreter` starts from the objects the reconcile read; each write keeps the version the
 * server returned, so that the next write to the same object carries it. A write the server
 * refuses is `Outcome.failed` with a `WriteRefused` trigger, which the table answers
 * (`reconcileRefused`), and an `IpamWriteError` the reconcile fails with.
 *
 * # Guarantees
 * - `ReleaseCidrs` frees CIDRs only when the `RemoveFinalizer` of the same ClusterConfig before
 *   it succeeded (the ClusterConfig no longer holds them); a ClusterConfig already gone is not
 *   released here (someone else removed the finalizer: the next refresh frees the CIDRs).
 * - Writes to an object carry the resourceVersion the reconcile read (optimistic concurrency):
 *   a Conflict fails the reconcile, which is retried with fresh reads.
 * - `recorded` tells whether the Cluster's applied-rules annotation was written, so that the
 *   caller keeps or frees the CIDRs the decision acquired.
 * - Events go through shell/kube/events.ts and are best effort: a refused Event is logged,
 *   never fails the reconcile.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import {
  APPLIED_RULES_ANNOTATION,
  type ObjectKey,
  OPERATION_ANNOTATION,
  type ReconcileAction,
  type ReconcileRunTrigger,
  type ReconcileStatus,
} from "../../core/ipam/index.ts"
import { Outcome } from "../../core/krtt/run.ts"
import type { TransitionResult } from "../../core/krtt/types.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import { recordEventOrWarn } from "../kube/events.ts"
import { mergePatch } from "../kube/patch.ts"
import type { KubeObject } from "../kube/resource.ts"
import { describeAction, IpamWriteError } from "./errors.ts"
import { ClusterConfigResource, OpenmcpClusterResource } from "./resources.ts"

/** What the interpreter needs: the client, the objects as read, and where CIDRs are freed. */
export interface InterpretContext {
  readonly client: KubeClientShape
  /** The reconcile's request: the Cluster's key. */
  readonly request: ObjectKey
  /** The Cluster as the reconcile read it (undefined when gone). */
  readonly cluster: KubeObject | undefined
  /** The ClusterConfigs as the reconcile read them, by name. */
  readonly clusterConfigs: ReadonlyMap<string, KubeObject>
  readonly release: (cidrs: ReadonlyArray<string>) => Effect.Effect<void>
  /** The component name on Events. */
  readonly component: string
}

/** What one run's writes leave behind. */
interface RunState {
  /** The Cluster as the last write returned it. */
  cluster: KubeObject | undefined
  readonly ccs: Map<string, KubeObject>
  /** ClusterConfigs whose finalizer this run removed: their CIDRs may be released. */
  readonly unheld: Set<string>
  recorded: boolean
}

/** The outcome of one action, as the table runner takes it. */
export type IpamOutcome = Outcome<ReconcileRunTrigger, IpamWriteError>

/** Carries out the actions of one run. */
export interface Interpreter {
  /** Carries out `action` of `decided`. */
  readonly run: (
    action: ReconcileAction,
    decided: TransitionResult<ReconcileAction, ReconcileStatus>,
  ) => Effect.Effect<IpamOutcome>
  /** Whether a `SetAppliedRules` action was carried out. */
  readonly recorded: () => boolean
  /** The Cluster as the last write returned it (as read when nothing was written to it). */
  readonly cluster: () => KubeObject | undefined
}

type ClusterConfigAction = Extract<ReconcileAction, { readonly clusterConfig: unknown }>

/** Patches a ClusterConfig of the run on the version it holds of it, keeping what the server returns. */
const patchClusterConfig = (
  ctx: InterpretContext,
  s: RunState,
  action: ClusterConfigAction,
  body: (cc: KubeObject | undefined) => Record<string, unknown>,
): Effect.Effect<KubeObject, KubeError> => {
  const cc = s.ccs.get(action.clusterConfig.name)
  const { metadata, ...rest } = body(cc) as { metadata?: Record<string, unknown> }
  return ctx.client
    .patch(
      ClusterConfigResource,
      action.clusterConfig,
      mergePatch({ metadata: { resourceVersion: cc?.metadata.resourceVersion, ...metadata }, ...rest }),
    )
    .pipe(Effect.tap((o) => Effect.sync(() => s.ccs.set(action.clusterConfig.name, o))))
}

/** Writes of the Cluster: the used-up reconcile annotation, the applied rules. */
const writeCluster = (
  ctx: InterpretContext,
  s: RunState,
  action: Extract<ReconcileAction, { readonly _tag: "RemoveOperationAnnotation" | "SetAppliedRules" }>,
): Effect.Effect<void, KubeError> => {
  const patch =
    action._tag === "RemoveOperationAnnotation"
      ? { metadata: { annotations: { [OPERATION_ANNOTATION]: null } } }
      : {
          metadata: {
            resourceVersion: s.cluster?.metadata.resourceVersion,
            annotations: { [APPLIED_RULES_ANNOTATION]: action.value },
          },
        }
  return ctx.client.patch(OpenmcpClusterResource, action.cluster, mergePatch(patch)).pipe(
    Effect.tap((o) =>
      Effect.sync(() => {
        s.cluster = o
        if (action._tag === "SetAppliedRules") s.recorded = true
      }),
    ),
    Effect.asVoid,
  )
}

/** Creates a ClusterConfig; its owner reference gets the Cluster's uid when core left it out. */
const createClusterConfig = (
  ctx: InterpretContext,
  s: RunState,
  action: Extract<ReconcileAction, { readonly _tag: "CreateClusterConfig" }>,
): Effect.Effect<void, KubeError> =>
  ctx.client
    .create(ClusterConfigResource, {
      ...action.object,
      metadata: {
        ...action.object.metadata,
        ownerReferences: action.object.metadata.ownerReferences.map((r) => ({
          ...r,
          uid: r.uid ?? s.cluster?.metadata.uid ?? "",
        })),
      },
    } as KubeObject)
    .pipe(Effect.asVoid)

/** Writes of a ClusterConfig: annotation, patches, finalizers, deletion; and the release of its CIDRs. */
const writeClusterConfig = (
  ctx: InterpretContext,
  s: RunState,
  action: ClusterConfigAction,
): Effect.Effect<void, KubeError> => {
  switch (action._tag) {
    case "RemoveClusterConfigOperationAnnotation":
      return Effect.asVoid(
        patchClusterConfig(ctx, s, action, () => ({
          metadata: { annotations: { [OPERATION_ANNOTATION]: null } },
        })),
      )
    case "AddPatches":
      return Effect.asVoid(
        patchClusterConfig(ctx, s, action, (cc) => {
          const existing = ((cc?.spec as { patches?: ReadonlyArray<unknown> } | undefined)?.patches ??
            []) as ReadonlyArray<unknown>
          return { spec: { patches: [...existing, ...action.patches] } }
        }),
      )
    case "AddFinalizer":
    case "RemoveFinalizer":
      return patchClusterConfig(ctx, s, action, (cc) => {
        const finalizers = (cc?.metadata.finalizers ?? []).filter((f) => f !== action.finalizer)
        return {
          metadata: {
            finalizers: action._tag === "AddFinalizer" ? [...finalizers, action.finalizer] : finalizers,
          },
        }
      }).pipe(
        Effect.tap(() =>
          Effect.sync(() => {
            if (action._tag === "RemoveFinalizer") s.unheld.add(action.clusterConfig.name)
          }),
        ),
        Effect.asVoid,
      )
    case "ReleaseCidrs":
      return s.unheld.has(action.clusterConfig.name)
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
      return ctx.client.delete(ClusterConfigResource, action.clusterConfig).pipe(
        Effect.asVoid,
        Effect.catchTag("NotFound", () => Effect.void),
      )
  }
}

/** The Kubernetes Event of an `Event` action (best effort; the Cluster's uid when it is about the Cluster). */
const recordEvent = (
  ctx: InterpretContext,
  s: RunState,
  action: Extract<ReconcileAction, { readonly _tag: "Event" }>,
): Effect.Effect<void> =>
  recordEventOrWarn(
    ctx.client,
    {
      apiVersion: action.object.apiVersion,
      kind: action.object.kind,
      namespace: action.object.namespace,
      name: action.object.name,
      uid: action.object.kind === "Cluster" ? s.cluster?.metadata.uid : undefined,
    },
    { type: action.type, reason: action.reason, message: action.message, action: action.action },
    ctx.component,
  )

/** One action's write. */
const write = (
  ctx: InterpretContext,
  s: RunState,
  action: ReconcileAction,
): Effect.Effect<void, KubeError> => {
  switch (action._tag) {
    case "RemoveOperationAnnotation":
    case "SetAppliedRules":
      return writeCluster(ctx, s, action)
    case "CreateClusterConfig":
      return createClusterConfig(ctx, s, action)
    case "Event":
      return recordEvent(ctx, s, action)
    default:
      return writeClusterConfig(ctx, s, action)
  }
}

/** The interpreter of one run, starting from the objects the reconcile read. */
export const makeInterpreter = (ctx: InterpretContext): Interpreter => {
  const s: RunState = {
    cluster: ctx.cluster,
    ccs: new Map(ctx.clusterConfigs),
    unheld: new Set(),
    recorded: false,
  }
  const run = (
    action: ReconcileAction,
    decided: TransitionResult<ReconcileAction, ReconcileStatus>,
  ): Effect.Effect<IpamOutcome> =>
    Effect.gen(function* () {
      const result = yield* Effect.result(write(ctx, s, action))
      if (Result.isSuccess(result)) return Outcome.done
      const cause = result.failure
      yield* Effect.logWarning(`could not ${describeAction(action)}`).pipe(
        Effect.annotateLogs({ error: `${cause._tag}: ${cause.message}` }),
      )
      return Outcome.failed<ReconcileRunTrigger, IpamWriteError>(
        {
          _tag: "WriteRefused",
          namespace: ctx.request.namespace,
          name: ctx.request.name,
          action,
          reason: cause._tag,
          message: cause.message,
          answer: decided,
        },
        new IpamWriteError({ action, cause }),
      )
    })
  return { run, recorded: () => s.recorded, cluster: () => s.cluster }
}
