/**
 * Schemas of the Cluster controller's input, so that a hand-written JSON input (for
 * `krtt explain`) is decoded with an error naming the field that is wrong. The six tables share
 * one input; `docs/cluster-inputs.md` shows its shape and an example per table.
 *
 * @module
 */
import * as Schema from "effect/Schema"
import type { ClusterInput } from "./types.ts"

const opt = Schema.optionalKey
const Str = Schema.String
const Bool = Schema.Boolean
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))
const Millis = Schema.Number.check(Schema.isFinite())
const StringMap = Schema.Record(Schema.String, Schema.String)

export const OwnerReferenceSchema = Schema.Struct({
  apiVersion: Str,
  kind: Str,
  name: Str,
  uid: opt(Str),
  controller: opt(Bool),
  blockOwnerDeletion: opt(Bool),
})

const metaFields = {
  name: Str,
  uid: opt(Str),
  generation: opt(Schema.Int),
  deletionTimestamp: opt(Str),
  finalizers: opt(Schema.Array(Str)),
  labels: opt(StringMap),
  annotations: opt(StringMap),
  ownerReferences: opt(Schema.Array(OwnerReferenceSchema)),
}

export const ObjectMetaSchema = Schema.Struct({ ...metaFields, namespace: opt(Str) })
export const ClusterMetaSchema = Schema.Struct({ ...metaFields, namespace: Str })

export const ConditionSchema = Schema.Struct({
  type: Str,
  status: Schema.Literals(["True", "False", "Unknown"]),
  reason: opt(Str),
  message: opt(Str),
  severity: opt(Schema.Literals(["Error", "Warning", "Info", ""])),
  observedGeneration: opt(Schema.Int),
  lastTransitionTime: opt(Str),
})
const Conditions = opt(Schema.Array(ConditionSchema))

export const APIEndpointSchema = Schema.Struct({ host: opt(Str), port: opt(Schema.Int) })
export const ContractReferenceSchema = Schema.Struct({ apiGroup: Str, kind: Str, name: Str })
export const AvailabilityGateSchema = Schema.Struct({
  conditionType: Str,
  polarity: opt(Schema.Literals(["Positive", "Negative"])),
})

export const ClusterSpecSchema = Schema.Struct({
  paused: opt(Bool),
  infrastructureRef: opt(ContractReferenceSchema),
  controlPlaneRef: opt(ContractReferenceSchema),
  controlPlaneEndpoint: opt(APIEndpointSchema),
  topology: opt(
    Schema.Struct({
      classRef: Schema.Struct({ name: Str, namespace: opt(Str) }),
      version: opt(Str),
    }),
  ),
  availabilityGates: opt(Schema.Array(AvailabilityGateSchema)),
})

export const FailureDomainSchema = Schema.Struct({
  name: Str,
  controlPlane: opt(Bool),
  attributes: opt(StringMap),
})

/** An item of a `versions` list (v1.14). */
export const StatusVersionSchema = Schema.Struct({ version: Str, replicas: opt(Count) })

const counterFields = {
  desiredReplicas: opt(Count),
  replicas: opt(Count),
  readyReplicas: opt(Count),
  availableReplicas: opt(Count),
  upToDateReplicas: opt(Count),
  versions: opt(Schema.Array(StatusVersionSchema)),
}
export const ReplicaCountersSchema = Schema.Struct(counterFields)

export const ClusterStatusSchema = Schema.Struct({
  conditions: Conditions,
  initialization: opt(
    Schema.Struct({ infrastructureProvisioned: opt(Bool), controlPlaneInitialized: opt(Bool) }),
  ),
  controlPlane: opt(ReplicaCountersSchema),
  workers: opt(ReplicaCountersSchema),
  failureDomains: opt(Schema.Array(FailureDomainSchema)),
  phase: opt(Schema.Literals(["Pending", "Provisioning", "Provisioned", "Deleting", "Failed"])),
  observedGeneration: opt(Schema.Int),
  deprecated: opt(
    Schema.Struct({
      v1beta1: opt(
        Schema.Struct({ conditions: Conditions, failureReason: opt(Str), failureMessage: opt(Str) }),
      ),
    }),
  ),
})

export const ObservedClusterSchema = Schema.Struct({
  metadata: ClusterMetaSchema,
  status: opt(ClusterStatusSchema),
})

export const InfrastructureClusterSchema = Schema.Struct({
  metadata: ObjectMetaSchema,
  spec: opt(Schema.Struct({ controlPlaneEndpoint: opt(APIEndpointSchema) })),
  status: opt(
    Schema.Struct({
      initialization: opt(Schema.Struct({ provisioned: opt(Bool) })),
      ready: opt(Bool),
      failureDomains: opt(
        Schema.Union([
          Schema.Array(FailureDomainSchema),
          Schema.Record(
            Schema.String,
            Schema.Struct({ controlPlane: opt(Bool), attributes: opt(StringMap) }),
          ),
        ]),
      ),
      conditions: Conditions,
    }),
  ),
})

export const ControlPlaneSchema = Schema.Struct({
  metadata: ObjectMetaSchema,
  spec: opt(Schema.Struct({ controlPlaneEndpoint: opt(APIEndpointSchema), replicas: opt(Count) })),
  status: opt(
    Schema.Struct({
      initialization: opt(Schema.Struct({ controlPlaneInitialized: opt(Bool) })),
      initialized: opt(Bool),
      ready: opt(Bool),
      replicas: opt(Count),
      readyReplicas: opt(Count),
      availableReplicas: opt(Count),
      upToDateReplicas: opt(Count),
      versions: opt(Schema.Unknown),
      conditions: Conditions,
    }),
  ),
})

export const ClusterClassSchema = Schema.Struct({
  metadata: ObjectMetaSchema,
  spec: opt(Schema.Struct({ availabilityGates: opt(Schema.Array(AvailabilityGateSchema)) })),
})

export const MachineSchema = Schema.Struct({
  metadata: Schema.Struct({ ...ObjectMetaSchema.fields, creationTimestamp: opt(Str) }),
  spec: opt(Schema.Struct({ version: opt(Str) })),
  status: opt(
    Schema.Struct({
      nodeRef: opt(Schema.Struct({ name: Str })),
      nodeInfo: opt(Schema.Struct({ kubeletVersion: opt(Str) })),
      conditions: Conditions,
    }),
  ),
})

export const MachineGroupSchema = Schema.Struct({
  metadata: ObjectMetaSchema,
  spec: opt(Schema.Struct({ replicas: opt(Count) })),
  status: opt(Schema.Struct({ ...counterFields, conditions: Conditions })),
})

const fetched = <S extends Schema.Top>(object: S) =>
  Schema.Union([
    Schema.TaggedStruct("Found", { object }),
    Schema.TaggedStruct("NotFound", {}),
    Schema.TaggedStruct("GetFailed", { error: Str }),
  ])

export const LookupSchema = Schema.Union([
  Schema.TaggedStruct("Found", {}),
  Schema.TaggedStruct("NotFound", {}),
  Schema.TaggedStruct("GetFailed", { error: Str }),
])

export const DescendantsSchema = Schema.Union([
  Schema.TaggedStruct("Listed", {
    machineDeployments: Schema.Array(MachineGroupSchema),
    machineSets: Schema.Array(MachineGroupSchema),
    machinePools: Schema.Array(MachineGroupSchema),
    machines: Schema.Array(MachineSchema),
  }),
  Schema.TaggedStruct("ListFailed", { error: Str }),
])

export const ClusterObservedSchema = Schema.Struct({
  cluster: fetched(ObservedClusterSchema),
  clusterClass: fetched(ClusterClassSchema),
  infrastructure: fetched(InfrastructureClusterSchema),
  controlPlane: fetched(ControlPlaneSchema),
  descendants: DescendantsSchema,
  kubeconfigSecret: LookupSchema,
  featureGates: Schema.Struct({ runtimeSDK: Bool, clusterTopology: Bool, machinePool: Bool }),
  remoteConnection: Schema.Struct({ lastProbeSuccessTime: opt(Millis) }),
})

const ClusterKeySchema = Schema.Struct({ namespace: Str, name: Str })
const ObjectRefSchema = Schema.Struct({ apiGroup: Str, kind: Str, namespace: Str, name: Str })
const Role = Schema.Literals(["infrastructure", "controlPlane"])
const Endpoint = Schema.Struct({ host: Str, port: Schema.Int })

/** The actions, as a failed one is reported back in an `ActionFailed` trigger. */
export const ClusterActionSchema = Schema.Union([
  Schema.TaggedStruct("AddFinalizer", { cluster: ClusterKeySchema, finalizer: Str }),
  Schema.TaggedStruct("RemoveFinalizer", { cluster: ClusterKeySchema, finalizer: Str }),
  Schema.TaggedStruct("PatchExternal", {
    role: Role,
    ref: ObjectRefSchema,
    ownerReference: OwnerReferenceSchema,
    labels: StringMap,
  }),
  Schema.TaggedStruct("SetControlPlaneEndpoint", {
    cluster: ClusterKeySchema,
    endpoint: Endpoint,
    from: Role,
  }),
  Schema.TaggedStruct("CreateKubeconfigSecret", {
    cluster: ClusterKeySchema,
    secret: ClusterKeySchema,
    caSecret: ClusterKeySchema,
    endpoint: Endpoint,
    type: Str,
    key: Str,
    labels: StringMap,
    ownerReference: OwnerReferenceSchema,
  }),
  Schema.TaggedStruct("DeleteObject", {
    role: Schema.Literals(["descendant", "infrastructure", "controlPlane"]),
    ref: ObjectRefSchema,
  }),
  Schema.TaggedStruct("PatchStatus", { cluster: ClusterKeySchema, status: ClusterStatusSchema }),
  Schema.TaggedStruct("Event", {
    cluster: ClusterKeySchema,
    type: Schema.Literals(["Normal", "Warning"]),
    reason: Str,
    message: Str,
  }),
  Schema.TaggedStruct("Requeue", { after: Millis }),
  Schema.TaggedStruct("ReturnError", { error: Str }),
])

/** Why a failed action was refused (`failure.ts`). */
export const ActionFailureSchema = Schema.Struct({
  _tag: Schema.Literals(["NotFound", "Conflict", "Forbidden", "Invalid", "Unavailable", "Other"]),
  message: Str,
})

export const ClusterTriggerSchema = Schema.Union([
  Schema.TaggedStruct("Reconcile", {}),
  Schema.TaggedStruct("ActionFailed", { action: ClusterActionSchema, failure: ActionFailureSchema }),
])

/** The input of every Cluster controller table. */
export const ClusterInputSchema = Schema.Struct({
  observed: ClusterObservedSchema,
  desired: ClusterSpecSchema,
  trigger: ClusterTriggerSchema,
  now: Millis,
})

// Compile-time check: the schema decodes to the tables' input type.
type Decodes<S extends Schema.Top, T> = S["Type"] extends T ? true : false
type Check<T extends true> = T
export type ClusterSchemaChecks = [Check<Decodes<typeof ClusterInputSchema, ClusterInput>>]

/** The input schema of each Cluster controller table, by table id (all six share one input). */
export const inputSchemas = {
  "cluster.normal": ClusterInputSchema,
  "cluster.deletion": ClusterInputSchema,
  "cluster.errors": ClusterInputSchema,
  "cluster.infrastructure": ClusterInputSchema,
  "cluster.controlplane": ClusterInputSchema,
  "cluster.delete-flow": ClusterInputSchema,
} as const
