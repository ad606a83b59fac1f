/**
 * Carries out the Cluster controller's actions against the API server, in order. Writes carry
 * the resourceVersion that was read (a Conflict means the object changed: the reconcile is
 * retried), and a status patch touches only what the controller owns: its fields, its sixteen
 * v1beta2 and four v1beta1 condition types; conditions of other types are kept.
 *
 * Reads go through the watch-backed stores the controller observes from, as upstream's client
 * reads the kinds its manager watches through its cache: the provider objects that
 * `PatchExternal` merges its owner reference and label into come from their kind's store; only
 * a write that conflicts (the store was behind) is recomputed against a live read.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { ClusterAction, ObjectRef } from "../../core/cluster/actions.ts"
import {
  ClusterApiVersion,
  V1Beta1ConditionTypes,
  V1Beta2ConditionTypes,
} from "../../core/cluster/contract.ts"
import type { ClusterStatus, Condition, OwnerReference as Owner } from "../../core/cluster/types.ts"
import { ClusterResource } from "../clustercache/service.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import { recordEvent } from "../kube/events.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, type OwnerReference, type ResourceRef, Resources } from "../kube/resource.ts"
import type { ReadonlyStore } from "../reflector/store.ts"
import { makeAdminKubeconfig } from "./kubeconfigSecret.ts"

export interface InterpretContext {
  readonly client: KubeClientShape
  /** The resource of an external or descendant reference, or why it cannot be resolved. */
  readonly resolve: (ref: ObjectRef) => Effect.Effect<ResourceRef | { readonly error: string }>
  /**
   * The watch-backed store of an infrastructure or control-plane kind (the one the reconcile
   * observed it from), or why it cannot be read.
   */
  readonly external: (ref: ObjectRef) => Effect.Effect<ReadonlyStore<KubeObject> | { readonly error: string }>
  /** The Cluster as read at the start of the reconcile. */
  readonly cluster: KubeObject | undefined
  readonly component: string
}

/** An action the API server refused. */
export interface ActionFailure {
  readonly action: ClusterAction
  readonly error: string
  /** The server answered NotFound for an object the action needed (the cluster CA Secret). */
  readonly notFound?: boolean
}

export type Outcome =
  | { readonly _tag: "Done"; readonly requeueAfter?: number | undefined }
  | { readonly _tag: "Error"; readonly error: string }
  | { readonly _tag: "Failed"; readonly failure: ActionFailure }

/**
 * How often a write that conflicts (a status patch, or an owner-reference patch of a provider
 * object read from its store) is recomputed against a fresh read.
 */
export const CONFLICT_RETRIES = 3

const V2 = new Set<string>(V1Beta2ConditionTypes)
const V1 = new Set<string>(V1Beta1ConditionTypes)

/**
 * Our conditions, plus the other writers' conditions as they are. The core's status carries
 * over every condition it observed, other writers' included: only the types we own are taken
 * from it, so a foreign condition appears once, as `current` has it: taking it from both would
 * double it on every write, and every write would cause the next.
 */
const mergeConditions = (
  ours: ReadonlyArray<Condition> | undefined,
  current: ReadonlyArray<Condition> | undefined,
  owned: ReadonlySet<string>,
): ReadonlyArray<Condition> | undefined => {
  if (ours === undefined) return undefined
  const foreign = (current ?? []).filter((c) => !owned.has(c.type))
  return [...ours.filter((c) => owned.has(c.type)), ...foreign]
}

/** The top-level `status` fields the controller owns; any other field (another writer's) is kept. */
const OWNED_FIELDS = [
  "conditions",
  "initialization",
  "controlPlane",
  "workers",
  "failureDomains",
  "phase",
  "observedGeneration",
] as const
/** The fields of `status.deprecated.v1beta1` the controller owns. */
const OWNED_V1BETA1 = ["conditions", "failureReason", "failureMessage"] as const

/**
 * The JSON merge patch of one field: `null` removes it, an object is patched key by key (a key
 * that is gone becomes `null`), anything else is replaced; `undefined` when nothing changes.
 */
const fieldPatch = (current: unknown, next: unknown): unknown => {
  if (isDeepStrictEqual(current, next)) return undefined
  if (next === undefined) return current === undefined ? undefined : null
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === "object" && v !== null && !Array.isArray(v)
  if (!isObject(current) || !isObject(next)) return next
  const out: Record<string, unknown> = {}
  for (const k of new Set([...Object.keys(current), ...Object.keys(next)])) {
    const p = fieldPatch(current[k], next[k])
    if (p !== undefined) out[k] = p
  }
  return Object.keys(out).length === 0 ? undefined : out
}

/**
 * The merge patch of `status` that brings `current` to `next` for the fields the controller
 * owns: its fields (a field it no longer sets is removed, so that counters that became unknown
 * are unset), its sixteen v1beta2 and four v1beta1 condition types; other writers' conditions
 * and fields are kept as `current` has them.
 */
export const statusPatch = (
  current: ClusterStatus | undefined,
  next: ClusterStatus,
): Record<string, unknown> => {
  const cur = (current ?? {}) as Record<string, unknown>
  const nxt: Record<string, unknown> = {
    ...next,
    conditions: mergeConditions(next.conditions, current?.conditions, V2),
  }
  const patch: Record<string, unknown> = {}
  for (const k of OWNED_FIELDS) {
    const p = fieldPatch(cur[k], nxt[k])
    if (p !== undefined) patch[k] = p
  }
  const curV1 = (current?.deprecated?.v1beta1 ?? {}) as Record<string, unknown>
  const nextV1 = next.deprecated?.v1beta1
  if (nextV1 !== undefined) {
    const merged: Record<string, unknown> = {
      ...nextV1,
      conditions: mergeConditions(nextV1.conditions, current?.deprecated?.v1beta1?.conditions, V1),
    }
    const v1: Record<string, unknown> = {}
    for (const k of OWNED_V1BETA1) {
      const p = fieldPatch(curV1[k], merged[k])
      if (p !== undefined) v1[k] = p
    }
    if (Object.keys(v1).length > 0) patch.deprecated = { v1beta1: v1 }
  }
  return patch
}

/**
 * The merge patch that gives `obj` the owner reference `owner` (in the place of one to the same
 * owner of any version, or appended) and `labels`, with the resourceVersion it was read at; `undefined` when it has
 * both already.
 */
const ownerPatch = (
  obj: KubeObject,
  owner: Owner,
  labels: Readonly<Record<string, string>>,
): Record<string, unknown> | undefined => {
  const group = (apiVersion: string) => apiVersion.split("/")[0]
  const same = (r: { readonly apiVersion: string; readonly kind: string; readonly name: string }) =>
    r.kind === owner.kind && r.name === owner.name && group(r.apiVersion) === group(owner.apiVersion)
  const current = obj.metadata.ownerReferences ?? []
  const ownerReferences = current.some(same) ? current.map((r) => (same(r) ? owner : r)) : [...current, owner]
  const merged = { ...obj.metadata.labels, ...labels }
  if (
    isDeepStrictEqual(ownerReferences, obj.metadata.ownerReferences) &&
    isDeepStrictEqual(merged, obj.metadata.labels)
  )
    return undefined
  return { metadata: { ownerReferences, labels: merged, resourceVersion: obj.metadata.resourceVersion } }
}

/** Why an action failed: the server's answer, and whether it was NotFound for a needed object. */
export interface RunError {
  readonly message: string
  readonly notFound?: boolean
}

const describe = (e: KubeError): RunError => ({ message: `${e._tag}: ${e.message}` })
const failWith = (message: string) => Effect.fail<RunError>({ message })

/**
 * Runs one action; fails with the reason the server gave. `cluster` holds the Cluster's latest
 * resourceVersion: each write to the Cluster advances it, so that the next write of the same
 * reconcile does not conflict with the previous one.
 */
const run = (
  ctx: InterpretContext,
  action: ClusterAction,
  cluster: { resourceVersion: string | undefined },
): Effect.Effect<void, RunError> => {
  const { client } = ctx
  const meta = ctx.cluster?.metadata
  const rv = cluster.resourceVersion
  const advance = (o: KubeObject) => {
    cluster.resourceVersion = o.metadata.resourceVersion
  }
  switch (action._tag) {
    case "AddFinalizer":
    case "RemoveFinalizer": {
      const current = meta?.finalizers ?? []
      const finalizers =
        action._tag === "AddFinalizer"
          ? [...current.filter((f) => f !== action.finalizer), action.finalizer]
          : current.filter((f) => f !== action.finalizer)
      return client
        .patch(ClusterResource, action.cluster, mergePatch({ metadata: { finalizers, resourceVersion: rv } }))
        .pipe(Effect.map(advance), Effect.mapError(describe))
    }
    case "SetControlPlaneEndpoint":
      // Like the finalizer, with the version read and advancing it: the status patch that
      // follows in the same reconcile carries that version, so it must not be left behind by
      // this write (else every Cluster's first status patch would get a 409 and a live GET).
      return client
        .patch(
          ClusterResource,
          action.cluster,
          mergePatch({ metadata: { resourceVersion: rv }, spec: { controlPlaneEndpoint: action.endpoint } }),
        )
        .pipe(Effect.map(advance), Effect.mapError(describe))
    case "PatchExternal":
      return Effect.gen(function* () {
        const resource = yield* ctx.resolve(action.ref)
        if ("error" in resource) return yield* failWith(resource.error)
        const store = yield* ctx.external(action.ref)
        if ("error" in store) return yield* failWith(store.error)
        const key = { namespace: action.ref.namespace, name: action.ref.name }
        let obj = store.get(key)
        if (obj === undefined)
          return yield* failWith(
            `NotFound: ${action.ref.kind} ${key.namespace}/${key.name} is not in the cache`,
          )
        for (let attempt = 0; ; attempt++) {
          const patch = ownerPatch(obj, action.ownerReference, action.labels)
          if (patch === undefined) return
          const written = yield* Effect.result(client.patch(resource, key, mergePatch(patch)))
          if (written._tag === "Success") return
          if (written.failure._tag !== "Conflict" || attempt >= CONFLICT_RETRIES)
            return yield* Effect.fail(describe(written.failure))
          obj = yield* client.get(resource, key).pipe(Effect.mapError(describe))
        }
      })
    case "CreateKubeconfigSecret":
      return Effect.gen(function* () {
        const ca = yield* client
          .get<KubeObject & { data?: Record<string, string> }>(Resources.secrets, action.caSecret)
          .pipe(
            Effect.mapError(
              (e): RunError => ({
                message: `${e._tag}: ${e.message}`,
                ...(e._tag === "NotFound" ? { notFound: true } : {}),
              }),
            ),
          )
        const cert = ca.data?.["tls.crt"]
        const key = ca.data?.["tls.key"]
        if (cert === undefined || key === undefined) {
          return yield* failWith(`secret ${action.caSecret.name} has no tls.crt and tls.key`)
        }
        const now = yield* Clock.currentTimeMillis
        const kubeconfig = yield* Effect.try({
          try: () =>
            makeAdminKubeconfig(
              action.cluster.name,
              `https://${action.endpoint.host}:${action.endpoint.port}`,
              {
                certificate: Buffer.from(cert, "base64").toString(),
                key: Buffer.from(key, "base64").toString(),
              },
              now,
            ),
          catch: (): RunError => ({
            message: `the cluster CA in secret ${action.caSecret.name} cannot sign a client certificate`,
          }),
        })
        yield* client
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
            Effect.mapError(describe),
          )
      })
    case "DeleteObject":
      return Effect.gen(function* () {
        const resource = yield* ctx.resolve(action.ref)
        if ("error" in resource) return yield* failWith(resource.error)
        yield* client
          .delete(
            resource,
            { namespace: action.ref.namespace, name: action.ref.name },
            { propagationPolicy: "Background" },
          )
          .pipe(
            Effect.asVoid,
            Effect.catchTag("NotFound", () => Effect.void),
            Effect.mapError(describe),
          )
      })
    case "PatchStatus":
      return Effect.gen(function* () {
        // Optimistic concurrency: the patch carries the resourceVersion the status was computed
        // from; on a Conflict the Cluster is read again and the patch recomputed against it, so
        // that conditions another writer added meanwhile are kept (upstream's owned conditions).
        let current = (ctx.cluster as { status?: ClusterStatus } | undefined)?.status
        let version = cluster.resourceVersion
        for (let attempt = 0; ; attempt++) {
          const patch = statusPatch(current, action.status)
          if (Object.keys(patch).length === 0) return
          const body =
            version === undefined
              ? { status: patch }
              : { metadata: { resourceVersion: version }, status: patch }
          const written = yield* Effect.result(
            client.patchStatus(ClusterResource, action.cluster, mergePatch(body)),
          )
          if (written._tag === "Success") {
            advance(written.success)
            return
          }
          if (written.failure._tag !== "Conflict" || attempt >= CONFLICT_RETRIES)
            return yield* Effect.fail(describe(written.failure))
          const fresh = yield* client.get(ClusterResource, action.cluster).pipe(Effect.mapError(describe))
          current = (fresh as { status?: ClusterStatus }).status
          version = fresh.metadata.resourceVersion
        }
      })
    case "Event":
      return recordEvent(
        client,
        {
          apiVersion: ClusterApiVersion,
          kind: "Cluster",
          namespace: action.cluster.namespace,
          name: action.cluster.name,
          uid: meta?.uid,
        },
        { type: action.type, reason: action.reason, message: action.message },
        ctx.component,
      ).pipe(Effect.mapError(describe))
    case "Requeue":
    case "ReturnError":
      return Effect.void
  }
}

/** Runs the actions in order; stops at the first the server refuses. */
export const interpret = (
  ctx: InterpretContext,
  actions: ReadonlyArray<ClusterAction>,
): Effect.Effect<Outcome> =>
  Effect.gen(function* () {
    const cluster = { resourceVersion: ctx.cluster?.metadata.resourceVersion }
    for (const action of actions) {
      if (action._tag === "Requeue") return { _tag: "Done", requeueAfter: action.after }
      if (action._tag === "ReturnError") return { _tag: "Error", error: action.error }
      const result = yield* Effect.result(run(ctx, action, cluster))
      if (result._tag === "Failure")
        return {
          _tag: "Failed",
          failure: {
            action,
            error: result.failure.message,
            ...(result.failure.notFound === true ? { notFound: true } : {}),
          },
        }
    }
    return { _tag: "Done" }
  })
