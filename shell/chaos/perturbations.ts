/**
 * The vocabulary of a chaos run: the perturbation kinds, the controllers a run can start, the
 * transient error kinds, the campaign's numbers (`ChaosDefaults`) and the count of perturbations
 * that fired. At most one perturbation per run, on the management server's client and on the
 * workload clients a suite asks for (`faultyClient.ts` applies them, `runPlan.ts` schedules them):
 *
 * - `crash`: the operator dies right after its `at`-th successful write (nothing after it runs)
 *   and a new one starts with nothing but what it reads from the API server;
 * - `drop`: during step `at`, every watch event the operator would receive is dropped; at the
 *   window's end its watches get 410 Expired (what a real server does to a watcher that fell
 *   behind), so the intermediate states are never observed, only the latest after the relist;
 * - `stale`: after step `at`, the operator restarts and its lists are served from a lagging view
 *   (the state at the start of step `at`), its watches resuming from that old resourceVersion;
 * - `transient`: from the operator's `at`-th request, a burst of errors of one kind (Timeout,
 *   ServerTimeout, 429, 500, Conflict, AlreadyExists, connection reset) through the fake's
 *   `Faults` matcher; Conflicts go to updates and patches only, as a real server answers them,
 *   one more in a row than a controller retries a write in place;
 * - `reorder`: a third-party writer (`thirdParty.ts`) edits the object about to be written right
 *   before the operator's `at`-th write (so the operator's write lands on a newer object than the
 *   one it computed from);
 * - `slow`: during step `at`, every request of the operator is answered `slowMillis` later (a
 *   loaded API server), so watch events arrive while reconciles are still running.
 *
 * @module
 */

export const PerturbationKinds = ["crash", "drop", "stale", "transient", "reorder", "slow"] as const
export type PerturbationKind = (typeof PerturbationKinds)[number]
export type Perturbation =
  | { readonly kind: "none" }
  | { readonly kind: PerturbationKind; readonly at: number }

/** The controllers a run can start (each selects the suite that runs it: `suites.ts`). */
export const ControllerNames = ["clustercache", "cluster", "ipam", "multicluster", "propagate"] as const
export type ControllerName = (typeof ControllerNames)[number]

/** The kinds of transient errors, in the order `transientKind` picks them. */
export const TransientKinds = [
  "Timeout",
  "ServerTimeout",
  "TooManyRequests",
  "InternalError",
  "Conflict",
  "AlreadyExists",
  "ConnectionReset",
] as const
export type TransientKind = (typeof TransientKinds)[number]

/** The campaign's numbers, in one place. */
export const ChaosDefaults = {
  /** Virtual milliseconds per tick of the driver (invariants are checked on every write anyway). */
  tickMillis: 1_000,
  /**
   * After the faults stop: ticks within which the reference final state must be reached (ESR).
   * Half the Cluster controller's sync period, so that a resync cannot make up for lost work.
   */
  convergeTicks: 300,
  /** The fault-free run has settled when its state did not change for this many ticks. */
  quietTicks: 10,
  /** Then: ticks during which it must be kept. */
  keepTicks: 60,
  /** A run whose operator writes more than this many times is stopped as a write storm. */
  writeStorm: 300,
  /**
   * A request reconciled more often than `busyReconciles` times within `busyWindowTicks` is in a
   * busy loop: work repeated without backing off. A failing request's rate-limited retries double
   * from 5 ms, so about eleven fit in 10 s; the real controllers stay at or under 14 in every
   * run of the full campaign.
   */
  busyReconciles: 20,
  busyWindowTicks: 10,
  /**
   * Real milliseconds the virtual clock waits for the work a tick wakes to settle before it moves
   * on (TestClock's `warningDelay`, 1 s by default, which a loaded machine can reach).
   */
  busyWakeMillis: 10_000,
  /** An object larger than this (bytes of JSON) stops the run (kube-apiserver refuses ~3 MB requests). */
  maxObjectBytes: 262_144,
  /** Transient errors per burst. */
  transientBurst: 3,
  /**
   * Conflicts per burst: one more than the in-place retries of a write that conflicts (the
   * Cluster controller's `CONFLICT_RETRIES`, 3), so that the write gives up once.
   */
  conflictBurst: 4,
  /** Ticks of a drop window before the watches are expired. */
  dropTicks: 5,
  /** How much later a request is answered during a `slow` step (virtual milliseconds). */
  slowMillis: 250,
  /** The sync period of the Cluster controller (upstream's --sync-period default, 10 min). */
  syncPeriod: 600_000,
  /** Points per scenario and perturbation kind of the fast campaign (`npm test`); a suite may take fewer. */
  fastPoints: { crash: 4, drop: 1, stale: 1, transient: 3, reorder: 4, slow: 1 },
  /** The fast points of the later suites (IPAM, multi-cluster, propagate), to keep `npm test` fast. */
  fastPointsLater: { crash: 2, drop: 1, stale: 1, transient: 2, reorder: 2, slow: 1 },
} as const

export type FastPoints = Readonly<Record<PerturbationKind, number>>

/** How often each perturbation fired in a run (or a campaign). */
export interface Fired {
  crash: number
  drop: number
  stale: number
  transient: number
  reorder: number
  /** Requests answered late. */
  slow: number
}
export const noneFired = (): Fired => ({ crash: 0, drop: 0, stale: 0, transient: 0, reorder: 0, slow: 0 })
