/**
 * The ClusterCache Reconciler (seed 000), transcribed row by row.
 *
 * One reconcile runs as several transitions (see `core/clustercache/reconciler.ts`): the
 * `Trigger / Condition` column is read as the trigger of the step that the row decides, and a
 * row whose action is a call (Connect, the health probe) also governs that call's return.
 *
 * @module
 */

import type {
  ClusterCacheConfig,
  ReconcilerAction,
  ReconcilerInput,
  ReconcilerResult,
} from "../../core/clustercache/index.ts"
import type { TableSpec } from "../../core/krtt/index.ts"
import { count, has, KRTT_COLUMNS, rowsFor } from "../builder.ts"
import { sameState } from "./equal.ts"
import { events } from "./events.ts"

const { doc, derived } = rowsFor<ReconcilerInput, ReconcilerResult, ClusterCacheConfig>(KRTT_COLUMNS)

type I = ReconcilerInput
type R = ReconcilerResult
type C = ClusterCacheConfig

const trig = (i: I) => i.trigger._tag
const acc = (i: I) => i.observed.accessor
const found = (i: I) => i.desired.cluster._tag === "Found"
const provisioned = (i: I) =>
  i.desired.cluster._tag === "Found" && i.desired.cluster.infrastructureProvisioned
const connected = (i: I) => acc(i)?.connected === true
const reconcileOf = (i: I) => trig(i) === "Reconcile" && found(i) && provisioned(i) && acc(i) !== undefined
const recentError = (i: I, c: C) => {
  const t = acc(i)?.lastConnectionCreationErrorTime
  return t !== undefined && i.now - t < c.connectionCreationRetryInterval
}
const probeDue = (i: I, c: C) => {
  const t = acc(i)?.lastProbeTime
  return t === undefined || i.now - t >= c.healthProbe.interval
}
const probe = (i: I) => (i.trigger._tag === "ProbeFinished" ? i.trigger.outcome : undefined)
const failures = (i: I) => acc(i)?.consecutiveFailures ?? 0

/** The continuation to `PhasesComplete` that a step hands over, if any. */
const continuation = (r: R) => {
  const c = r.actions.find((a): a is Extract<ReconcilerAction, { _tag: "Continue" }> => a._tag === "Continue")
  return c?.trigger._tag === "PhasesComplete" ? c.trigger : undefined
}
const completesWith = (
  r: R,
  p: { connect?: boolean; disconnect?: boolean; requeue: (ms: number) => boolean },
) => {
  const c = continuation(r)
  return (
    c !== undefined &&
    !r.status.done &&
    c.didConnect === (p.connect ?? false) &&
    c.didDisconnect === (p.disconnect ?? false) &&
    c.requeueAfter.length === 1 &&
    p.requeue(c.requeueAfter[0] as number)
  )
}
const noIo = (r: R) => !has(r.actions, "Connect") && !has(r.actions, "Probe")
const removed = (r: R) =>
  r.status.accessor === undefined &&
  r.status.done &&
  has(r.actions, "DeleteAccessor") &&
  has(r.actions, "CleanupSources") &&
  !has(r.actions, "Requeue") &&
  noIo(r)
const disconnected = (r: R) =>
  r.status.accessor?.connected === false &&
  (r.status.accessor?.watches.length ?? 1) === 0 &&
  has(r.actions, "StopCache") &&
  has(r.actions, "SetConnectionUp", (a) => a._tag === "SetConnectionUp" && a.value === 0)

export const reconciler: TableSpec<I, R, C> = {
  id: "clustercache.reconciler",
  source: "000_4ff6953847f6de6f.txt",
  title: "ClusterCache Reconciler",
  columns: KRTT_COLUMNS,
  rows: [
    doc(
      1,
      [
        "No clusterAccessor exists",
        "Cluster exists",
        "Cluster object created/updated",
        "`getOrCreateClusterAccessor()` creates entry in map",
        "clusterAccessor created (not connected)",
      ],
      {
        applies: (i) => trig(i) === "Reconcile" && found(i) && acc(i) === undefined,
        holds: (_, r) =>
          has(r.actions, "CreateAccessor") &&
          r.status.accessor?.connected === false &&
          r.status.accessor.consecutiveFailures === 0 &&
          r.status.accessor.watches.length === 0 &&
          has(r.actions, "Continue", (a) => a._tag === "Continue" && a.trigger._tag === "Reconcile") &&
          noIo(r),
        reason:
          "The reconcile goes on with the new accessor (upstream creates it before reading the Cluster).",
      },
    ),
    doc(
      2,
      [
        "Cluster not found",
        "N/A",
        "`client.Get()` returns NotFound",
        "Call `Disconnect()`, `deleteClusterAccessor()`, `cleanupClusterSourcesForCluster()`",
        "clusterAccessor removed",
      ],
      {
        applies: (i) => trig(i) === "Reconcile" && i.desired.cluster._tag === "NotFound",
        holds: (_, r) => removed(r) && !has(r.actions, "StopCache"),
      },
    ),
    doc(
      3,
      [
        "`Status.Initialization.InfrastructureProvisioned=false`",
        "Cluster exists",
        "Reconcile triggered",
        "Skip connection attempt, no requeue (wait for status update)",
        "No change, wait for infra",
      ],
      {
        applies: (i) => trig(i) === "Reconcile" && found(i) && acc(i) !== undefined && !provisioned(i),
        holds: (i, r) =>
          r.actions.length === 0 &&
          r.status.done &&
          r.status.requeueAfter === undefined &&
          sameState(r.status.accessor, acc(i)),
      },
    ),
    doc(
      4,
      [
        "Not connected, no recent error",
        "`Status.Initialization.InfrastructureProvisioned=true`",
        "Reconcile triggered",
        "Call `accessor.Connect()` to create client/cache",
        "Connected=true, `lastProbeSuccessTime=now`, `consecutiveFailures=0`",
      ],
      {
        applies: (i, c) =>
          (reconcileOf(i) && !connected(i) && !recentError(i, c)) ||
          (i.trigger._tag === "ConnectFinished" && i.trigger.ok && connected(i)),
        holds: (i, r, c) =>
          trig(i) === "Reconcile"
            ? count(r.actions, "Connect") === 1 && r.actions.length === 1 && !r.status.done
            : r.status.accessor?.connected === true &&
              r.status.accessor.consecutiveFailures === 0 &&
              completesWith(r, { connect: true, requeue: (ms) => ms > 0 && ms <= c.healthProbe.interval }),
        reason:
          "Governs the Connect() call and its successful return; after it the probe is next due one interval later, so the reconcile requeues for it (upstream: 'requeue just under 10 s').",
      },
    ),
    doc(
      5,
      [
        "Not connected, recent error",
        "`Status.Initialization.InfrastructureProvisioned=true`",
        "Reconcile within `ConnectionCreationRetryInterval` (30s)",
        "Skip connection via `shouldRequeue()`, requeue after remaining interval",
        "No change, requeue with remaining duration",
      ],
      {
        applies: (i, c) => reconcileOf(i) && !connected(i) && recentError(i, c),
        holds: (i, r, c) =>
          noIo(r) &&
          sameState(r.status.accessor, acc(i)) &&
          completesWith(r, {
            requeue: (ms) =>
              ms ===
              (acc(i)?.lastConnectionCreationErrorTime ?? 0) + c.connectionCreationRetryInterval - i.now,
          }),
      },
    ),
    doc(
      6,
      [
        "Connect failed",
        "`InfrastructureProvisioned=true`",
        "`Connect()` returns error",
        "Set `lastConnectionCreationErrorTime=now`, increment consecutiveFailures",
        "connected=false, requeue after 30s",
      ],
      {
        applies: (i) => i.trigger._tag === "ConnectFinished" && !i.trigger.ok && acc(i) !== undefined,
        holds: (_, r, c) =>
          r.status.accessor?.connected === false &&
          completesWith(r, { requeue: (ms) => ms === c.connectionCreationRetryInterval }),
        reason:
          "The error time and the counter are set by the accessor's own table (clusterAccessor Connect/Disconnect, row 5) before Connect() returns.",
      },
    ),
    doc(
      7,
      [
        "Connected",
        "`InfrastructureProvisioned=true`",
        "Health probe interval (10s) elapsed",
        'Execute `HealthCheck()` - GET "/" on apiserver with 5s timeout',
        "`lastProbeTime` updated",
      ],
      {
        applies: (i, c) => reconcileOf(i) && connected(i) && probeDue(i, c),
        holds: (i, r, c) =>
          has(
            r.actions,
            "Probe",
            (a) => a._tag === "Probe" && a.path === "/" && a.timeout === c.healthProbe.timeout,
          ) &&
          r.status.accessor?.lastProbeTime === i.now &&
          !r.status.done,
      },
    ),
    doc(
      8,
      [
        "Connected, probe succeeded",
        "`InfrastructureProvisioned=true`",
        "Health probe returned success",
        "Reset failures, update success time",
        "`consecutiveFailures=0`, `lastProbeSuccessTime=now`, requeue after 10s",
      ],
      {
        applies: (i) => probe(i) === "success" && connected(i),
        holds: (i, r, c) =>
          r.status.accessor?.consecutiveFailures === 0 &&
          r.status.accessor.lastProbeSuccessTime === i.now &&
          r.status.accessor.connected &&
          completesWith(r, { requeue: (ms) => ms === c.healthProbe.interval }),
      },
    ),
    doc(
      9,
      [
        "Connected, probe failed",
        "`InfrastructureProvisioned=true`",
        "Health probe returned non-auth error",
        "Increment consecutiveFailures",
        "`consecutiveFailures++`, requeue for next probe",
      ],
      {
        applies: (i) => probe(i) === "failure" && connected(i),
        holds: (i, r, c) =>
          r.status.accessor?.consecutiveFailures === failures(i) + 1 &&
          r.status.accessor.connected &&
          !has(r.actions, "StopCache") &&
          completesWith(r, { requeue: (ms) => ms === c.healthProbe.interval }),
      },
    ),
    doc(
      10,
      [
        "Connected, `consecutiveFailures >= 5`",
        "`InfrastructureProvisioned=true`",
        "FailureThreshold exceeded",
        "Call `Disconnect()`, stop cache",
        "Connected=false, requeue after 30s (ConnectionCreationRetryInterval)",
      ],
      {
        applies: (i, c) =>
          (probe(i) === "failure" || probe(i) === "unauthorized") &&
          connected(i) &&
          failures(i) + 1 >= c.healthProbe.failureThreshold,
        holds: (_, r, c) =>
          disconnected(r) &&
          completesWith(r, { disconnect: true, requeue: (ms) => ms === c.connectionCreationRetryInterval }),
        reason:
          "The count includes the probe failure at hand: the fifth consecutive failure disconnects. Wins over row 9.",
      },
    ),
    doc(
      11,
      [
        "Connected",
        "`InfrastructureProvisioned=true`",
        "Unauthorized (401) error from probe",
        "Immediate `Disconnect()` (kubeconfig rotated)",
        "Connected=false, immediate requeue (1ms)",
      ],
      {
        applies: (i) => probe(i) === "unauthorized" && connected(i),
        holds: (_, r, c) =>
          disconnected(r) &&
          completesWith(r, { disconnect: true, requeue: (ms) => ms === c.unauthorizedRequeueAfter }),
        reason:
          "Wins over row 10 when the 401 is also the threshold failure (Error Handling, row 4 over row 5).",
      },
    ),
    doc(
      12,
      [
        "Reconcile complete",
        "N/A",
        "After all phases",
        "`sendEventsToClusterSources()` for connect/disconnect events",
        "Events sent to registered sources",
      ],
      {
        applies: (i) => trig(i) === "PhasesComplete" && acc(i) !== undefined,
        holds: (i, r, c) => {
          if (i.trigger._tag !== "PhasesComplete") return false
          const t = i.trigger
          const a = acc(i)
          const expected = t.requeueAfter.length === 0 ? c.defaultRequeueAfter : Math.min(...t.requeueAfter)
          const sourcesOk = i.desired.sources.every((s) => {
            const input = {
              observed: {
                lastProbeSuccessTime: a?.lastProbeSuccessTime,
                lastEventSentTime: a?.lastEventSent[s.name],
              },
              desired: { source: s.name, probeFailureDurations: s.probeFailureDurations },
              trigger: { didConnect: t.didConnect, didDisconnect: t.didDisconnect },
              now: i.now,
            }
            const shouldSend = events.rows.some((row) => !row.derived && row.applies(input, undefined))
            const sent = r.actions.filter((x) => x._tag === "SendEvent" && x.source === s.name).length
            return (
              sent === (shouldSend ? 1 : 0) &&
              (!shouldSend || r.status.accessor?.lastEventSent[s.name] === i.now)
            )
          })
          return (
            sourcesOk &&
            // nothing but the events and the one requeue
            r.actions.every((x) => x._tag === "SendEvent" || x._tag === "Requeue") &&
            count(r.actions, "Requeue") === 1 &&
            r.status.done &&
            r.status.requeueAfter === expected &&
            has(r.actions, "Requeue", (x) => x._tag === "Requeue" && x.after === expected) &&
            noIo(r)
          )
        },
        reason:
          "Ends every reconcile that got past the infrastructure check (upstream returns earlier for rows 2, 3 and 13). Also applies the requeue: the smallest duration a phase asked for, else `defaultRequeueAfter`.",
      },
    ),
    doc(
      13,
      [
        "clusterAccessor exists",
        "Cluster deleted",
        "`DeletionTimestamp != nil` (via NotFound)",
        "Call `Disconnect()`, `deleteClusterAccessor()`, `cleanupClusterSourcesForCluster()`",
        "clusterAccessor removed",
      ],
      {
        applies: (i) =>
          trig(i) === "Reconcile" && i.desired.cluster._tag === "NotFound" && acc(i) !== undefined,
        holds: (i, r) =>
          removed(r) &&
          has(r.actions, "StopCache") === connected(i) &&
          has(r.actions, "SetConnectionUp", (a) => a._tag === "SetConnectionUp" && a.value === 0) ===
            connected(i),
        reason:
          "Overlaps row 2 whenever an accessor exists; row 13 wins because it names the accessor, which must be disconnected. A Cluster that is merely being deleted (deletionTimestamp set, object still there) keeps its connection: controllers need it during deletion; the accessor goes once the Cluster is gone (NotFound).",
      },
    ),
    derived(
      14,
      [
        "Any",
        "Cluster exists",
        "`client.Get()` returns another error",
        "Log error, requeue",
        "No change, requeue after `defaultRequeueAfter` (10s)",
      ],
      {
        applies: (i) => trig(i) === "Reconcile" && i.desired.cluster._tag === "GetFailed",
        holds: (i, r, c) =>
          r.status.done &&
          r.status.requeueAfter === c.defaultRequeueAfter &&
          has(r.actions, "Requeue", (a) => a._tag === "Requeue" && a.after === c.defaultRequeueAfter) &&
          sameState(r.status.accessor, acc(i)) &&
          noIo(r),
        reason: "Gap: the Reconciler table has no row for a failed Get; Error Handling, row 7 documents it.",
      },
    ),
    derived(
      15,
      [
        "Connected",
        "`InfrastructureProvisioned=true`",
        "Health probe interval not yet elapsed",
        "Skip the probe via `shouldRequeue()`, requeue after remaining interval",
        "No change, requeue with remaining duration",
      ],
      {
        applies: (i, c) => reconcileOf(i) && connected(i) && !probeDue(i, c),
        holds: (i, r, c) =>
          noIo(r) &&
          sameState(r.status.accessor, acc(i)) &&
          completesWith(r, {
            requeue: (ms) => ms === (acc(i)?.lastProbeTime ?? 0) + c.healthProbe.interval - i.now,
          }),
        reason:
          "Gap: row 7 covers an elapsed interval only; the Connection Lifecycle diagram probes only once the interval has elapsed.",
      },
    ),
    derived(
      16,
      [
        "Accessor gone, or not in the state the call was made in",
        "Any",
        "A Connect, probe or phase result arrives",
        "Drop the result",
        "No change; requeue after `defaultRequeueAfter` while the accessor exists",
      ],
      {
        applies: (i) =>
          (trig(i) !== "Reconcile" && acc(i) === undefined) ||
          (i.trigger._tag === "ConnectFinished" && i.trigger.ok && acc(i) !== undefined && !connected(i)) ||
          (trig(i) === "ProbeFinished" && acc(i) !== undefined && !connected(i)),
        holds: (i, r, c) =>
          r.status.done &&
          noIo(r) &&
          !has(r.actions, "Continue") &&
          sameState(r.status.accessor, acc(i)) &&
          r.status.requeueAfter === (acc(i) === undefined ? undefined : c.defaultRequeueAfter) &&
          // The drop is logged, and a kept accessor is requeued by the action the shell performs.
          has(r.actions, "Log") &&
          (acc(i) === undefined
            ? !has(r.actions, "Requeue")
            : has(r.actions, "Requeue", (a) => a._tag === "Requeue" && a.after === c.defaultRequeueAfter)),
        reason:
          "Gap: with one reconcile per Cluster at a time this does not happen in the operator, but a transition must be total: a result for a removed accessor is dropped (the Cluster is gone), otherwise it is retried after the default.",
      },
    ),
  ],
  priority: [13, 11, 10],
  resolutions: [
    "Row 13 over row 2: a NotFound Cluster whose accessor exists is disconnected and removed.",
    "Row 11 over row 10 over row 9: a 401 first, then the failure that reaches the threshold, then a plain failure.",
    "Rows 4 and 7 govern both the call they make and its successful return; rows 6 and 8-11 govern the other returns.",
    "Derived rows 14, 15 and 16 close gaps: a failed Get, a probe not yet due, a stale result.",
  ],
}
