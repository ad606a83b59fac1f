/**
 * The v1beta2 conditions read from the provider objects, as Cluster API v1.14.2's
 * setInfrastructureReadyCondition, setControlPlaneAvailableCondition and
 * setControlPlaneInitializedCondition word them.
 *
 * InfrastructureReady and ControlPlaneAvailable: False `ObjectDoesNotExist` "Waiting for cluster
 * topology to be reconciled" while a topology has not set the ref; the object's `Ready`
 * (`Available`) condition mirrored when it was read, else the Cluster's flag (True with no
 * message, or False "<Kind> status.initialization.provisioned is false"); `InternalError` when
 * it was not read, which includes having no ref at all; False `ObjectDeleted` or `ObjectDoesNotExist` when
 * it is gone.
 *
 * ControlPlaneInitialized: kept once True; Unknown `ObjectDoesNotExist` while a topology has not set
 * the controlPlaneRef or the object is gone; from the object's initialized field when read;
 * without a controlPlaneRef, True once a control-plane Machine has a nodeRef.
 *
 * @module
 */
import { ConditionLimits, type Decided, findCondition, validReason } from "./conditions.ts"
import { isInitialized } from "./contract.ts"
import {
  controlPlaneOf,
  INTERNAL_ERROR,
  infrastructureOf,
  type StatusScope,
  waitingForTopology,
} from "./statusScope.ts"
import type { Condition, ContractReference, Fetched } from "./types.ts"

/** A provider's condition mirrored; a reason it does not give reads `NoReasonReported`. */
const mirror = (c: Condition, trueReason: string, fallback: string): Decided => {
  const given = c.reason === undefined || c.reason === "" ? "NoReasonReported" : c.reason
  const reason = c.status === "True" && given === "NoReasonReported" ? trueReason : given
  return {
    status: c.status,
    reason: validReason(
      reason,
      c.status === "True" ? trueReason : fallback,
      ConditionLimits.v1beta2ReasonMax,
    ),
    message: c.message ?? "",
  }
}

interface Rule {
  readonly ref: ContractReference | undefined
  readonly fetched: Fetched<{ readonly status?: { readonly conditions?: ReadonlyArray<Condition> } }>
  /** The condition mirrored, and its reasons. */
  readonly type: string
  readonly isTrue: string
  readonly isFalse: string
  /** The Cluster's flag after this reconcile, and the field its fallback message names. */
  readonly flag: boolean
  readonly field: string
}

const providerCondition = (s: StatusScope, r: Rule): Decided => {
  if (r.ref === undefined && s.spec.topology !== undefined)
    return { status: "False", reason: "ObjectDoesNotExist", message: waitingForTopology(s) }
  const kind = r.ref?.kind ?? ""
  const f = r.fetched
  if (r.ref === undefined || f._tag === "GetFailed") return INTERNAL_ERROR
  if (f._tag === "Found") {
    const c = findCondition(f.object.status?.conditions, r.type)
    if (c !== undefined) return mirror(c, r.isTrue, r.isFalse)
    return r.flag
      ? { status: "True", reason: r.isTrue, message: "" }
      : { status: "False", reason: r.isFalse, message: `${kind} ${r.field} is false` }
  }
  if (r.flag)
    return {
      status: "False",
      reason: "ObjectDeleted",
      message: s.deleting
        ? `${kind} has been deleted`
        : `${kind} has been deleted while the cluster still exists`,
    }
  return { status: "False", reason: "ObjectDoesNotExist", message: `${kind} does not exist` }
}

export const infrastructureReadyCondition = (s: StatusScope): Decided =>
  providerCondition(s, {
    ref: s.spec.infrastructureRef,
    fetched: infrastructureOf(s),
    type: "Ready",
    isTrue: "Ready",
    isFalse: "NotReady",
    flag: s.infrastructureProvisioned,
    field: "status.initialization.provisioned",
  })

export const controlPlaneAvailableCondition = (s: StatusScope): Decided =>
  providerCondition(s, {
    ref: s.spec.controlPlaneRef,
    fetched: controlPlaneOf(s),
    type: "Available",
    isTrue: "Available",
    isFalse: "NotAvailable",
    flag: s.controlPlaneInitialized,
    field: "status.initialization.controlPlaneInitialized",
  })

const INITIALIZED: Decided = { status: "True", reason: "Initialized", message: "" }

export const controlPlaneInitializedCondition = (s: StatusScope): Decided => {
  const kept = findCondition(s.cluster.status?.conditions, "ControlPlaneInitialized")
  if (kept?.status === "True")
    return { status: "True", reason: kept.reason ?? "Initialized", message: kept.message }
  const ref = s.spec.controlPlaneRef
  if (ref === undefined && s.spec.topology !== undefined)
    return { status: "Unknown", reason: "ObjectDoesNotExist", message: waitingForTopology(s) }
  if (ref !== undefined) {
    const cp = controlPlaneOf(s)
    if (cp._tag === "GetFailed") return INTERNAL_ERROR
    if (cp._tag === "NotFound")
      return { status: "Unknown", reason: "ObjectDoesNotExist", message: `${ref.kind} does not exist` }
    if (isInitialized(cp.object)) return INITIALIZED
    return { status: "False", reason: "NotInitialized", message: "Control plane not yet initialized" }
  }
  const d = s.descendants
  if (d === undefined) return INTERNAL_ERROR
  if (d.controlPlaneMachines.some((m) => m.status?.nodeRef !== undefined)) return INITIALIZED
  return {
    status: "False",
    reason: "NotInitialized",
    message: "Waiting for the first control plane machine to have status.nodeRef set",
  }
}
