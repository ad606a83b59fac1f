/**
 * What the in-memory API server does to objects on create, replace, patch and the status
 * subresource: identity fields, status separation, generation, finalizer rules, conflicts.
 * Pure functions over objects; the server stores what they return.
 *
 * @module
 */
import { AlreadyExists, ApiError, Conflict, Invalid, type KubeError, NotFound } from "../kube/errors.ts"
import { applyJsonPatch, applyMergePatch, type Patch } from "../kube/patch.ts"
import type { KubeObject, ObjectMeta, ResourceRef } from "../kube/resource.ts"
import { canonicalJson } from "./storage.ts"

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** The request being served, for error messages. */
export interface Served {
  readonly verb: string
  readonly path: string
  readonly ref: ResourceRef
}

/** Kubernetes timestamps: seconds precision, UTC. */
export const timestamp = (ms: number): string => `${new Date(ms).toISOString().slice(0, 19)}Z`

export const notFound = (s: Served, name: string): NotFound =>
  new NotFound({ verb: s.verb, path: s.path, message: `${s.ref.resource} "${name}" not found` })

export const conflict = (s: Served, name: string): Conflict =>
  new Conflict({
    verb: s.verb,
    path: s.path,
    message: `Operation cannot be fulfilled on ${s.ref.resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
  })

export const alreadyExists = (s: Served, name: string): AlreadyExists =>
  new AlreadyExists({ verb: s.verb, path: s.path, message: `${s.ref.resource} "${name}" already exists` })

export const badRequest = (s: Served, message: string): ApiError =>
  new ApiError({ verb: s.verb, path: s.path, status: 400, reason: "BadRequest", message })

export const invalid = (s: Served, message: string): Invalid =>
  new Invalid({ verb: s.verb, path: s.path, message })

/** What `generation` follows: all but metadata, and but status when it is a subresource. */
const generationFields = (o: KubeObject, hasStatus: boolean) => {
  const { metadata: _m, status, apiVersion: _a, kind: _k, ...rest } = o
  return hasStatus ? rest : { ...rest, status }
}

/**
 * A new object as the server stores it (without resourceVersion): name (or generated name),
 * namespace, uid, generation 1, creationTimestamp; status dropped when the resource has a status
 * subresource; deletion fields dropped.
 */
export const prepareCreate = (
  s: Served,
  object: KubeObject,
  ctx: { readonly now: number; readonly serial: number; readonly hasStatus: boolean },
): KubeObject | KubeError => {
  const meta = object.metadata ?? {}
  const name =
    meta.name ||
    (meta.generateName ? `${meta.generateName}${ctx.serial.toString(36).padStart(5, "0")}` : undefined)
  if (name === undefined) {
    return invalid(
      s,
      `${s.ref.resource} is invalid: metadata.name: Required value: name or generateName is required`,
    )
  }
  const namespace = s.ref.namespaced ? meta.namespace : undefined
  if (s.ref.namespaced && !namespace) {
    return invalid(s, `${s.ref.resource} "${name}" is invalid: metadata.namespace: Required value`)
  }
  const created: Mutable<KubeObject> = structuredClone({ ...object })
  if (ctx.hasStatus) delete created.status
  const m: Mutable<ObjectMeta> = {
    ...meta,
    name,
    uid: `fake-uid-${ctx.serial}`,
    generation: 1,
    creationTimestamp: timestamp(ctx.now),
  }
  if (namespace === undefined) delete m.namespace
  else m.namespace = namespace
  delete m.deletionTimestamp
  delete m.deletionGracePeriodSeconds
  delete m.resourceVersion
  created.metadata = m
  return created
}

/** The fields a write cannot change. */
const identity = [
  "name",
  "namespace",
  "uid",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "generation",
] as const

/** The result of a replace: the object to store, or nothing to do. */
export type Replaced =
  | { readonly _tag: "Unchanged"; readonly object: KubeObject }
  | { readonly _tag: "Changed"; readonly object: KubeObject; readonly finalized: boolean }

/**
 * Replaces `existing` by `proposed` (main resource, or `/status` with `statusOnly`): a given
 * stale resourceVersion is a Conflict; identity fields are kept; the main resource keeps the
 * stored status (when the resource has the subresource) and `/status` changes only status;
 * generation grows when anything but metadata and status changes; no finalizer may be added
 * while deleting; `finalized` says the last finalizer of a deleting object is gone.
 */
export const prepareReplace = (
  s: Served,
  existing: KubeObject,
  proposed: KubeObject,
  options: { readonly statusOnly: boolean; readonly hasStatus: boolean },
): Replaced | KubeError => {
  const name = existing.metadata.name ?? ""
  const rv = proposed.metadata?.resourceVersion
  if (rv !== undefined && rv !== "" && rv !== existing.metadata.resourceVersion) return conflict(s, name)
  const next: Mutable<KubeObject> = options.statusOnly
    ? { ...existing, status: proposed.status }
    : { ...proposed, metadata: { ...proposed.metadata } }
  if (!options.statusOnly && options.hasStatus) {
    if (existing.status === undefined) delete next.status
    else next.status = existing.status
  }
  const meta: Mutable<ObjectMeta> = { ...next.metadata }
  for (const f of identity) {
    if (existing.metadata[f] === undefined) delete meta[f]
    else meta[f] = existing.metadata[f] as never
  }
  meta.resourceVersion = existing.metadata.resourceVersion
  const before = existing.metadata.finalizers ?? []
  const after = meta.finalizers ?? []
  if (existing.metadata.deletionTimestamp !== undefined && after.some((f) => !before.includes(f))) {
    return invalid(
      s,
      `${s.ref.resource} "${name}" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted`,
    )
  }
  next.metadata = meta
  if (canonicalJson(next) === canonicalJson(existing)) return { _tag: "Unchanged", object: existing }
  if (
    canonicalJson(generationFields(next, options.hasStatus)) !==
    canonicalJson(generationFields(existing, options.hasStatus))
  ) {
    meta.generation = (existing.metadata.generation ?? 0) + 1
  }
  return {
    _tag: "Changed",
    object: next,
    finalized: meta.deletionTimestamp !== undefined && after.length === 0,
  }
}

/** `existing` with a patch applied (merge, strategic as merge, apply as merge, or JSON patch). */
export const patchObject = (s: Served, existing: KubeObject, patch: Patch): KubeObject | KubeError => {
  if (patch.type !== "json") return applyMergePatch(existing, patch.body) as KubeObject
  try {
    return applyJsonPatch(existing, patch.body) as KubeObject
  } catch (e) {
    return invalid(s, e instanceof Error ? e.message : String(e))
  }
}

/** Whether delete preconditions fail against `existing`. */
export const preconditionsFail = (
  existing: KubeObject,
  pre: { readonly uid?: string | undefined; readonly resourceVersion?: string | undefined } | undefined,
): boolean =>
  (pre?.uid !== undefined && pre.uid !== "" && pre.uid !== existing.metadata.uid) ||
  (pre?.resourceVersion !== undefined &&
    pre.resourceVersion !== "" &&
    pre.resourceVersion !== existing.metadata.resourceVersion)

/** The garbage collector's finalizer for orphaning deletes (`metav1.FinalizerOrphanDependents`). */
export const OrphanFinalizer = "orphan"

/** The garbage collector's finalizer for foreground deletes (`metav1.FinalizerDeleteDependents`). */
export const ForegroundFinalizer = "foregroundDeletion"

/** The values of a delete's `propagationPolicy`. */
export const PropagationPolicies: ReadonlyArray<string> = ["Foreground", "Background", "Orphan"]

/** A delete's `propagationPolicy`. */
export type PropagationPolicy = "Foreground" | "Background" | "Orphan"

/**
 * The finalizers a delete leaves, as kube-apiserver computes them when garbage collection is on:
 * both GC finalizers are dropped, then `orphan` is added for Orphan and `foregroundDeletion` for
 * Foreground. Without a policy the object's own GC finalizer (the first one listed) decides, else
 * Background.
 */
export const deletionFinalizers = (
  finalizers: ReadonlyArray<string>,
  policy: PropagationPolicy | undefined,
): ReadonlyArray<string> => {
  const own = finalizers.find((f) => f === OrphanFinalizer || f === ForegroundFinalizer)
  const effective =
    policy ?? (own === OrphanFinalizer ? "Orphan" : own === ForegroundFinalizer ? "Foreground" : "Background")
  const kept = finalizers.filter((f) => f !== OrphanFinalizer && f !== ForegroundFinalizer)
  if (effective === "Orphan") return [...kept, OrphanFinalizer]
  if (effective === "Foreground") return [...kept, ForegroundFinalizer]
  return kept
}

/** What a delete does to a stored object. */
export type Deletion =
  /** Already being deleted and nothing to change: the object is returned as it is. */
  | { readonly _tag: "Unchanged"; readonly object: KubeObject }
  /** Finalizers remain: `deletionTimestamp` is set (kept when set) and the finalizers updated. */
  | { readonly _tag: "Finalizing"; readonly object: KubeObject }
  /** No finalizer remains: the object leaves storage. */
  | { readonly _tag: "Removed" }

const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.length === b.length && a.every((x) => b.includes(x)) && b.every((x) => a.includes(x))

/**
 * A delete of `existing` (the registry store's logic): with garbage collection the policy's
 * finalizers are applied (also to an object that is already being deleted, as kube-apiserver
 * does); without it the policy is ignored, as on a server whose collector is off.
 */
export const prepareDelete = (
  existing: KubeObject,
  options: {
    readonly policy: PropagationPolicy | undefined
    readonly garbageCollection: boolean
    readonly now: number
  },
): Deletion => {
  const current = existing.metadata.finalizers ?? []
  const finalizers = options.garbageCollection ? deletionFinalizers(current, options.policy) : current
  if (finalizers.length === 0) return { _tag: "Removed" }
  const deleting = existing.metadata.deletionTimestamp !== undefined
  if (deleting && sameSet(finalizers, current)) return { _tag: "Unchanged", object: existing }
  const metadata: ObjectMeta = {
    ...existing.metadata,
    finalizers: sameSet(finalizers, current) ? current : finalizers,
    deletionTimestamp: existing.metadata.deletionTimestamp ?? timestamp(options.now),
    deletionGracePeriodSeconds: existing.metadata.deletionGracePeriodSeconds ?? 0,
  }
  return { _tag: "Finalizing", object: { ...existing, metadata } }
}
