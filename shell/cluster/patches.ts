/**
 * The merge patches the Cluster controller writes: the status patch, which touches only what the
 * controller owns (its fields, its sixteen v1beta2 and four v1beta1 condition types; conditions
 * and fields of other writers are kept), and the owner-reference patch of a provider object.
 *
 * Both are pure: they compare what was read with what the core decided, and are `undefined` or
 * empty when nothing changes, so that a write is made only when it changes something.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util"
import { V1Beta1ConditionTypes, V1Beta2ConditionTypes } from "../../core/cluster/contract.ts"
import type { ClusterStatus, Condition, OwnerReference as Owner } from "../../core/cluster/types.ts"
import type { KubeObject } from "../kube/resource.ts"

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
 * owner of any version, or appended) and `labels`, with the resourceVersion it was read at;
 * `undefined` when it has both already.
 */
export const ownerPatch = (
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
