/**
 * The actions of the ClusterCache tables: data for the shell (or a simulator) to interpret.
 * Each carries what its interpreter needs and nothing else; none is a callback.
 *
 * @module
 */

/** Metric updates (seed 000, "Metrics"). */
export type MetricAction =
  | { readonly _tag: "SetConnectionUp"; readonly value: 0 | 1 }
  | { readonly _tag: "SetHealthCheck"; readonly value: 0 | 1 }
  | { readonly _tag: "IncHealthChecksTotal"; readonly status: "success" | "error" }

/** A log line the documented row asks for ("Skip with log ..."). */
export interface LogAction {
  readonly _tag: "Log"
  readonly message: string
}

/** Actions of the clusterAccessor Connect/Disconnect table. */
export type AccessorAction =
  | MetricAction
  | LogAction
  /** Read the `<cluster>-kubeconfig` Secret (key `value`) and build a REST config. */
  | { readonly _tag: "CreateConnection"; readonly secretKey: "value" }
  /** Build the cached and uncached clients with the client options, and start the cache. */
  | {
      readonly _tag: "CreateClientsAndStartCache"
      readonly timeout: number
      readonly qps: number
      readonly burst: number
      readonly userAgent: string
    }
  /** Wait for the cache's informers to sync, at most `timeout`. */
  | { readonly _tag: "WaitForCacheSync"; readonly timeout: number }
  | { readonly _tag: "GenerateClientCertificatePrivateKey" }
  /** Stop the cache and all its informers (non-blocking). */
  | { readonly _tag: "StopCache" }
  /** Throw away whatever a connection attempt created (clients, a started cache). */
  | { readonly _tag: "DiscardConnectionAttempt" }

/** Actions of the Health Checking table. */
export type HealthAction =
  | MetricAction
  | LogAction
  | { readonly _tag: "Probe"; readonly path: "/"; readonly timeout: number }

/** Actions of the Watch Management table. */
export type WatchAction = LogAction | { readonly _tag: "StartWatch"; readonly name: string }

/** Action of the Event Trigger Conditions table: one event to one source, with every reason. */
export interface SendEventAction {
  readonly _tag: "SendEvent"
  readonly source: string
  readonly reasons: ReadonlyArray<string>
}

/** Requeue the request after `after` ms. */
export interface RequeueAction {
  readonly _tag: "Requeue"
  readonly after: number
}

/** Actions of the Error Handling table. */
export type ErrorAction =
  | RequeueAction
  | { readonly _tag: "Disconnect" }
  | { readonly _tag: "DeleteAccessor" }
  | { readonly _tag: "CleanupSources" }
  | { readonly _tag: "ReturnError"; readonly error: "ClusterNotConnectedError" }
  | LogAction

/** Triggers the reconciler feeds itself: the next phase of the same reconcile. */
export type ReconcilerContinuation =
  | { readonly _tag: "Reconcile" }
  | {
      readonly _tag: "PhasesComplete"
      readonly didConnect: boolean
      readonly didDisconnect: boolean
      /** Requeue durations collected by the phases; the smallest wins, none means the default. */
      readonly requeueAfter: ReadonlyArray<number>
    }

/** Actions of the ClusterCache Reconciler table. */
export type ReconcilerAction =
  | MetricAction
  | LogAction
  | RequeueAction
  | SendEventAction
  | { readonly _tag: "CreateAccessor" }
  | { readonly _tag: "DeleteAccessor" }
  | { readonly _tag: "CleanupSources" }
  | { readonly _tag: "StopCache" }
  /** Run the accessor's Connect (clusterAccessor table, rows 1-5) and report `ConnectFinished`. */
  | { readonly _tag: "Connect" }
  /** Run `GET /` with the timeout and report `ProbeFinished`. */
  | { readonly _tag: "Probe"; readonly path: "/"; readonly timeout: number }
  /** Feed `trigger` to the reconciler next, in the same reconcile. */
  | { readonly _tag: "Continue"; readonly trigger: ReconcilerContinuation }
