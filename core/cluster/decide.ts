/**
 * The Cluster controller's Reconcile (seed 001, Overview) as one pure function with the trace of
 * the decisions taken: what one reconcile of one Cluster does, as actions, and the resulting
 * status. Every documented table of seed 001 is a view of it (`transitions.ts`), and
 * `reconcile.ts` answers with the row of the table that governs. The trace stays in the core.
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
 * An `ActionFailed` trigger reports that an action of the previous step failed; its answer is
 * `actionFailed.ts`'s.
 *
 * Assumptions: one reconcile per Cluster at a time (the work queue's promise); the observations
 * are those of this reconcile.
 *
 * @module
 */

import { actionFailed } from "./actionFailed.ts"
import type { ClusterAction, ClusterKey } from "./actions.ts"
import { clockAt, type Decided, findCondition, v1beta2Condition } from "./conditions.ts"
import type { ClusterControllerConfig } from "./config.ts"
import { ClusterFinalizer, isDeleting, V1Beta2ConditionTypes } from "./contract.ts"
import { reconcileDelete } from "./delete.ts"
import {
  alwaysReconcile,
  finish,
  newScope,
  patchStatus,
  reconcileControlPlaneInitialized,
  reconcileKubeconfig,
  type Traced,
  waitForTopology,
} from "./phases.ts"
import { newTrace } from "./scope.ts"
import { isPaused, pausedCondition } from "./status.ts"
import type { ClusterInput, ClusterStatus, Condition, ObservedCluster } from "./types.ts"

export type { Traced } from "./phases.ts"

const NONE: ReadonlyArray<ClusterAction> = []
const OWNED_V1BETA2 = new Set<string>(V1Beta2ConditionTypes)

/** One reconcile of one Cluster, with the trace of its decisions. */
export const decide = (input: ClusterInput, config: ClusterControllerConfig): Traced => {
  const { observed, desired: spec, trigger } = input
  if (trigger._tag === "ActionFailed") return actionFailed(input, config, trigger.action, trigger.failure)

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
