/**
 * The schema of the engagement table's input, so that a hand-written JSON input (for
 * `krtt explain multicluster.engagement --input f.json`) is decoded strictly: a field of the
 * wrong type is named with its path, and an unknown key is an error that names the closest
 * known key (`input.desired.engageWithLocalClustr: unknown key "engageWithLocalClustr", did
 * you mean "engageWithLocalCluster"?`). `docs/multicluster-inputs.md` shows an example per trigger.
 *
 * @module
 */
import { Schema, SchemaTransformation } from "effect"
import type { EngagementInput } from "./types.ts"

const Millis = Schema.Number.check(Schema.isFinite())
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const Generation = Schema.String.check(Schema.isMinLength(1))

const ExcludedWhySchema = Schema.Literals([
  "local-disabled",
  "no-provider",
  "provider-disabled",
  "filtered",
  "hub-only-watches",
])

export const EngagementStateSchema = Schema.Union([
  Schema.TaggedStruct("Absent", {}),
  Schema.TaggedStruct("Excluded", { generation: Generation, why: ExcludedWhySchema }),
  Schema.TaggedStruct("StartingCache", { generation: Generation, failures: Count }),
  Schema.TaggedStruct("WaitingForSync", { generation: Generation, failures: Count }),
  Schema.TaggedStruct("ApplyingIndexes", { generation: Generation, failures: Count }),
  Schema.TaggedStruct("Engaging", { generation: Generation, failures: Count }),
  Schema.TaggedStruct("Engaged", { generation: Generation }),
  Schema.TaggedStruct("Failed", {
    generation: Generation,
    failures: Count,
    retryAt: Millis,
    error: Schema.String,
  }),
  Schema.TaggedStruct("Unhealthy", { generation: Generation, reason: Schema.String }),
])

export const EngagementSchema = Schema.Struct({ state: EngagementStateSchema, dropped: Count })

export const EngagementOptionsSchema = Schema.Struct({
  cluster: Schema.String,
  hasProvider: Schema.Boolean,
  engageWithLocalCluster: Schema.optional(Schema.Boolean),
  engageWithProviderClusters: Schema.optional(Schema.Boolean),
  clusterFilter: Schema.optional(Schema.Literals(["accept", "reject"])),
  watches: Schema.Array(
    Schema.Struct({ name: Schema.String, kind: Schema.Literals(["For", "Owns", "Watches"]) }),
  ),
})

export const EngagementTriggerSchema = Schema.Union([
  Schema.TaggedStruct("ClusterAdded", { generation: Generation }),
  Schema.TaggedStruct("ClusterRemoved", {}),
  Schema.TaggedStruct("CredentialsChanged", { generation: Generation }),
  Schema.TaggedStruct("CacheStarted", { generation: Generation }),
  Schema.TaggedStruct("CacheSynced", { generation: Generation }),
  Schema.TaggedStruct("CacheSyncFailed", {
    generation: Generation,
    timedOut: Schema.Boolean,
    error: Schema.String,
  }),
  Schema.TaggedStruct("IndexesApplied", { generation: Generation }),
  Schema.TaggedStruct("SourcesStarted", { generation: Generation }),
  Schema.TaggedStruct("EngageFailed", {
    generation: Generation,
    step: Schema.Literals(["startCache", "indexes", "sources"]),
    error: Schema.String,
  }),
  Schema.TaggedStruct("ClusterUnhealthy", { reason: Schema.String }),
  Schema.TaggedStruct("ClusterHealthy", {}),
  Schema.TaggedStruct("RetryDue", {}),
  Schema.TaggedStruct("RequestArrived", { namespace: Schema.String, name: Schema.String }),
])

const EngagementInputStruct = Schema.Struct({
  observed: EngagementSchema,
  desired: EngagementOptionsSchema,
  trigger: EngagementTriggerSchema,
  now: Millis,
})

// ---------------------------------------------------------------------------------------------
// Strict keys

/** The keys an input may have, object by object. */
export type KeyShape =
  | { readonly _tag: "Leaf" }
  | { readonly _tag: "Object"; readonly fields: Readonly<Record<string, KeyShape>> }
  /** An object whose keys depend on its `_tag`. */
  | {
      readonly _tag: "Tagged"
      readonly variants: Readonly<Record<string, Readonly<Record<string, KeyShape>>>>
    }
  | { readonly _tag: "Array"; readonly item: KeyShape }

const leaf: KeyShape = { _tag: "Leaf" }
const obj = (keys: ReadonlyArray<string>, nested: Readonly<Record<string, KeyShape>> = {}): KeyShape => ({
  _tag: "Object",
  fields: Object.fromEntries(keys.map((k) => [k, nested[k] ?? leaf])),
})
const tagged = (variants: Readonly<Record<string, ReadonlyArray<string>>>): KeyShape => ({
  _tag: "Tagged",
  variants: Object.fromEntries(
    Object.entries(variants).map(([tag, keys]) => [
      tag,
      Object.fromEntries(["_tag", ...keys].map((k) => [k, leaf])),
    ]),
  ),
})

const step = ["generation", "failures"]
/** The keys of every object of an engagement input. */
export const engagementInputKeys: KeyShape = obj(["observed", "desired", "trigger", "now"], {
  observed: obj(["state", "dropped"], {
    state: tagged({
      Absent: [],
      Excluded: ["generation", "why"],
      StartingCache: step,
      WaitingForSync: step,
      ApplyingIndexes: step,
      Engaging: step,
      Engaged: ["generation"],
      Failed: ["generation", "failures", "retryAt", "error"],
      Unhealthy: ["generation", "reason"],
    }),
  }),
  desired: obj(
    [
      "cluster",
      "hasProvider",
      "engageWithLocalCluster",
      "engageWithProviderClusters",
      "clusterFilter",
      "watches",
    ],
    { watches: { _tag: "Array", item: obj(["name", "kind"]) } },
  ),
  trigger: tagged({
    ClusterAdded: ["generation"],
    ClusterRemoved: [],
    CredentialsChanged: ["generation"],
    CacheStarted: ["generation"],
    CacheSynced: ["generation"],
    CacheSyncFailed: ["generation", "timedOut", "error"],
    IndexesApplied: ["generation"],
    SourcesStarted: ["generation"],
    EngageFailed: ["generation", "step", "error"],
    ClusterUnhealthy: ["reason"],
    ClusterHealthy: [],
    RetryDue: [],
    RequestArrived: ["namespace", "name"],
  }),
})

/** Edit distance between two strings (insertions, deletions, substitutions), case-insensitive. */
export const editDistance = (a: string, b: string): number => {
  const x = a.toLowerCase()
  const y = b.toLowerCase()
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j)
  for (let i = 1; i <= x.length; i++) {
    const cur = [i]
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost)
    }
    prev = cur
  }
  return prev[y.length] ?? 0
}

/** The known key closest to `key` (ties: the first in declaration order). */
export const closestKey = (key: string, known: ReadonlyArray<string>): string | undefined => {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const k of known) {
    const d = editDistance(key, k)
    if (d < bestDistance) {
      best = k
      bestDistance = d
    }
  }
  return best
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** A key the input has and its shape does not. */
export interface UnknownKey {
  /** Where, the key itself last (e.g. `["desired", "watches", 0, "knd"]`). */
  readonly path: ReadonlyArray<string | number>
  readonly key: string
  /** The known key of that object closest to `key`, if the object has any. */
  readonly closest: string | undefined
}

/** `unknown key "knd", did you mean "kind"?` */
export const unknownKeyMessage = (u: UnknownKey): string =>
  `unknown key "${u.key}"${u.closest === undefined ? "" : `, did you mean "${u.closest}"?`}`

/**
 * Every unknown key of `value` against `shape`. Values of the wrong type are left to the
 * schema, which names them.
 */
export const unknownKeys = (
  value: unknown,
  shape: KeyShape,
  path: ReadonlyArray<string | number> = [],
): ReadonlyArray<UnknownKey> => {
  switch (shape._tag) {
    case "Leaf":
      return []
    case "Array":
      return Array.isArray(value) ? value.flatMap((v, i) => unknownKeys(v, shape.item, [...path, i])) : []
    case "Object":
    case "Tagged": {
      if (!isRecord(value)) return []
      let fields: Readonly<Record<string, KeyShape>> | undefined
      if (shape._tag === "Object") fields = shape.fields
      else if (typeof value._tag === "string") fields = shape.variants[value._tag]
      if (fields === undefined) return []
      const known = Object.keys(fields)
      return Object.entries(value).flatMap(([key, v]) => {
        const field = fields[key]
        if (field !== undefined) return unknownKeys(v, field, [...path, key])
        return [{ path: [...path, key], key, closest: closestKey(key, known) }]
      })
    }
  }
}

/**
 * The engagement table's input: unknown keys are rejected first (each named with the closest
 * known key), then the fields are decoded.
 */
export const EngagementInputSchema = Schema.Unknown.check(
  Schema.makeFilter((u: unknown) =>
    unknownKeys(u, engagementInputKeys).map((k) => ({ path: k.path, issue: unknownKeyMessage(k) })),
  ),
).pipe(Schema.decodeTo(EngagementInputStruct, SchemaTransformation.passthrough({ strict: false })))

// Compile-time check: the schema decodes to the table's input type.
type Decodes<S extends Schema.Top, T> = S["Type"] extends T ? true : false
type Check<T extends true> = T
export type SchemaChecks = [Check<Decodes<typeof EngagementInputSchema, EngagementInput>>]

/** The input schema of each multi-cluster table, by table id. */
export const inputSchemas = {
  "multicluster.engagement": EngagementInputSchema,
} as const
