/**
 * The schema of `propagate.copy`'s input, for `krtt explain propagate.copy --input f.json`:
 * decoded strictly (an unknown key is an error naming the closest known one, as every `krtt`
 * input). docs/fleet.md shows an example.
 *
 * @module
 */
import * as Schema from "effect/Schema"

const StringMap = Schema.Record(Schema.String, Schema.String)

export const ContentSchema = Schema.Struct({
  data: StringMap,
  binaryData: StringMap,
  labels: StringMap,
  annotations: StringMap,
  type: Schema.optional(Schema.String),
})

export const SourceSchema = Schema.Struct({
  kind: Schema.Literals(["ConfigMap", "Secret"]),
  namespace: Schema.String.check(Schema.isMinLength(1)),
  name: Schema.String.check(Schema.isMinLength(1)),
  labelled: Schema.Boolean,
  deleting: Schema.Boolean,
  content: ContentSchema,
})

export const CopySchema = Schema.Struct({
  propagatedFrom: Schema.optional(Schema.String),
  content: ContentSchema,
})

export const CopyInputSchema = Schema.Struct({
  observed: Schema.Struct({
    source: Schema.NullOr(SourceSchema),
    copy: Schema.NullOr(CopySchema),
    access: Schema.Literals(["Allowed", "Forbidden"]),
    namespace: Schema.Literals(["Present", "Missing", "Unknown"]),
  }),
  desired: Schema.Struct({
    cluster: Schema.String.check(Schema.isMinLength(1)),
    target: Schema.Union([
      Schema.TaggedStruct("Selected", {}),
      Schema.TaggedStruct("NotSelected", {}),
      Schema.TaggedStruct("Invalid", { message: Schema.String }),
    ]),
  }),
  trigger: Schema.Union([
    Schema.TaggedStruct("SourceChanged", {}),
    Schema.TaggedStruct("CopyChanged", {}),
    Schema.TaggedStruct("ClusterEngaged", {}),
    Schema.TaggedStruct("Resync", {}),
  ]),
  now: Schema.Number.check(Schema.isFinite()),
})
