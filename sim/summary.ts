/**
 * The summary of a run: what `krtt simulate --json` prints, and what a test or an embedding
 * program asserts on.
 *
 * @module
 */
import type { RowId } from "../core/krtt/index.ts"
import type { SimConfig } from "./config.ts"
import { type CheckName, formatViolation, type Violation, type ViolationLog } from "./invariants.ts"
import { decisions, type Measurements, type Totals, ttpQuantile } from "./stats.ts"

/** The figures of one run, as `krtt simulate --json` prints them. */
export interface SimSummary {
  readonly clusters: number
  readonly hours: number
  readonly seed: number
  readonly workers: number
  readonly simulatedSeconds: number
  readonly wallSeconds: number
  /** Core transitions the simulation ran (top-level calls of the tables). */
  readonly transitions: number
  readonly transitionsPerSecond: number
  readonly reconciles: { readonly clusterCache: number; readonly cluster: number }
  readonly totals: Totals
  /** Decisions per documented row. */
  readonly decisions: Record<RowId, number>
  /** Violations per named check (zero included). */
  readonly invariants: Record<CheckName, number>
  readonly violations: number
  /** The first violations of each check, as text. */
  readonly examples: ReadonlyArray<string>
  /** Seconds from a Cluster's creation to phase Provisioned. */
  readonly timeToProvisioned: {
    readonly count: number
    readonly p50: number | null
    readonly p90: number | null
    readonly p99: number | null
    readonly max: number | null
  }
  /** SHA-256 of the trace, hex. */
  readonly traceHash: string
  readonly traceRecords: number
  readonly peakRssBytes: number
}

export interface SummaryInput {
  readonly config: SimConfig
  readonly workers: number
  readonly measurements: Measurements
  readonly violations: ViolationLog
  readonly traceHash: string
  readonly traceRecords: number
  readonly wallSeconds: number
  readonly peakRssBytes: number
}

const seconds = (ms: number | undefined): number | null => (ms === undefined ? null : Math.round(ms) / 1000)

export const summarize = (r: SummaryInput): SimSummary => {
  const m = r.measurements
  const t = m.totals
  const h = m.timeToProvisioned
  return {
    clusters: r.config.clusters,
    hours: r.config.hours,
    seed: r.config.seed,
    workers: r.workers,
    simulatedSeconds: r.config.hours * 3600,
    wallSeconds: Math.round(r.wallSeconds * 1000) / 1000,
    transitions: t.transitions,
    transitionsPerSecond: r.wallSeconds > 0 ? Math.round(t.transitions / r.wallSeconds) : 0,
    reconciles: { clusterCache: t.clusterCacheReconciles, cluster: t.clusterReconciles },
    totals: t,
    decisions: decisions(m),
    invariants: { ...r.violations.counts },
    violations: r.violations.total,
    examples: sortViolations(r.violations.examples).map(formatViolation),
    timeToProvisioned: {
      count: h.n,
      p50: seconds(ttpQuantile(m, 0.5)),
      p90: seconds(ttpQuantile(m, 0.9)),
      p99: seconds(ttpQuantile(m, 0.99)),
      max: h.n === 0 ? null : seconds(h.max),
    },
    traceHash: r.traceHash,
    traceRecords: r.traceRecords,
    peakRssBytes: r.peakRssBytes,
  }
}

/** Violations in the order they happened: time, then slot (the order of a single-threaded run). */
export const sortViolations = (vs: ReadonlyArray<Violation>): Array<Violation> =>
  [...vs].sort((a, b) => a.at - b.at || a.slot - b.slot)

/** The summary as a few lines of text. */
export const renderSummary = (s: SimSummary): string => {
  const lines = [
    `${s.clusters} clusters, ${s.hours} h simulated in ${s.wallSeconds} s (${s.workers} worker${s.workers === 1 ? "" : "s"}), seed ${s.seed}`,
    `${s.transitions.toLocaleString("en-US")} transitions (${s.transitionsPerSecond.toLocaleString("en-US")}/s): ${s.reconciles.clusterCache.toLocaleString("en-US")} ClusterCache and ${s.reconciles.cluster.toLocaleString("en-US")} Cluster reconciles`,
    `clusters created ${s.totals.clustersCreated}, deleted ${s.totals.clustersDeleted}; faults: ${s.totals.outages} outages, ${s.totals.slowPeriods} slow periods, ${s.totals.rotations} credential rotations`,
    `connects ${s.totals.connects} (failed attempts ${s.totals.failedConnects}), disconnects ${s.totals.disconnects}, probe failures ${s.totals.probeFailures} (401: ${s.totals.probeUnauthorized})`,
    `time to Provisioned: p50 ${fmt(s.timeToProvisioned.p50)}, p90 ${fmt(s.timeToProvisioned.p90)}, max ${fmt(s.timeToProvisioned.max)} (${s.timeToProvisioned.count} clusters)`,
    `invariants: ${s.violations === 0 ? "all held" : `${s.violations} violations`}`,
  ]
  for (const [name, n] of Object.entries(s.invariants))
    lines.push(`  ${n === 0 ? "ok  " : "FAIL"} ${name}${n === 0 ? "" : `: ${n}`}`)
  for (const e of s.examples.slice(0, 10)) lines.push(`  ${e}`)
  lines.push(`trace: ${s.traceRecords.toLocaleString("en-US")} records, sha256 ${s.traceHash}`)
  return lines.join("\n")
}

const fmt = (s: number | null): string => (s === null ? "-" : `${s} s`)
