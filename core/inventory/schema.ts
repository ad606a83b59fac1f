/**
 * The strict schema of the `inventory.entry` input, so that a hand-written JSON input (`krtt
 * explain inventory.entry --input f.json`) is decoded with an error naming every wrong field; an
 * unknown field is an error naming the closest known one. docs/fleet.md shows an example.
 *
 * @module
 */
import * as Schema from "effect/Schema"
import { strictStruct } from "../ipam/schema.ts"

const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const Millis = Schema.Number.check(Schema.isFinite())

export const ClusterFactsSchema = strictStruct({
  kubernetesVersion: Schema.String,
  nodes: Count,
  readyNodes: Count,
})

export const ClusterViewSchema = Schema.Union([
  strictStruct({ _tag: Schema.Literal("Absent") }),
  strictStruct({ _tag: Schema.Literal("Engaged"), facts: ClusterFactsSchema }),
  strictStruct({ _tag: Schema.Literal("Unhealthy"), reason: Schema.String }),
  strictStruct({ _tag: Schema.Literal("Waiting") }),
])

export const EntryInputSchema = strictStruct({
  observed: strictStruct({
    cluster: Schema.String,
    view: ClusterViewSchema,
    stored: Schema.optional(Schema.String),
    pendingSince: Schema.optional(Millis),
  }),
  desired: strictStruct({}),
  trigger: strictStruct({ _tag: Schema.Literal("Reconcile") }),
  now: Millis,
})

/** The input schemas by table id. */
export const inputSchemas = { "inventory.entry": EntryInputSchema } as const
