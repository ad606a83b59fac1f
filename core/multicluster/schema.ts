/**
 * The schema of the engagement table's input, so that a hand-written JSON input (for
 * `krtt explain multicluster.engagement --input f.json`) is decoded strictly: a field of the
 * wrong type is named with its path, and an unknown key is an error that names the closest
 * known key (`input.desired.engageWithLocalClustr: unknown key "engageWithLocalClustr"; did
 * you mean "engageWithLocalCluster"? (known keys: ...)`), the known keys being those of the
 * tagged variant the object names. `docs/multicluster-inputs.md` shows an example per trigger.
 *
 * @module
 */
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
import { closestKey, editDistance } from "../krtt/suggest.ts"
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
    Schema.Struct({
      name: Schema.String,
      kind: Schema.Literals(["For", "Owns", "Watches"]),
      engageWithLocalCluster: Schema.optional(Schema.Boolean),
      engageWithProviderClusters: Schema.optional(Schema.Boolean),
      clusterFilter: Schema.optional(Schema.Literals(["accept", "reject"])),
    }),
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
    {
      watches: {
        _tag: "Array",
        item: obj(["name", "kind", "engageWithLocalCluster", "engageWithProviderClusters", "clusterFilter"]),
      },
    },
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

export { closestKey, editDistance }

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** A key the input has and its shape does not. */
export interface UnknownKey {
  /** Where, the key itself last (e.g. `["desired", "watches", 0, "knd"]`). */
  readonly path: ReadonlyArray<string | number>
  readonly key: string
  /** The known key of that object closest to `key`, when one is close enough to be a typo. */
  readonly closest: string | undefined
  /** Every key that object may have. */
  readonly known: ReadonlyArray<string>
}

/** `unknown key "knd"; did you mean "kind"? (known keys: name, kind)`, as every strict input of `krtt` says it. */
export const unknownKeyMessage = (u: UnknownKey): string =>
  `unknown key "${u.key}"${u.closest === undefined ? "" : `; did you mean "${u.closest}"?`}${
    u.known.length > 0 ? ` (known keys: ${u.known.join(", ")})` : ""
  }`

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
        return [{ path: [...path, key], key, closest: closestKey(key, known), known }]
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
