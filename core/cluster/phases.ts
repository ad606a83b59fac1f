/**
 * The phases of one Cluster reconcile on its scope (upstream's `scope`): the always-reconcile
 * phases, reconcileKubeconfig, reconcileV1Beta1ControlPlaneInitialized, and the end of the
 * reconcile (updateStatus, the status patch, its events, the error or the requeue).
 *
 * Expected flow: `newScope` → `alwaysReconcile` → reconcileDelete (`delete.ts`) or
 * `reconcileKubeconfig` and `reconcileControlPlaneInitialized` → `finish`. Each phase records
 * its path on the scope's trace, from which every table names its row (`transitions.ts`).
 *
 * @module
 */
import type { ClusterAction, ClusterKey } from "./actions.ts"
import { clockAt, findCondition } from "./conditions.ts"
import type { ClusterControllerConfig } from "./config.ts"
import {
  ClusterFinalizer,
  ClusterNameLabel,
  caSecretName,
  clusterOwnerReference,
  isValidEndpoint,
  KubeconfigDataKey,
  KubeconfigSecretType,
  kubeconfigSecretName,
} from "./contract.ts"
import { classify } from "./descendants.ts"
import { reconcileControlPlane, reconcileInfrastructure } from "./external.ts"
import { newTrace, type Scope, type Trace } from "./scope.ts"
import { updateStatus } from "./status.ts"
import type { ClusterInput, ClusterStatus, ObservedCluster } from "./types.ts"

/** What one reconcile decided, with the trace of its decisions (core only: the tables read it). */
export interface Traced {
  readonly actions: ReadonlyArray<ClusterAction>
  /** The Cluster's status after the actions; `undefined` when there is no Cluster to speak of. */
  readonly status: ClusterStatus | undefined
  readonly trace: Trace
}

/** The scope of the phases of one reconcile of `cluster`. */
export const newScope = (
  input: ClusterInput,
  config: ClusterControllerConfig,
  cluster: ObservedCluster,
  key: ClusterKey,
  deleting: boolean,
): Scope => {
  const trace = newTrace("Phases")
  const st = cluster.status
  trace.deleting = deleting
  trace.phaseBefore = st?.phase
  trace.firstDeletion = deleting && findCondition(st?.conditions, "Deleting")?.status !== "True"
  return {
    input,
    config,
    cluster,
    key,
    spec: input.desired,
    observed: input.observed,
    deleting,
    actions: [],
    errors: [],
    requeueAfter: 0,
    endpoint: input.desired.controlPlaneEndpoint,
    infrastructureProvisioned: st?.initialization?.infrastructureProvisioned === true,
    controlPlaneInitialized: st?.initialization?.controlPlaneInitialized === true,
    failureDomains: undefined,
    descendants: undefined,
    descendantsError: undefined,
    deletingReason: undefined,
    deletingMessage: undefined,
    controlPlaneGone: false,
    infrastructureGone: false,
    removeFinalizer: false,
    failure: {},
    trace,
  }
}

/** reconcileInfrastructure, reconcileControlPlane, getDescendants. */
export const alwaysReconcile = (s: Scope): void => {
  reconcileInfrastructure(s)
  reconcileControlPlane(s)
  const d = s.observed.descendants
  s.descendants = classify(d, s.observed.featureGates)
  if (d._tag === "ListFailed") {
    s.descendantsError = d.error
    s.errors.push(`failed to list descendants of Cluster ${s.key.namespace}/${s.key.name}: ${d.error}`)
  }
}

/**
 * reconcileKubeconfig: without a controlPlaneRef (a control-plane provider manages its own
 * kubeconfig) and with a valid endpoint, create `<cluster>-kubeconfig` when it does not exist.
 */
export const reconcileKubeconfig = (s: Scope): void => {
  const endpoint = s.endpoint
  if (!isValidEndpoint(endpoint) || s.spec.controlPlaneRef !== undefined) return
  const secret = s.observed.kubeconfigSecret
  const name = kubeconfigSecretName(s.key.name)
  switch (secret._tag) {
    // Stryker disable next-line StringLiteral
    case "Found":
      return
    case "GetFailed":
      s.errors.push(`failed to get Secret ${s.key.namespace}/${name}: ${secret.error}`)
      return
    case "NotFound": {
      s.trace.kubeconfigCreated = true
      const { uid } = s.cluster.metadata
      s.actions.push({
        _tag: "CreateKubeconfigSecret",
        cluster: s.key,
        secret: { namespace: s.key.namespace, name },
        caSecret: { namespace: s.key.namespace, name: caSecretName(s.key.name) },
        endpoint: { host: endpoint.host, port: endpoint.port },
        type: KubeconfigSecretType,
        key: KubeconfigDataKey,
        labels: { [ClusterNameLabel]: s.key.name },
        ownerReference: clusterOwnerReference(s.key.name, uid),
      })
      return
    }
  }
}

/**
 * reconcileV1Beta1ControlPlaneInitialized (Normal Reconciliation row 12): without a
 * controlPlaneRef the control plane counts as initialized once an active (not deleting)
 * control-plane Machine has a nodeRef. That sets the v1beta1 `ControlPlaneInitialized`
 * condition only (updateStatus, `v1beta1.ts`): upstream v1.14.2 sets
 * `status.initialization.controlPlaneInitialized` from a control-plane object alone.
 */
export const reconcileControlPlaneInitialized = (s: Scope): void => {
  // Stryker disable next-line OptionalChaining
  const deprecated = s.cluster.status?.deprecated
  const v1 = deprecated?.v1beta1?.conditions
  if (s.spec.controlPlaneRef !== undefined || findCondition(v1, "ControlPlaneInitialized")?.status === "True")
    return
  s.trace.initializedFallback = true
}

/**
 * Upstream's events of a reconcile that wrote the status: a flag set from its provider object
 * (the infrastructure's on the Ready path only; the v1beta1 fallback does not mark it), and a
 * new phase. Upstream records them before its deferred patch, so a reconcile whose action
 * failed records them too.
 */
export const statusEvents = (s: Scope, status: ClusterStatus): Array<ClusterAction> => {
  const t = s.trace
  const event = (reason: string, message: string): ClusterAction => ({
    _tag: "Event",
    cluster: s.key,
    type: "Normal",
    reason,
    message: `Cluster ${s.key.name} ${message}`,
  })
  const out: Array<ClusterAction> = []
  if (t.infrastructure === "Ready" && t.infrastructureMarked)
    out.push(event("InfrastructureReady", "InfrastructureProvisioned is now True"))
  if (t.controlPlaneMarked) out.push(event("ControlPlaneInitialized", "ControlPlaneInitialized is now True"))
  // Stryker disable next-line ConditionalExpression
  if (status.phase !== undefined && status.phase !== t.phaseBefore)
    out.push(event(status.phase, `is ${status.phase}`))
  return out
}

/** updateStatus and the patch, then the end of the reconcile. */
export const finish = (s: Scope): Traced => {
  const status = statusOf(s)
  const { actions, trace } = s
  trace.phaseAfter = status.phase
  actions.push(patchStatus(s.key, status), ...statusEvents(s, status))
  if (s.removeFinalizer) {
    // Stryker disable next-line ArrayDeclaration
    if ((s.cluster.metadata.finalizers ?? []).includes(ClusterFinalizer))
      actions.push({ _tag: "RemoveFinalizer", cluster: s.key, finalizer: ClusterFinalizer })
    actions.push({
      _tag: "Event",
      cluster: s.key,
      type: "Normal",
      reason: "Deleted",
      message: `Cluster ${s.key.name} has been deleted`,
    })
  }
  if (s.errors.length > 0) {
    trace.error = true
    actions.push({ _tag: "ReturnError", error: s.errors.join("; ") })
  } else if (s.requeueAfter > 0) actions.push({ _tag: "Requeue", after: s.requeueAfter })
  return { actions, status, trace }
}

/**
 * The topology controller has not set both refs yet (Normal Reconciliation row 4): nothing is
 * reconciled, and the status is written as upstream's deferred updateStatus writes it when the
 * phases did not run (nothing read or listed), with the phase's event when it changes.
 */
export const waitForTopology = (
  input: ClusterInput,
  config: ClusterControllerConfig,
  cluster: ObservedCluster,
  key: ClusterKey,
): Traced => {
  const s = newScope(input, config, cluster, key, false)
  s.trace.exit = "WaitingForTopology"
  const status = statusOf(s, false)
  s.trace.phaseAfter = status.phase
  return { actions: [patchStatus(key, status), ...statusEvents(s, status)], status, trace: s.trace }
}

/** updateStatus of the scope; `phases` is false when the phases did not run. */
export const statusOf = (s: Scope, phases = true): ClusterStatus =>
  updateStatus({
    cluster: s.cluster,
    spec: s.spec,
    observed: s.observed,
    now: s.input.now,
    time: clockAt(s.input.now),
    config: s.config,
    deleting: s.deleting,
    phases,
    infrastructureProvisioned: s.infrastructureProvisioned,
    controlPlaneInitialized: s.controlPlaneInitialized,
    failureDomains: s.failureDomains,
    descendants: s.descendants,
    deletingReason: s.deletingReason,
    deletingMessage: s.deletingMessage,
    controlPlaneGone: s.controlPlaneGone,
    infrastructureGone: s.infrastructureGone,
    succeeded: s.errors.length === 0,
    endpoint: s.endpoint,
    failure: s.failure,
  })

/** The action that writes `status`. */
export const patchStatus = (cluster: ClusterKey, status: ClusterStatus): ClusterAction => ({
  _tag: "PatchStatus",
  cluster,
  status,
})
