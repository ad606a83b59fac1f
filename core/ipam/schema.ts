/**
 * Strict schemas of the IPAM tables' inputs, so that a hand-written JSON input (`krtt explain
 * ipam.trigger --input f.json`) is decoded with an error naming every wrong field; an unknown
 * field is an error that names the closest known one. docs/ipam-inputs.md shows the shapes.
 *
 * @module
 */
import * as Schema from "effect/Schema"
import { closest } from "./config.ts"

const Str = Schema.String
const opt = Schema.optional
const StringMap = Schema.Record(Schema.String, Schema.String)

/**
 * A struct that refuses unknown fields: each unknown key fails with `unknown field; did you
 * mean "<closest known field>"?` (one index signature per known field selects the unknown keys
 * closest to it).
 */
// biome-ignore lint/suspicious/noExplicitAny: the fields of any struct
export const strictStruct = <F extends Record<string, any>>(fields: F) => {
  const known = Object.keys(fields)
  const rests = known.map((k) =>
    Schema.Record(
      Schema.String.check(
        Schema.makeFilter((key: string) => !known.includes(key) && closest(key, known) === k),
      ),
      Schema.Never.annotate({ message: `unknown field; did you mean "${k}"?` }),
    ),
  )
  const base = Schema.Struct(fields)
  // a struct without fields has no closest field: any key is unknown
  if (rests.length === 0) {
    return Schema.StructWithRest(base, [
      Schema.Record(
        Schema.String,
        Schema.Never.annotate({ message: "unknown field; this object has no fields" }),
      ),
    ]) as unknown as typeof base
  }
  return Schema.StructWithRest(base, rests as never) as unknown as typeof base
}

const tagged = <T extends string, F extends Record<string, Schema.Top>>(tag: T, fields: F) =>
  strictStruct({ _tag: Schema.Literal(tag), ...fields })

export const ObjectReferenceSchema = strictStruct({ name: Str, namespace: Str })
export const ClusterSelectorSchema = strictStruct({
  matchIdentities: opt(Schema.Array(ObjectReferenceSchema)),
  matchPurposes: Schema.Array(
    strictStruct({
      operator: Schema.Literals(["ContainsAll", "ContainsAny", "ContainsNone", "Equals"]),
      values: Schema.Array(Str),
    }),
  ),
  matchLabels: StringMap,
  matchExpressions: Schema.Array(
    strictStruct({
      key: Str,
      operator: Schema.Literals(["In", "NotIn", "Exists", "DoesNotExist"]),
      values: Schema.Array(Str),
    }),
  ),
})
export const InjectionSchema = strictStruct({
  id: opt(Str),
  paths: Schema.Array(Str),
  parents: Schema.Array(Str),
  subnetSize: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0), Schema.isLessThanOrEqualTo(128)),
})
export const IpamConfigSpecSchema = strictStruct({
  parentCIDRs: Schema.Record(Str, Schema.Array(Str)),
  injectionRules: Schema.Array(
    strictStruct({ id: Str, selector: ClusterSelectorSchema, injections: Schema.Array(InjectionSchema) }),
  ),
  internalStateRefreshCycleDuration: Schema.Number.check(Schema.isGreaterThanOrEqualTo(0)),
})
export const ClusterViewSchema = strictStruct({
  namespace: Str,
  name: Str,
  uid: opt(Str),
  labels: StringMap,
  annotations: StringMap,
  purposes: Schema.Array(Str),
  deletionTimestamp: opt(Str),
})
export const ClusterConfigViewSchema = strictStruct({
  namespace: Str,
  name: Str,
  labels: StringMap,
  annotations: StringMap,
  finalizers: Schema.Array(Str),
  ownerReferences: Schema.Array(
    strictStruct({
      apiVersion: Str,
      kind: Str,
      name: Str,
      uid: opt(Str),
      controller: opt(Schema.Boolean),
      blockOwnerDeletion: opt(Schema.Boolean),
    }),
  ),
  deletionTimestamp: opt(Str),
  patches: Schema.Array(strictStruct({ op: Str, path: Str, value: opt(Schema.Unknown) })),
})
const Identity = strictStruct({ managedBy: Str, environment: Str })
const Millis = Schema.Number.check(Schema.isFinite())

export const TriggerInputSchema = strictStruct({
  observed: strictStruct({
    config: opt(IpamConfigSpecSchema),
    clusters: Schema.Array(ClusterViewSchema),
    waiting: opt(Schema.Array(strictStruct({ namespace: Str, name: Str }))),
  }),
  desired: Identity,
  trigger: Schema.Union([
    tagged("ClusterCreated", { cluster: ClusterViewSchema }),
    tagged("ClusterUpdated", { old: ClusterViewSchema, cluster: ClusterViewSchema }),
    tagged("ClusterDeleted", { cluster: ClusterViewSchema }),
    tagged("ClusterConfigCreated", { clusterConfig: ClusterConfigViewSchema }),
    tagged("ClusterConfigUpdated", { old: ClusterConfigViewSchema, clusterConfig: ClusterConfigViewSchema }),
    tagged("ClusterConfigDeleted", { clusterConfig: ClusterConfigViewSchema }),
    tagged("ConfigChanged", { old: opt(IpamConfigSpecSchema) }),
    tagged("Started", {}),
    tagged("StateRefreshed", {}),
    tagged("CidrsReleased", {}),
  ]),
  now: Millis,
})

export const ReconcileInputSchema = strictStruct({
  observed: strictStruct({
    cluster: opt(ClusterViewSchema),
    clusterConfigs: Schema.Array(ClusterConfigViewSchema),
    allocations: Schema.Array(strictStruct({ cidr: Str, parent: opt(Str) })),
  }),
  desired: strictStruct({ config: opt(IpamConfigSpecSchema), identity: Identity }),
  trigger: tagged("Reconcile", { namespace: Str, name: Str }),
  now: Millis,
})

/** The input schema of each IPAM table, by table id. */
export const inputSchemas = {
  "ipam.trigger": TriggerInputSchema,
  "ipam.reconcile": ReconcileInputSchema,
} as const
