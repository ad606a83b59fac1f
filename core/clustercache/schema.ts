/**
 * Schemas of the ClusterCache tables' inputs, so that a hand-written JSON input (for
 * `krtt explain`) is decoded with an error naming the field that is wrong. The types they decode
 * to are the tables' input types; `docs/krtt/inputs.md` shows an example per table.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { TransitionInput } from "../krtt/index.ts"
import type { AccessorInput } from "./accessor.ts"
import type { ErrorsInput } from "./errors.ts"
import type { EventsInput } from "./events.ts"
import type { HealthInput } from "./health.ts"
import type { ReconcilerInput } from "./reconciler.ts"
import type { WatchInput } from "./watch.ts"

const Millis = Schema.Number.check(Schema.isFinite())
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
/** A duration: finite and never negative. */
const DurationMillis = Millis.check(Schema.isGreaterThanOrEqualTo(0))
const Time = Schema.optional(Millis)
const Empty = Schema.Struct({})

export const AccessorStateSchema = Schema.Struct({
  connected: Schema.Boolean,
  lastConnectionCreationErrorTime: Time,
  lastProbeTime: Time,
  lastProbeSuccessTime: Time,
  consecutiveFailures: Count,
  watches: Schema.Array(Schema.String),
  lastEventSent: Schema.Record(Schema.String, Millis),
  privateKeyGenerated: Schema.Boolean,
})

const input = <O extends Schema.Top, D extends Schema.Top, T extends Schema.Top>(
  observed: O,
  desired: D,
  trigger: T,
) => Schema.Struct({ observed, desired, trigger, now: Millis })

const ClusterViewSchema = Schema.Union([
  Schema.TaggedStruct("Found", {
    // Absent means false, as upstream reads status.initialization.infrastructureProvisioned.
    infrastructureProvisioned: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(false))),
    deleting: Schema.Boolean,
  }),
  Schema.TaggedStruct("NotFound", {}),
  Schema.TaggedStruct("GetFailed", { error: Schema.String }),
])

export const ReconcilerInputSchema = input(
  Schema.Struct({ accessor: Schema.optional(AccessorStateSchema) }),
  Schema.Struct({
    cluster: ClusterViewSchema,
    sources: Schema.Array(
      Schema.Struct({ name: Schema.String, probeFailureDurations: Schema.Array(DurationMillis) }),
    ),
  }),
  Schema.Union([
    Schema.TaggedStruct("Reconcile", {}),
    Schema.TaggedStruct("ConnectFinished", { ok: Schema.Boolean, error: Schema.optional(Schema.String) }),
    Schema.TaggedStruct("ProbeFinished", {
      outcome: Schema.Literals(["success", "failure", "unauthorized"]),
    }),
    Schema.TaggedStruct("PhasesComplete", {
      didConnect: Schema.Boolean,
      didDisconnect: Schema.Boolean,
      requeueAfter: Schema.Array(DurationMillis),
    }),
  ]),
)

export const AccessorInputSchema = input(
  AccessorStateSchema,
  Schema.Struct({ clientCertificatePrivateKey: Schema.Literals(["enabled", "disabled"]) }),
  Schema.Union([
    Schema.TaggedStruct("Connect", {}),
    Schema.TaggedStruct("ConnectionCreated", {}),
    Schema.TaggedStruct("CacheStarted", {}),
    Schema.TaggedStruct("CacheSynced", {}),
    Schema.TaggedStruct("ConnectionFailed", {
      step: Schema.Literals(["createConnection", "createClients", "cacheSync"]),
      error: Schema.String,
    }),
    Schema.TaggedStruct("Disconnect", {}),
  ]),
)

export const HealthInputSchema = input(
  AccessorStateSchema,
  Empty,
  Schema.Union([
    Schema.TaggedStruct("HealthCheck", {}),
    Schema.TaggedStruct("ProbeResult", { outcome: Schema.Literals(["success", "failure", "unauthorized"]) }),
  ]),
)

export const WatchInputSchema = input(
  Schema.Struct({ connected: Schema.Boolean, watches: Schema.Array(Schema.String) }),
  Schema.Struct({ name: Schema.String }),
  Schema.Union([
    Schema.TaggedStruct("Watch", {}),
    Schema.TaggedStruct("WatchStarted", {}),
    Schema.TaggedStruct("WatchFailed", { error: Schema.String }),
  ]),
)

export const EventsInputSchema = input(
  Schema.Struct({ lastProbeSuccessTime: Time, lastEventSentTime: Time }),
  Schema.Struct({ source: Schema.String, probeFailureDurations: Schema.Array(DurationMillis) }),
  Schema.Struct({ didConnect: Schema.Boolean, didDisconnect: Schema.Boolean }),
)

export const ErrorsInputSchema = input(
  Schema.Struct({ consecutiveFailures: Count }),
  Empty,
  Schema.Union([
    Schema.TaggedStruct("ClusterNotConnectedError", {}),
    Schema.TaggedStruct("ConnectionCreationFailed", {}),
    Schema.TaggedStruct("HealthProbeFailed", { unauthorized: Schema.Boolean }),
    Schema.TaggedStruct("ClusterNotFound", {}),
    Schema.TaggedStruct("ClusterGetFailed", {}),
  ]),
)

// Compile-time checks: each schema decodes to the table's input type.
type Decodes<S extends Schema.Top, T> = S["Type"] extends T ? true : false
type Check<T extends true> = T
export type SchemaChecks = [
  Check<Decodes<typeof ReconcilerInputSchema, ReconcilerInput>>,
  Check<Decodes<typeof AccessorInputSchema, AccessorInput>>,
  Check<Decodes<typeof HealthInputSchema, HealthInput>>,
  Check<Decodes<typeof WatchInputSchema, WatchInput>>,
  Check<Decodes<typeof EventsInputSchema, EventsInput>>,
  Check<Decodes<typeof ErrorsInputSchema, ErrorsInput>>,
  Check<Decodes<typeof ErrorsInputSchema, TransitionInput<unknown, unknown, unknown>>>,
]

/** The input schema of each ClusterCache table, by table id. */
export const inputSchemas = {
  "clustercache.reconciler": ReconcilerInputSchema,
  "clustercache.accessor": AccessorInputSchema,
  "clustercache.health": HealthInputSchema,
  "clustercache.watch": WatchInputSchema,
  "clustercache.events": EventsInputSchema,
  "clustercache.errors": ErrorsInputSchema,
} as const

/**
 * `krtt explain clustercache.reconciler --reconcile`: a whole reconcile through the driver
 * (`driver.ts`), the world's answers given in the input. `world.connect` and `world.probe` are
 * needed only when the reconcile connects or probes.
 */
export const ReconcileRunInputSchema = Schema.Struct({
  observed: Schema.Struct({ accessor: Schema.optional(AccessorStateSchema) }),
  desired: ReconcilerInputSchema.fields.desired,
  now: Millis,
  world: Schema.Struct({
    connect: Schema.optional(
      Schema.Union([
        Schema.Struct({ ok: Schema.Literal(true) }),
        Schema.Struct({
          ok: Schema.Literal(false),
          step: Schema.Literals(["createConnection", "createClients", "cacheSync"]),
          error: Schema.String,
        }),
      ]),
    ),
    probe: Schema.optional(Schema.Literals(["success", "failure", "unauthorized"])),
  }),
})
