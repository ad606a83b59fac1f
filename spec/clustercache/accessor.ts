/**
 * clusterAccessor Connect/Disconnect (seed 000), transcribed row by row.
 *
 * @module
 */

import type { AccessorInput, AccessorResult, ClusterCacheConfig } from "../../core/clustercache/index.ts"
import type { TableSpec } from "../../core/krtt/index.ts"
import { has, KRTT_COLUMNS, rowsFor } from "../builder.ts"
import { logsDocumented, sameState } from "./equal.ts"

const { doc, derived } = rowsFor<AccessorInput, AccessorResult, ClusterCacheConfig>(KRTT_COLUMNS)

const step = (i: AccessorInput) => i.trigger._tag
const connectStep = (i: AccessorInput) =>
  step(i) === "ConnectionCreated" ||
  step(i) === "CacheStarted" ||
  step(i) === "CacheSynced" ||
  step(i) === "ConnectionFailed"
const unchanged = (i: AccessorInput, r: AccessorResult) => sameState(r.status.accessor, i.observed)
/** No change at all: the accessor as it was, and no connection attempt begun, finished or failed. */
const noChange = (i: AccessorInput, r: AccessorResult) => unchanged(i, r) && r.status.connect === "unchanged"
const up = (r: AccessorResult, value: 0 | 1) =>
  has(r.actions, "SetConnectionUp", (a) => a._tag === "SetConnectionUp" && a.value === value)

export const accessor: TableSpec<AccessorInput, AccessorResult, ClusterCacheConfig> = {
  id: "clustercache.accessor",
  source: "000_4ff6953847f6de6f.txt",
  title: "clusterAccessor Connect/Disconnect",
  columns: KRTT_COLUMNS,
  rows: [
    doc(
      1,
      [
        "`connection=nil`",
        "Connect requested",
        "`Connect()` called, not already connected",
        "Create REST config from kubeconfig secret via `createConnection()`",
        "REST config, clients, cache created",
      ],
      {
        applies: (i) => step(i) === "Connect" && !i.observed.connected,
        holds: (i, r) =>
          has(
            r.actions,
            "CreateConnection",
            (a) => a._tag === "CreateConnection" && a.secretKey === "value",
          ) &&
          unchanged(i, r) &&
          r.status.connect === "pending",
      },
    ),
    doc(
      2,
      [
        "REST config ready",
        "Connect requested",
        "`createConnection()` succeeds",
        "Create cachedClient, uncachedClient, start stoppableCache",
        "Clients and cache ready",
      ],
      {
        applies: (i) => step(i) === "ConnectionCreated" && !i.observed.connected,
        holds: (i, r, c) =>
          has(
            r.actions,
            "CreateClientsAndStartCache",
            (a) =>
              a._tag === "CreateClientsAndStartCache" &&
              a.timeout === c.client.timeout &&
              a.qps === c.client.qps &&
              a.burst === c.client.burst &&
              a.userAgent === c.client.userAgent,
          ) && unchanged(i, r),
      },
    ),
    doc(
      3,
      [
        "Cache starting",
        "Connect requested",
        "Cache.Start() called",
        "Wait for cache to sync (`InitialSyncTimeout`: 5 minutes)",
        "Cache synced, informers ready",
      ],
      {
        applies: (i) => step(i) === "CacheStarted" && !i.observed.connected,
        holds: (i, r, c) =>
          has(
            r.actions,
            "WaitForCacheSync",
            (a) => a._tag === "WaitForCacheSync" && a.timeout === c.initialSyncTimeout,
          ) && unchanged(i, r),
      },
    ),
    doc(
      4,
      [
        "All components ready",
        "Connect requested",
        "First successful connect",
        "Generate `clientCertificatePrivateKey` (if not disabled and not already generated)",
        "`connection` populated, `lastProbeSuccessTime=now`, `consecutiveFailures=0`",
      ],
      {
        applies: (i) => step(i) === "CacheSynced" && !i.observed.connected,
        holds: (i, r) => {
          const a = r.status.accessor
          const shouldGenerate =
            i.desired.clientCertificatePrivateKey === "enabled" && !i.observed.privateKeyGenerated
          return (
            a.connected &&
            a.lastProbeSuccessTime === i.now &&
            a.consecutiveFailures === 0 &&
            a.watches.length === 0 &&
            has(r.actions, "GenerateClientCertificatePrivateKey") === shouldGenerate &&
            up(r, 1) &&
            r.status.connect === "connected"
          )
        },
        reason:
          "A connect also sets `lastProbeTime=now`: the cache sync has just proved the API server reachable, so the next probe is due one interval later (upstream: after a connect the reconciler requeues just under 10 s).",
      },
    ),
    doc(
      5,
      [
        "Connection creation failed",
        "Connect requested",
        "Any error during `createConnection()`",
        "Set `lastConnectionCreationErrorTime=now`, increment `consecutiveFailures`, set `lastProbeTime=now`",
        "`connection=nil`, metrics updated (`connectionUp=0`), error returned",
      ],
      {
        applies: (i) => step(i) === "ConnectionFailed" && !i.observed.connected,
        holds: (i, r) =>
          sameState(r.status.accessor, {
            ...i.observed,
            lastConnectionCreationErrorTime: i.now,
            consecutiveFailures: i.observed.consecutiveFailures + 1,
            lastProbeTime: i.now,
          }) &&
          up(r, 0) &&
          r.status.connect === "failed" &&
          r.status.error !== undefined,
        reason:
          "Any failing step of the attempt counts (REST config, clients and cache, cache sync): all are `Connect()` failures upstream.",
      },
    ),
    doc(
      6,
      [
        "`connection!=nil`",
        "Disconnect requested",
        "`Disconnect()` called",
        "Stop cache via `cache.Stop()` (non-blocking, stops all informers)",
        "`connection=nil`, cache stopped, metrics updated (`connectionUp=0`)",
      ],
      {
        applies: (i) => step(i) === "Disconnect" && i.observed.connected,
        holds: (i, r) =>
          sameState(r.status.accessor, { ...i.observed, connected: false, watches: [] }) &&
          r.status.connect === "unchanged" &&
          has(r.actions, "StopCache") &&
          up(r, 0),
      },
    ),
    doc(
      7,
      [
        "Already connected",
        "Connect requested",
        "`Connect()` called when already connected",
        'Skip with log "Skipping connect, already connected"',
        "No change",
      ],
      {
        applies: (i) => step(i) === "Connect" && i.observed.connected,
        holds: (i, r) =>
          noChange(i, r) &&
          r.actions.length === 1 &&
          logsDocumented(r.actions, "Skipping connect, already connected"),
      },
    ),
    doc(
      8,
      [
        "Already disconnected",
        "Disconnect requested",
        "`Disconnect()` called when not connected",
        'Skip with log "Skipping disconnect, already disconnected"',
        "No change",
      ],
      {
        applies: (i) => step(i) === "Disconnect" && !i.observed.connected,
        holds: (i, r) =>
          noChange(i, r) &&
          r.actions.length === 1 &&
          logsDocumented(r.actions, "Skipping disconnect, already disconnected"),
      },
    ),
    derived(
      9,
      [
        "Already connected",
        "Connect requested",
        "A step of another connection attempt reports back",
        "Discard what that attempt built",
        "No change",
      ],
      {
        applies: (i) => connectStep(i) && i.observed.connected,
        holds: (i, r) =>
          noChange(i, r) && has(r.actions, "DiscardConnectionAttempt") && !has(r.actions, "SetConnectionUp"),
        reason:
          "Gap: rows 2-5 assume no connection exists. A step result that arrives when one does belongs to a superseded attempt; keeping the live connection and discarding the attempt's clients and cache keeps row 7's promise (no change when already connected).",
      },
    ),
  ],
  priority: [],
  resolutions: [
    "Rows are disjoint: each trigger is one step of Connect() or Disconnect(), split by whether a connection exists.",
  ],
}
