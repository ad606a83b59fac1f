/**
 * Carries out the Cluster controller's actions against the API server, one at a time, for the
 * table runner (shell/controller/table.ts): `makeRun(ctx)` is the `run` of one reconcile. Writes
 * carry the resourceVersion that was read (a Conflict means the object changed: the reconcile is
 * retried), and a status patch touches only what the controller owns (`patches.ts`).
 *
 * Reads go through the watch-backed stores the controller observes from, as upstream's client
 * reads the kinds its manager watches through its cache: the provider objects that
 * `PatchExternal` merges its owner reference and label into come from their kind's store; only
 * a write that conflicts (the store was behind) is recomputed against a live read.
 *
 * Expected flow: each action answers an `Outcome` of core/krtt/run.ts: done; `Requeue` asks for
 * a requeue; a refused call is `Outcome.failed` with the `ActionFailed` trigger and its typed
 * failure (errors.ts), so that the table decides once more. `ReturnError` makes no call: the
 * controller ends the reconcile with it (controller.ts).
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { ClusterAction, ObjectRef } from "../../core/cluster/actions.ts"
import { ClusterApiVersion } from "../../core/cluster/contract.ts"
import type { ActionFailure } from "../../core/cluster/failure.ts"
import type { ClusterResult } from "../../core/cluster/transitions.ts"
import type { ClusterStatus, ClusterTrigger } from "../../core/cluster/types.ts"
import { Outcome } from "../../core/krtt/run.ts"
import { ClusterResource } from "../clustercache/service.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { recordEvent } from "../kube/events.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, type OwnerReference, type ResourceRef, Resources } from "../kube/resource.ts"
import type { ReadonlyStore } from "../reflector/store.ts"
import type { ContractError } from "./contract.ts"
import {
  actionFailureOf,
  ClusterCaError,
  type KindUnreadableError,
  NotCachedError,
  type RunError,
} from "./errors.ts"
import { makeAdminKubeconfig } from "./kubeconfigSecret.ts"
import { ownerPatch, statusPatch } from "./patches.ts"

export interface InterpretContext {
  readonly client: KubeClientShape
  /** The resource of an external or descendant reference. */
  readonly resolve: (ref: ObjectRef) => Effect.Effect<ResourceRef, ContractError>
  /**
   * The watch-backed store of an infrastructure or control-plane kind (the one the reconcile
   * observed it from).
   */
  readonly external: (
    ref: ObjectRef,
  ) => Effect.Effect<ReadonlyStore<KubeObject>, ContractError | KindUnreadableError>
  /** The Cluster as read at the start of the reconcile. */
  readonly cluster: KubeObject | undefined
  readonly component: string
}

/** What carrying out one action tells the run of the Cluster controller's table. */
export type ClusterOutcome = Outcome<ClusterTrigger, ActionFailure>

/**
 * How often a write that conflicts (a status patch, or an owner-reference patch of a provider
 * object read from its store) is recomputed against a fresh read.
 */
export const CONFLICT_RETRIES = 3

/** The Cluster's latest resourceVersion in this reconcile: each write to it advances it. */
interface Version {
  resourceVersion: string | undefined
}

/** Adds or removes the finalizer, at the version read, advancing it. */
const patchFinalizers = (
  ctx: InterpretContext,
  action: Extract<ClusterAction, { _tag: "AddFinalizer" | "RemoveFinalizer" }>,
  v: Version,
): Effect.Effect<void, RunError> => {
  const current = ctx.cluster?.metadata.finalizers ?? []
  const finalizers =
    action._tag === "AddFinalizer"
      ? [...current.filter((f) => f !== action.finalizer), action.finalizer]
      : current.filter((f) => f !== action.finalizer)
  const patch = mergePatch({ metadata: { finalizers, resourceVersion: v.resourceVersion } })
  return Effect.map(ctx.client.patch(ClusterResource, action.cluster, patch), (o) => {
    v.resourceVersion = o.metadata.resourceVersion
  })
}

/**
 * Like the finalizer, with the version read and advancing it: the status patch that follows in
 * the same reconcile carries that version, so it must not be left behind by this write (else
 * every Cluster's first status patch would get a 409 and a live GET).
 */
const setEndpoint = (
  ctx: InterpretContext,
  action: Extract<ClusterAction, { _tag: "SetControlPlaneEndpoint" }>,
  v: Version,
): Effect.Effect<void, RunError> => {
  const body = {
    metadata: { resourceVersion: v.resourceVersion },
    spec: { controlPlaneEndpoint: action.endpoint },
  }
  return Effect.map(ctx.client.patch(ClusterResource, action.cluster, mergePatch(body)), (o) => {
    v.resourceVersion = o.metadata.resourceVersion
  })
}

/** The owner reference and labels on a provider object read from its kind's store. */
const patchExternal = (
  ctx: InterpretContext,
  action: Extract<ClusterAction, { _tag: "PatchExternal" }>,
): Effect.Effect<void, RunError> =>
  Effect.gen(function* () {
    const resource = yield* ctx.resolve(action.ref)
    const store = yield* ctx.external(action.ref)
    const key = { namespace: action.ref.namespace, name: action.ref.name }
    let obj = store.get(key)
    if (obj === undefined) return yield* new NotCachedError({ kind: action.ref.kind, ...key })
    for (let attempt = 0; ; attempt++) {
      const patch = ownerPatch(obj, action.ownerReference, action.labels)
      if (patch === undefined) return
      const written = yield* Effect.result(ctx.client.patch(resource, key, mergePatch(patch)))
      if (written._tag === "Success") return
      if (written.failure._tag !== "Conflict" || attempt >= CONFLICT_RETRIES)
        return yield* Effect.fail(written.failure)
      obj = yield* ctx.client.get(resource, key)
    }
  })

/** The `<cluster>-kubeconfig` Secret, signed by the cluster CA; AlreadyExists is success. */
const createKubeconfigSecret = (
  ctx: InterpretContext,
  action: Extract<ClusterAction, { _tag: "CreateKubeconfigSecret" }>,
): Effect.Effect<void, RunError> =>
  Effect.gen(function* () {
    const ca = yield* ctx.client.get<KubeObject & { data?: Record<string, string> }>(
      Resources.secrets,
      action.caSecret,
    )
    const cert = ca.data?.["tls.crt"]
    const key = ca.data?.["tls.key"]
    if (cert === undefined || key === undefined)
      return yield* new ClusterCaError({
        message: `secret ${action.caSecret.name} has no tls.crt and tls.key`,
      })
    const now = yield* Clock.currentTimeMillis
    const kubeconfig = yield* Effect.try({
      try: () =>
        makeAdminKubeconfig(
          action.cluster.name,
          `https://${action.endpoint.host}:${action.endpoint.port}`,
          { certificate: Buffer.from(cert, "base64").toString(), key: Buffer.from(key, "base64").toString() },
          now,
        ),
      catch: () =>
        new ClusterCaError({
          message: `the cluster CA in secret ${action.caSecret.name} cannot sign a client certificate`,
        }),
    })
    yield* ctx.client
      .create(Resources.secrets, {
        apiVersion: "v1",
        kind: "Secret",
        type: action.type,
        metadata: {
          namespace: action.secret.namespace,
          name: action.secret.name,
          labels: action.labels,
          ownerReferences: [action.ownerReference as OwnerReference],
        },
        data: { [action.key]: Buffer.from(kubeconfig).toString("base64") },
      })
      .pipe(
        Effect.asVoid,
        Effect.catchTag("AlreadyExists", () => Effect.void),
      )
  })

/** Requests the deletion of a descendant or provider object; NotFound is success. */
const deleteObject = (
  ctx: InterpretContext,
  action: Extract<ClusterAction, { _tag: "DeleteObject" }>,
): Effect.Effect<void, RunError> =>
  Effect.gen(function* () {
    const resource = yield* ctx.resolve(action.ref)
    yield* ctx.client
      .delete(
        resource,
        { namespace: action.ref.namespace, name: action.ref.name },
        { propagationPolicy: "Background" },
      )
      .pipe(
        Effect.asVoid,
        Effect.catchTag("NotFound", () => Effect.void),
      )
  })

/**
 * Optimistic concurrency: the patch carries the resourceVersion the status was computed from; on
 * a Conflict the Cluster is read again and the patch recomputed against it, so that conditions
 * another writer added meanwhile are kept (upstream's owned conditions).
 */
const patchClusterStatus = (
  ctx: InterpretContext,
  action: Extract<ClusterAction, { _tag: "PatchStatus" }>,
  v: Version,
): Effect.Effect<void, RunError> =>
  Effect.gen(function* () {
    let current = (ctx.cluster as { status?: ClusterStatus } | undefined)?.status
    let version = v.resourceVersion
    for (let attempt = 0; ; attempt++) {
      const patch = statusPatch(current, action.status)
      if (Object.keys(patch).length === 0) return
      const body =
        version === undefined ? { status: patch } : { metadata: { resourceVersion: version }, status: patch }
      const written = yield* Effect.result(
        ctx.client.patchStatus(ClusterResource, action.cluster, mergePatch(body)),
      )
      if (written._tag === "Success") {
        v.resourceVersion = written.success.metadata.resourceVersion
        return
      }
      if (written.failure._tag !== "Conflict" || attempt >= CONFLICT_RETRIES)
        return yield* Effect.fail(written.failure)
      const fresh = yield* ctx.client.get(ClusterResource, action.cluster)
      current = (fresh as { status?: ClusterStatus }).status
      version = fresh.metadata.resourceVersion
    }
  })

/** The API call of one action; `Requeue` and `ReturnError` make none. */
const call = (ctx: InterpretContext, action: ClusterAction, v: Version): Effect.Effect<void, RunError> => {
  switch (action._tag) {
    case "AddFinalizer":
    case "RemoveFinalizer":
      return patchFinalizers(ctx, action, v)
    case "SetControlPlaneEndpoint":
      return setEndpoint(ctx, action, v)
    case "PatchExternal":
      return patchExternal(ctx, action)
    case "CreateKubeconfigSecret":
      return createKubeconfigSecret(ctx, action)
    case "DeleteObject":
      return deleteObject(ctx, action)
    case "PatchStatus":
      return patchClusterStatus(ctx, action, v)
    case "Event": {
      const uid = ctx.cluster?.metadata.uid
      const regarding = { apiVersion: ClusterApiVersion, kind: "Cluster", ...action.cluster, uid }
      const event = { type: action.type, reason: action.reason, message: action.message }
      return recordEvent(ctx.client, regarding, event, ctx.component)
    }
    case "Requeue":
    case "ReturnError":
      return Effect.void
  }
}

/**
 * The `run` of one reconcile's table: carries out one action of `decided` and says what it
 * tells the run. The Cluster's resourceVersion is kept across the reconcile's actions, so that
 * a write does not conflict with the previous write of the same reconcile.
 */
export const makeRun = (ctx: InterpretContext) => {
  const version: Version = { resourceVersion: ctx.cluster?.metadata.resourceVersion }
  return (action: ClusterAction, decided: ClusterResult): Effect.Effect<ClusterOutcome> => {
    if (action._tag === "Requeue") return Effect.succeed(Outcome.requeue(action.after))
    return call(ctx, action, version).pipe(
      Effect.as<ClusterOutcome>(Outcome.done),
      Effect.catch((e: RunError) => {
        const failure = actionFailureOf(e)
        return Effect.as(
          Effect.logWarning("an action failed").pipe(
            Effect.annotateLogs({ action: action._tag, error: failure.message, row: decided.row }),
          ),
          Outcome.failed<ClusterTrigger, ActionFailure>({ _tag: "ActionFailed", action, failure }, failure),
        )
      }),
    )
  }
}
