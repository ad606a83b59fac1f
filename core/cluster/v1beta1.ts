/**
 * The deprecated v1beta1 conditions (`status.deprecated.v1beta1.conditions`), as Cluster API
 * v1.14.2 sets them: each is changed only by the step of the reconcile that owns it and keeps
 * its value otherwise.
 *
 * - `InfrastructureReady`: True (no reason) without an infrastructureRef while not deleting; the
 *   InfraCluster's `Ready` mirrored when it was read, else True when it is provisioned, else
 *   False `WaitingForInfrastructure` (`Deleting` while the Cluster is deleted), severity Info,
 *   no message; False `Deleted` once reconcileDelete finds it gone.
 * - `ControlPlaneReady`: likewise for the control-plane object (initialized, else
 *   `WaitingForControlPlane`); never set without a controlPlaneRef.
 * - `ControlPlaneInitialized`: until True, set from a read control-plane object that is not
 *   being deleted (True, or False `WaitingForControlPlaneProviderInitialized`); without a
 *   controlPlaneRef, while not deleting, True once an active control-plane Machine has a
 *   nodeRef, else False `MissingNodeRef`.
 * - `Ready`: the summary of ControlPlaneReady and InfrastructureReady: True (no reason) when the
 *   most severe group is True; else the reason, severity and message of the first condition of
 *   the most severe group (False Error, False Warning, False Info, True, Unknown, then False
 *   without a severity), ControlPlaneReady before InfrastructureReady. Kept when neither exists.
 *
 * A condition's `lastTransitionTime` moves when its status, reason, severity or message
 * changes. The list is ordered Ready first, then by type.
 *
 * @module
 */
import { type Clock, ConditionLimits, findCondition } from "./conditions.ts"
import { isControlPlaneMachine, isDeleting } from "./contract.ts"
import type { Classified } from "./descendants.ts"
import type { Condition, ConditionStatus, ContractReference, Fetched } from "./types.ts"

/** A v1beta1 condition before its time is set: no reason, severity or message when empty. */
interface V1 {
  readonly status: ConditionStatus
  readonly reason?: string | undefined
  readonly severity?: string | undefined
  readonly message?: string | undefined
}

/** What the v1beta1 conditions are computed from. */
export interface V1Beta1Input {
  readonly previous: ReadonlyArray<Condition> | undefined
  /** Whether the reconcile phases ran (not while waiting for the topology controller). */
  readonly phases: boolean
  readonly deleting: boolean
  readonly infrastructureRef: ContractReference | undefined
  readonly infrastructure: Fetched<{ readonly status?: { readonly conditions?: ReadonlyArray<Condition> } }>
  readonly provisioned: boolean
  readonly controlPlaneRef: ContractReference | undefined
  readonly controlPlane: Fetched<{
    readonly metadata: { readonly deletionTimestamp?: string }
    readonly status?: { readonly conditions?: ReadonlyArray<Condition> }
  }>
  readonly initialized: boolean
  /** reconcileDelete found the control-plane object, or the InfraCluster, gone. */
  readonly controlPlaneGone: boolean
  readonly infrastructureGone: boolean
  readonly descendants: Classified | undefined
  readonly time: Clock
}

const TRUE: V1 = { status: "True" }
const INITIALIZING = "Waiting for control plane provider to indicate the control plane has been initialized"
const MISSING_NODE_REF = "Waiting for the first control plane machine to have its status.nodeRef set"

const info = (reason: string, message?: string): V1 => ({
  status: "False",
  reason,
  severity: "Info",
  message,
})

/**
 * A provider's v1beta1 `Ready` condition mirrored, or the fallback when it has none. A reason
 * longer than the Cluster CRD allows is replaced by `waiting` (none when True).
 */
const mirror = (conditions: ReadonlyArray<Condition> | undefined, fallback: V1, waiting: string): V1 => {
  const c = findCondition(conditions, "Ready")
  if (c === undefined) return fallback
  const fits = c.reason === undefined || c.reason.length <= ConditionLimits.v1beta1ReasonMax
  const reason = fits ? c.reason : c.status === "True" ? undefined : waiting
  return { status: c.status, reason, severity: c.severity, message: c.message }
}

const deleting = (meta: { readonly deletionTimestamp?: string }): boolean =>
  meta.deletionTimestamp !== undefined && meta.deletionTimestamp !== ""

const fromPrevious = (c: Condition | undefined): V1 | undefined => c

/** The owned v1beta1 conditions after a reconcile, each `undefined` while never set. */
const decide = (i: V1Beta1Input): Record<string, V1 | undefined> => {
  let infrastructure = fromPrevious(findCondition(i.previous, "InfrastructureReady"))
  let controlPlane = fromPrevious(findCondition(i.previous, "ControlPlaneReady"))
  let initialized = fromPrevious(findCondition(i.previous, "ControlPlaneInitialized"))
  if (i.phases) {
    if (i.infrastructureRef === undefined) {
      if (!i.deleting) infrastructure = TRUE
    } else if (i.infrastructure._tag === "Found")
      infrastructure = mirror(
        i.infrastructure.object.status?.conditions,
        i.deleting ? info("Deleting") : i.provisioned ? TRUE : info("WaitingForInfrastructure"),
        "WaitingForInfrastructure",
      )
    if (i.controlPlaneRef !== undefined && i.controlPlane._tag === "Found") {
      const cp = i.controlPlane.object
      controlPlane = mirror(
        cp.status?.conditions,
        i.deleting ? info("Deleting") : i.initialized ? TRUE : info("WaitingForControlPlane"),
        "WaitingForControlPlane",
      )
      if (!deleting(cp.metadata) && initialized?.status !== "True")
        initialized = i.initialized ? TRUE : info("WaitingForControlPlaneProviderInitialized", INITIALIZING)
    }
    if (i.controlPlaneGone) controlPlane = info("Deleted")
    if (i.infrastructureGone) infrastructure = info("Deleted")
    if (
      !i.deleting &&
      i.controlPlaneRef === undefined &&
      initialized?.status !== "True" &&
      i.descendants !== undefined
    )
      initialized = i.descendants.controlPlaneMachines.some(
        (m) => isControlPlaneMachine(m) && !isDeleting(m.metadata) && m.status?.nodeRef !== undefined,
      )
        ? TRUE
        : info("MissingNodeRef", MISSING_NODE_REF)
  }
  const ready = summary([controlPlane, infrastructure]) ?? fromPrevious(findCondition(i.previous, "Ready"))
  return {
    Ready: ready,
    ControlPlaneInitialized: initialized,
    ControlPlaneReady: controlPlane,
    InfrastructureReady: infrastructure,
  }
}

/** How severe a group is: lower is worse. */
const rank = (c: V1): number => {
  if (c.status === "False")
    return c.severity === "Error" ? 0 : c.severity === "Warning" ? 1 : c.severity === "Info" ? 2 : 99
  return c.status === "True" ? 3 : 4
}

/** The v1beta1 summary: the first condition of the most severe group. */
const summary = (conditions: ReadonlyArray<V1 | undefined>): V1 | undefined => {
  let top: V1 | undefined
  for (const c of conditions) if (c !== undefined && (top === undefined || rank(c) < rank(top))) top = c
  if (top === undefined) return undefined
  if (top.status === "True") return TRUE
  return top.status === "False"
    ? { status: "False", reason: top.reason, severity: top.severity, message: top.message }
    : { status: "Unknown", reason: top.reason, message: top.message }
}

const nonEmpty = (s: string | undefined, max: number): string | undefined =>
  s === undefined || s === "" ? undefined : s.length <= max ? s : `${s.slice(0, max - 3)}...`

const sameState = (a: Condition, b: V1): boolean =>
  a.status === b.status &&
  (a.reason ?? "") === (b.reason ?? "") &&
  (a.severity ?? "") === (b.severity ?? "") &&
  (a.message ?? "") === (b.message ?? "")

const write = (type: string, d: V1, previous: Condition | undefined, time: Clock): Condition => {
  const reason = nonEmpty(d.reason, ConditionLimits.v1beta1ReasonMax)
  const message = nonEmpty(d.message, ConditionLimits.v1beta1MessageMax)
  const severity =
    d.severity === "Error" || d.severity === "Warning" || d.severity === "Info" ? d.severity : undefined
  const kept = previous !== undefined && sameState(previous, d) ? previous.lastTransitionTime : undefined
  return {
    type,
    status: d.status,
    ...(severity === undefined ? {} : { severity }),
    ...(reason === undefined ? {} : { reason }),
    ...(message === undefined ? {} : { message }),
    lastTransitionTime: kept ?? time(),
  }
}

/** `Ready` first, then by type. */
const order = (a: Condition, b: Condition): number =>
  a.type === b.type ? 0 : a.type === "Ready" ? -1 : b.type === "Ready" ? 1 : a.type < b.type ? -1 : 1

/** The v1beta1 conditions after a reconcile: the owned ones and the others kept, in order. */
export const v1beta1Conditions = (i: V1Beta1Input): Array<Condition> => {
  const decided = decide(i)
  const out: Array<Condition> = []
  for (const c of i.previous ?? []) if (!(c.type in decided)) out.push(c)
  for (const [type, d] of Object.entries(decided))
    if (d !== undefined) out.push(write(type, d, findCondition(i.previous, type), i.time))
  return out.sort(order)
}
