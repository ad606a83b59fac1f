/**
 * clusterAccessor Connect/Disconnect (seed 000) as a pure transition.
 *
 * Expected flow of a connect: `Connect` → row 1 asks for the REST config from the kubeconfig
 * Secret; `ConnectionCreated` → row 2 asks for clients and a started cache; `CacheStarted` →
 * row 3 asks to wait for the sync (initial sync timeout); `CacheSynced` → row 4 populates the
 * connection. Any failure on the way reports `ConnectionFailed` → row 5. The shell performs
 * each step without holding the accessor's lock and applies the resulting state under it.
 *
 * Guarantees: a successful connect starts with no watches (they must be added again), zero
 * failures and `lastProbeSuccessTime = now`; a failed one records the error time that the
 * reconciler's retry interval is measured from.
 *
 * @module
 */
import { type RowId, rowId, type TransitionInput, type TransitionResult } from "../krtt/index.ts"
import type { AccessorAction } from "./actions.ts"
import { type ClusterCacheConfig, ClusterCacheDefaults } from "./config.ts"
import { type AccessorState, accessorState } from "./state.ts"

export const ACCESSOR = "clustercache.accessor"

/** Where a connection attempt failed. */
export type ConnectStep = "createConnection" | "createClients" | "cacheSync"

export type AccessorTrigger =
  | { readonly _tag: "Connect" }
  | { readonly _tag: "ConnectionCreated" }
  | { readonly _tag: "CacheStarted" }
  | { readonly _tag: "CacheSynced" }
  | { readonly _tag: "ConnectionFailed"; readonly step: ConnectStep; readonly error: string }
  | { readonly _tag: "Disconnect" }

export interface AccessorDesired {
  /** Whether the client certificate private key is to be generated on first connect. */
  readonly clientCertificatePrivateKey: "enabled" | "disabled"
}

export interface AccessorStatus {
  readonly accessor: AccessorState
  /** Where the connect stands after this step. */
  readonly connect: "pending" | "connected" | "failed" | "unchanged"
  readonly error?: string | undefined
}

export type AccessorInput = TransitionInput<AccessorState, AccessorDesired, AccessorTrigger>
export type AccessorResult = TransitionResult<AccessorAction, AccessorStatus>

const r = (n: number): RowId => rowId(ACCESSOR, n)
const ROW = {
  create: r(1),
  clients: r(2),
  sync: r(3),
  ready: r(4),
  failed: r(5),
  disconnect: r(6),
  alreadyConnected: r(7),
  alreadyDisconnected: r(8),
  stale: r(9),
}

const SKIP_CONNECT: ReadonlyArray<AccessorAction> = [
  { _tag: "Log", message: "Skipping connect, already connected" },
]
const SKIP_DISCONNECT: ReadonlyArray<AccessorAction> = [
  { _tag: "Log", message: "Skipping disconnect, already disconnected" },
]
const CREATE: ReadonlyArray<AccessorAction> = [{ _tag: "CreateConnection", secretKey: "value" }]
const DISCONNECT: ReadonlyArray<AccessorAction> = [
  { _tag: "StopCache" },
  { _tag: "SetConnectionUp", value: 0 },
]
const FAILED: ReadonlyArray<AccessorAction> = [
  { _tag: "DiscardConnectionAttempt" },
  { _tag: "SetConnectionUp", value: 0 },
]
const STALE: ReadonlyArray<AccessorAction> = [{ _tag: "DiscardConnectionAttempt" }]
const READY: ReadonlyArray<AccessorAction> = [{ _tag: "SetConnectionUp", value: 1 }]
const READY_WITH_KEY: ReadonlyArray<AccessorAction> = [
  { _tag: "GenerateClientCertificatePrivateKey" },
  { _tag: "SetConnectionUp", value: 1 },
]

/** clusterAccessor Connect/Disconnect as a transition. */
export const accessorTransition = (
  input: AccessorInput,
  config: ClusterCacheConfig = ClusterCacheDefaults,
): AccessorResult => {
  const { observed: a, trigger } = input
  switch (trigger._tag) {
    case "Connect":
      return connect(a)
    case "Disconnect":
      return disconnect(a)
  }
  // A step of a connection attempt reports back. If another attempt already connected, this one
  // is stale: throw away what it built and keep the connection (derived row 9).
  if (a.connected) return { actions: STALE, status: { accessor: a, connect: "unchanged" }, row: ROW.stale }
  return stepReported(input, trigger, config)
}

/** `Connect()` called: start a connection attempt (row 1), or skip it when connected (row 7). */
const connect = (a: AccessorState): AccessorResult =>
  a.connected
    ? { actions: SKIP_CONNECT, status: { accessor: a, connect: "unchanged" }, row: ROW.alreadyConnected }
    : { actions: CREATE, status: { accessor: a, connect: "pending" }, row: ROW.create }

/**
 * `Disconnect()` called: stop the cache and forget the watches (row 6), or skip it when not
 * connected (row 8).
 */
const disconnect = (a: AccessorState): AccessorResult =>
  a.connected
    ? {
        actions: DISCONNECT,
        status: {
          accessor: accessorState(
            false,
            a.lastConnectionCreationErrorTime,
            a.lastProbeTime,
            a.lastProbeSuccessTime,
            a.consecutiveFailures,
            [],
            a.lastEventSent,
            a.privateKeyGenerated,
          ),
          connect: "unchanged",
        },
        row: ROW.disconnect,
      }
    : {
        actions: SKIP_DISCONNECT,
        status: { accessor: a, connect: "unchanged" },
        row: ROW.alreadyDisconnected,
      }

/**
 * A step of a connection attempt of a disconnected accessor reports back: the next step (rows 2
 * and 3), the populated connection (row 4) or the failed attempt (row 5).
 */
const stepReported = (
  input: AccessorInput,
  trigger: Exclude<AccessorTrigger, { readonly _tag: "Connect" | "Disconnect" }>,
  config: ClusterCacheConfig,
): AccessorResult => {
  const { observed: a, desired, now } = input
  switch (trigger._tag) {
    case "ConnectionCreated": {
      const c = config.client
      return {
        actions: [
          {
            _tag: "CreateClientsAndStartCache",
            timeout: c.timeout,
            qps: c.qps,
            burst: c.burst,
            userAgent: c.userAgent,
          },
        ],
        status: { accessor: a, connect: "pending" },
        row: ROW.clients,
      }
    }
    case "CacheStarted":
      return {
        actions: [{ _tag: "WaitForCacheSync", timeout: config.initialSyncTimeout }],
        status: { accessor: a, connect: "pending" },
        row: ROW.sync,
      }
    case "CacheSynced": {
      const generate = desired.clientCertificatePrivateKey === "enabled" && !a.privateKeyGenerated
      return {
        actions: generate ? READY_WITH_KEY : READY,
        status: {
          accessor: accessorState(
            true,
            a.lastConnectionCreationErrorTime,
            now,
            now,
            0,
            [],
            a.lastEventSent,
            a.privateKeyGenerated || generate,
          ),
          connect: "connected",
        },
        row: ROW.ready,
      }
    }
    case "ConnectionFailed":
      return {
        actions: FAILED,
        status: {
          accessor: accessorState(
            a.connected,
            now,
            now,
            a.lastProbeSuccessTime,
            a.consecutiveFailures + 1,
            a.watches,
            a.lastEventSent,
            a.privateKeyGenerated,
          ),
          connect: "failed",
          error: trigger.error,
        },
        row: ROW.failed,
      }
  }
}
