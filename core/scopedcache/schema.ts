/**
 * Schemas of the scoped cache tables' inputs, so that a hand-written JSON input (for
 * `krtt explain scopedcache.<table> --input f.json`) is decoded with an error naming the field
 * that is wrong. Dependents are written as an array and decoded to a {@link DependentSet} (two
 * entries with one UID are refused: a dependent is counted once). `docs/scopedcache-inputs.md`
 * shows an example per operation.
 *
 * @module
 */
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import { DependentSet } from "./dependents.ts"
import type { InformersInput } from "./informers.ts"
import type { LifecycleInput } from "./lifecycle.ts"
import type { ReadsInput } from "./reads.ts"

const opt = Schema.optionalKey
const Millis = Schema.Number.check(Schema.isFinite())
const State = Schema.Literals(["Pending", "Starting", "Synced", "Covered"])

export const GvkSchema = Schema.Struct({ group: Schema.String, version: Schema.String, kind: Schema.String })

export const InformerRefSchema = Schema.Struct({
  namespace: Schema.String,
  gvk: GvkSchema,
  key: Schema.String,
})

export const DependentSchema = Schema.Struct({
  uid: Schema.NonEmptyString,
  kind: Schema.optional(Schema.String),
  namespace: Schema.optional(Schema.String),
  name: Schema.optional(Schema.String),
})

const uniqueUids = Schema.makeFilter((ds: ReadonlyArray<{ readonly uid: string }>) => {
  const seen = new Set<string>()
  for (const d of ds) {
    if (seen.has(d.uid)) return `dependent UID "${d.uid}" appears twice (a dependent is counted once)`
    seen.add(d.uid)
  }
  return true
})

/** An array of dependents with distinct UIDs, decoded to a DependentSet. */
export const DependentsSchema = Schema.Array(DependentSchema)
  .check(uniqueUids)
  .pipe(
    Schema.decodeTo(Schema.declare(DependentSet.is), {
      decode: SchemaGetter.transform((ds) => DependentSet.fromArray(ds)),
      encode: SchemaGetter.transform((set) => set.toArray()),
    }),
  )

const input = <O extends Schema.Top, D extends Schema.Top, T extends Schema.Top>(
  observed: O,
  desired: D,
  trigger: T,
) => Schema.Struct({ observed, desired, trigger, now: Millis })

export const InformersInputSchema = input(
  Schema.Struct({
    started: Schema.Boolean,
    informer: opt(Schema.Struct({ state: State, dependents: DependentsSchema })),
    coveredByCluster: Schema.Boolean,
    peers: Schema.Array(Schema.Struct({ namespace: Schema.NonEmptyString, state: State })),
  }),
  Schema.Struct({ ref: InformerRefSchema, automaticTermination: Schema.Boolean }),
  Schema.Union([
    Schema.TaggedStruct("AddInformer", { dependent: DependentSchema }),
    Schema.TaggedStruct("RemoveInformer", { dependent: DependentSchema }),
    Schema.TaggedStruct("ForceRemove", {}),
    Schema.TaggedStruct("PermissionLost", {
      verb: Schema.Literals(["list", "watch"]),
      message: Schema.String,
    }),
    Schema.TaggedStruct("InformerSynced", {}),
  ]),
)

const SummarySchema = Schema.Struct({ ref: InformerRefSchema, state: State })
const Empty = Schema.Struct({})

export const LifecycleInputSchema = input(
  Schema.Struct({ started: Schema.Boolean, informers: Schema.Array(SummarySchema) }),
  Empty,
  Schema.Union([
    Schema.TaggedStruct("Start", {}),
    Schema.TaggedStruct("IsStarted", {}),
    Schema.TaggedStruct("WaitForCacheSync", {}),
  ]),
)

export const ReadsInputSchema = input(
  Schema.Struct({ started: Schema.Boolean, informers: Schema.Array(SummarySchema) }),
  Empty,
  Schema.Union([
    Schema.TaggedStruct("Get", { gvk: GvkSchema, namespace: Schema.String, name: Schema.NonEmptyString }),
    Schema.TaggedStruct("List", { gvk: GvkSchema, namespace: opt(Schema.String) }),
    Schema.TaggedStruct("GetInformer", { ref: InformerRefSchema }),
  ]),
)

// Compile-time checks: each schema decodes to the table's input type.
type Decodes<S extends Schema.Top, T> = S["Type"] extends T ? true : false
type Check<T extends true> = T
export type SchemaChecks = [
  Check<Decodes<typeof InformersInputSchema, InformersInput>>,
  Check<Decodes<typeof LifecycleInputSchema, LifecycleInput>>,
  Check<Decodes<typeof ReadsInputSchema, ReadsInput>>,
]

/** The input schema of each scoped cache table, by table id. */
export const inputSchemas = {
  "scopedcache.informers": InformersInputSchema,
  "scopedcache.lifecycle": LifecycleInputSchema,
  "scopedcache.reads": ReadsInputSchema,
} as const
