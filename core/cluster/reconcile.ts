/**
 * The Cluster controller's Reconcile (seed 001, Overview) as one pure function: what one reconcile
 * of one Cluster does, as actions, the resulting status, and the trace of the decisions taken.
 * Every documented table of seed 001 is a view of this function (see `transitions.ts`).
 *
 * Expected flow:
 * 1. the Cluster is fetched: not found ends the reconcile; a failed get is an error;
 * 2. a Cluster that is not being deleted gets the `cluster.cluster.x-k8s.io` finalizer first,
 *    and the reconcile ends (the patch triggers the next one);
 * 3. EnsurePausedCondition: a paused Cluster (`spec.paused` or the `cluster.x-k8s.io/paused`
 *    annotation) gets `Paused=True` and is left alone; an unpaused one whose `Paused` condition is
 *    not yet False gets it and the reconcile ends;
 * 4. with `spec.topology`, the ClusterClass must be readable, and a Cluster that is not being
 *    deleted waits (returns nil) until the topology controller has set both refs (deletion is
 *    checked first, as upstream does);
 * 5. the always-reconcile phases: reconcileInfrastructure, reconcileControlPlane, getDescendants;
 * 6. then reconcileDelete when deleting, else reconcileKubeconfig and
 *    reconcileV1Beta1ControlPlaneInitialized;
 * 7. updateStatus, and the status patch; an error of any phase ends the reconcile with that
 *    error (phases after it still run, as upstream's `doReconcile` does), else the smallest
 *    requeue asked for.
 *
 * An `ActionFailed` trigger reports that an action of the previous step failed: a failed
 * finalizer patch ends in an error (backoff); any other failed call still gets the status
 * patched (upstream's deferred patch) and ends in an error, except a kubeconfig Secret that
 * cannot be created for want of the `<cluster>-ca` Secret, which requeues after 30 s (upstream's
 * reconcileKubeconfig); a failed delete while the Cluster is deleting also sets `Deleting` to
 * `InternalError`; a failed status patch ends in the error alone.
 *
 * Assumptions: one reconcile per Cluster at a time (the work queue's promise); the observations
 * are those of this reconcile.
 *
 * @module
 */
import type { ClusterAction, ClusterKey } from "./actions.ts"
import { clockAt, type Decided, findCondition, v1beta2Condition } from "./conditions.ts"
import type { ClusterControllerConfig } from "./config.ts"
import {
  ClusterFinalizer,
  ClusterNameLabel,
  caSecretName,
  clusterOwnerReference,
  DeletingReason,
  isDeleting,
  isValidEndpoint,
  KubeconfigDataKey,
  KubeconfigSecretType,
  kubeconfigSecretName,
  V1Beta2ConditionTypes,
} from "./contract.ts"
import { CHECK_LOGS, reconcileDelete } from "./delete.ts"
import { classify } from "./descendants.ts"
import { reconcileControlPlane, reconcileInfrastructure } from "./external.ts"
import { type FailedKind, newTrace, type Scope, type Trace } from "./scope.ts"
import { isPaused, pausedCondition, updateStatus } from "./status.ts"
import type { ClusterInput, ClusterStatus, Condition, ObservedCluster } from "./types.ts"

/** What one reconcile decided. */
export interface Reconciled {
  readonly actions: ReadonlyArray<ClusterAction>
  /** The Cluster's status after the actions; `undefined` when there is no Cluster to speak of. */
  readonly status: ClusterStatus | undefined
  readonly trace: Trace
}

const NONE: ReadonlyArray<ClusterAction> = []
const OWNED_V1BETA2 = new Set<string>(V1Beta2ConditionTypes)

/** One reconcile of one Cluster. */
export const reconcile = (input: ClusterInput, config: ClusterControllerConfig): Reconciled => {
  const { observed, desired: spec, trigger } = input
  if (trigger._tag === "ActionFailed") return actionFailed(input, config, trigger.action, trigger.error)

  const fetched = observed.cluster
  if (fetched._tag === "NotFound") return { actions: NONE, status: undefined, trace: newTrace("NotFound") }
  if (fetched._tag === "GetFailed") {
    const trace = newTrace("GetFailed")
    trace.error = true
    return {
      actions: [{ _tag: "ReturnError", error: `failed to get Cluster: ${fetched.error}` }],
      status: undefined,
      trace,
    }
  }

  const cluster = fetched.object
  const meta = cluster.metadata
  const key: ClusterKey = { namespace: meta.namespace, name: meta.name }
  const deleting = isDeleting(meta)

  // Finalizers can only be added while the deletion timestamp is not set.
  // Stryker disable next-line ArrayDeclaration
  if (!deleting && !(meta.finalizers ?? []).includes(ClusterFinalizer)) {
    return {
      actions: [{ _tag: "AddFinalizer", cluster: key, finalizer: ClusterFinalizer }],
      status: cluster.status,
      trace: newTrace("FinalizerAdded"),
    }
  }

  // EnsurePausedCondition (Normal Reconciliation row 3: "Paused annotation or spec").
  const paused = pausedCondition(spec, cluster)
  const current = findCondition(cluster.status?.conditions, "Paused")
  if (isPaused(spec, cluster)) {
    const upToDate =
      current?.status === "True" &&
      current.observedGeneration === meta.generation &&
      current.message === paused.message
    if (upToDate) return { actions: NONE, status: cluster.status, trace: newTrace("Paused") }
    const status = withCondition(cluster, paused, input.now)
    return { actions: [patchStatus(key, status)], status, trace: newTrace("Paused") }
  }
  if (current?.status !== "False") {
    const status = withCondition(cluster, paused, input.now)
    return { actions: [patchStatus(key, status)], status, trace: newTrace("PausedConditionChanged") }
  }

  if (spec.topology !== undefined) {
    const cc = observed.clusterClass
    const name = spec.topology.classRef.name
    if (cc._tag !== "Found") {
      const trace = newTrace("ClusterClassFailed")
      trace.error = true
      const error =
        cc._tag === "NotFound"
          ? `ClusterClass ${name} not found`
          : `failed to get ClusterClass ${name}: ${cc.error}`
      return { actions: [{ _tag: "ReturnError", error }], status: cluster.status, trace }
    }
    // The topology controller sets both refs; until then there is nothing to reconcile. Upstream
    // checks deletion first: a deleting Cluster whose refs were never generated is deleted.
    if (!deleting && (spec.infrastructureRef === undefined || spec.controlPlaneRef === undefined))
      return waitForTopology(input, config, cluster, key)
  }

  const s = newScope(input, config, cluster, key, deleting)
  alwaysReconcile(s)
  if (deleting) reconcileDelete(s)
  else {
    reconcileKubeconfig(s)
    reconcileControlPlaneInitialized(s)
  }
  return finish(s)
}

const newScope = (
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
const alwaysReconcile = (s: Scope): void => {
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
const reconcileKubeconfig = (s: Scope): void => {
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
const reconcileControlPlaneInitialized = (s: Scope): void => {
  const v1 = s.cluster.status?.deprecated?.v1beta1?.conditions
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
const statusEvents = (s: Scope, status: ClusterStatus): Array<ClusterAction> => {
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
const finish = (s: Scope): Reconciled => {
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
const waitForTopology = (
  input: ClusterInput,
  config: ClusterControllerConfig,
  cluster: ObservedCluster,
  key: ClusterKey,
): Reconciled => {
  const s = newScope(input, config, cluster, key, false)
  s.trace.exit = "WaitingForTopology"
  const status = statusOf(s, false)
  s.trace.phaseAfter = status.phase
  return { actions: [patchStatus(key, status), ...statusEvents(s, status)], status, trace: s.trace }
}

const statusOf = (s: Scope, phases = true): ClusterStatus =>
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

/**
 * The answer to an `ActionFailed` trigger (Error Handling, rows 1, 6 and 8, and
 * their derived rows): the error, and the status of this reconcile patched as upstream's deferred
 * updateStatus does, except when the failed action was the finalizer patch (upstream returns
 * before its deferred patch) or the status patch itself.
 */
const actionFailed = (
  input: ClusterInput,
  config: ClusterControllerConfig,
  action: ClusterAction,
  error: string,
): Reconciled => {
  const failed: FailedKind =
    action._tag === "AddFinalizer"
      ? "AddFinalizer"
      : action._tag === "DeleteObject"
        ? action.role === "descendant"
          ? "DeleteDescendant"
          : "DeleteExternal"
        : action._tag === "CreateKubeconfigSecret" &&
            input.trigger._tag === "ActionFailed" &&
            input.trigger.notFound === true
          ? "MissingCA"
          : "Other"
  // Stryker disable next-line StringLiteral
  const trace = newTrace("ActionFailed")
  trace.failed = failed
  trace.error = failed !== "MissingCA"
  const fetched = input.observed.cluster
  const cluster = fetched._tag === "Found" ? fetched.object : undefined
  const deleting = cluster !== undefined && isDeleting(cluster.metadata)
  trace.deleting = deleting
  const message =
    action._tag === "DeleteObject"
      ? `failed to delete ${action.ref.kind} ${action.ref.name}: ${error}`
      : `${action._tag} failed: ${error}`
  const returnError: ClusterAction = { _tag: "ReturnError", error: message }
  if (cluster === undefined || failed === "AddFinalizer" || action._tag === "PatchStatus")
    return { actions: [returnError], status: cluster?.status, trace }

  // The phases' decisions again, for the status only: their actions were already carried out
  // up to the one that failed.
  const key: ClusterKey = { namespace: cluster.metadata.namespace, name: cluster.metadata.name }
  const s = newScope(input, config, cluster, key, deleting)
  alwaysReconcile(s)
  if (deleting) {
    reconcileDelete(s)
    // a failed delete (DeleteDescendant or DeleteExternal)
    if (action._tag === "DeleteObject") {
      s.deletingReason = DeletingReason.InternalError
      s.deletingMessage = CHECK_LOGS
    }
  } else {
    reconcileKubeconfig(s)
    reconcileControlPlaneInitialized(s)
  }
  const ending: ClusterAction =
    failed === "MissingCA" && s.errors.length === 0
      ? { _tag: "Requeue", after: config.missingCaRequeueAfter }
      : failed === "MissingCA"
        ? { _tag: "ReturnError", error: s.errors.join("; ") }
        : returnError
  if (failed !== "MissingCA") s.errors.push(message)
  if (ending._tag === "ReturnError") trace.error = true
  const status = statusOf(s)
  return { actions: [patchStatus(key, status), ...statusEvents(s, status), ending], status, trace }
}

const patchStatus = (cluster: ClusterKey, status: ClusterStatus): ClusterAction => ({
  _tag: "PatchStatus",
  cluster,
  status,
})

/** The Cluster's status with one v1beta2 condition set. */
const withCondition = (cluster: ObservedCluster, d: Decided, now: number): ClusterStatus => {
  const st = cluster.status
  const previous = st?.conditions
  const c = v1beta2Condition("Paused", d, previous, cluster.metadata.generation, clockAt(now))
  const conditions: Array<Condition> = []
  let replaced = false
  for (const old of previous ?? []) {
    if (old.type === "Paused") {
      conditions.push(c)
      replaced = true
    } else if (OWNED_V1BETA2.has(old.type) && old.message === undefined) {
      // Written before upstream's CRD required a message (an older krtt on its own CRD).
      conditions.push({ ...old, message: "" })
    } else conditions.push(old)
  }
  if (!replaced) conditions.push(c)
  return { ...st, conditions }
}
