/**
 * The invariants a simulation checks while it runs: the timing promises of seed 000 (the
 * ClusterCache) and the deletion order of seed 001 (the Cluster controller), plus the fleet's
 * promises that follow from them. Each is a named check with a count of violations; a violation
 * names the Cluster, the virtual time and the row ids involved.
 *
 * @module
 */
import type { RowId } from "../core/krtt/index.ts"

/** The named checks, with what each one promises. */
export const Checks = {
  "retry-interval":
    "No connection attempt within ConnectionCreationRetryInterval (30 s) of a failed one, and a failed connect requeues after exactly that interval (seed 000, Reconciler rows 5 and 6)",
  "probe-interval":
    "A connected accessor is probed every HealthProbe.Interval (10 s): never sooner after the previous probe, never later than the interval plus the probe timeout (Reconciler rows 7 and 15)",
  "failure-threshold":
    "A connection is closed exactly at the FailureThreshold-th (5th) consecutive failed probe, not before, and the reconcile requeues after the retry interval (Reconciler rows 9 and 10)",
  "unauthorized-disconnect":
    "A 401 from the probe disconnects at once and requeues after 1 ms (Reconciler row 11)",
  "connect-disconnect-events":
    "Every cluster source gets exactly one event per connect and one per disconnect (Reconciler row 12, Event Trigger Conditions)",
  "no-accessor-for-deleted-cluster":
    "A Cluster that is gone has no accessor once the ClusterCache has reconciled it (Reconciler rows 2 and 13)",
  "delete-after-descendants":
    "Nothing of the control plane or the infrastructure is deleted while descendants remain (seed 001, Deletion Reconciliation rows 4-6)",
  "infrastructure-after-control-plane":
    "The infrastructure is never deleted while the control-plane object exists (Deletion Reconciliation rows 6 and 7)",
  "finalizer-last":
    "The finalizer is removed only when descendants, control plane and infrastructure are all gone (Deletion Reconciliation row 8)",
  "provisioned-and-connected":
    "A Cluster whose providers are done and whose API server is healthy is Provisioned and connected within the bound",
  "no-reconcile-storm":
    "A Cluster is not reconciled over and over at one instant, and no reconcile requeues after 0 ms (the tables converge; a loop fails the run instead of hanging it)",
  "ipam-disjoint":
    "With IPAM on: CIDRs recorded for different Clusters (applied-rules annotations and ClusterConfigs) never overlap, on every step, and each lies within a parent CIDR of the config (seed 004)",
  "ipam-restore":
    "With IPAM on: every recorded CIDR is allocated in the controller's state, and the state rebuilt from annotations and ClusterConfigs alone holds exactly the same CIDRs (a restart loses nothing and changes nothing)",
} as const

/** The name of one invariant check (`retry-interval`, `probe-interval`, …). */
export type CheckName = keyof typeof Checks
/** Every invariant check, in the order trace records number them. */
export const CheckNames = Object.keys(Checks) as ReadonlyArray<CheckName>
/** The index of each check, as written in trace records. */
export const checkIndex = (name: CheckName): number => CheckNames.indexOf(name)

/** One broken promise. */
export interface Violation {
  readonly check: CheckName
  /** The Cluster's name. */
  readonly cluster: string
  readonly slot: number
  /** Virtual time, ms since the start of the run. */
  readonly at: number
  /** The rows that decided in the step that broke it (may be empty for checks of the world). */
  readonly rows: ReadonlyArray<RowId>
  readonly message: string
}

/** Counts violations per check and keeps the first few of each with their details. */
export class ViolationLog {
  readonly counts: Record<CheckName, number>
  readonly examples: Array<Violation> = []
  private readonly kept: Record<string, number> = {}
  private readonly keep: number

  constructor(keep: number) {
    this.keep = keep
    this.counts = Object.fromEntries(CheckNames.map((n) => [n, 0])) as Record<CheckName, number>
  }

  add(v: Violation): void {
    this.counts[v.check]++
    const k = this.kept[v.check] ?? 0
    if (k < this.keep) {
      this.kept[v.check] = k + 1
      this.examples.push(v)
    }
  }

  get total(): number {
    let n = 0
    for (const name of CheckNames) n += this.counts[name]
    return n
  }

  /** Adds another log's counts and examples (from another worker). */
  merge(counts: Readonly<Record<string, number>>, examples: ReadonlyArray<Violation>): void {
    for (const name of CheckNames) this.counts[name] += counts[name] ?? 0
    for (const v of examples) {
      const k = this.kept[v.check] ?? 0
      if (k < this.keep) {
        this.kept[v.check] = k + 1
        this.examples.push(v)
      }
    }
  }
}

/** A violation as one line: `retry-interval cluster-00042 at 2h03m10.000s [rows]: message`. */
export const formatViolation = (v: Violation): string =>
  `${v.check} ${v.cluster} at t=${(v.at / 1000).toFixed(3)}s${v.rows.length > 0 ? ` [${v.rows.join(" ")}]` : ""}: ${v.message}`
