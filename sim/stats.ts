/**
 * What a simulation measures: decision counts per row, totals, time series sampled at a fixed
 * virtual interval, and the distribution of the time from creation to `Provisioned`. Everything
 * is a sum, so the statistics of workers that each simulate part of the fleet add up.
 *
 * @module
 */
import type { RowId } from "../core/krtt/index.ts"
import { rowOfCode, UNKNOWN_ROW } from "./trace.ts"

/** Time-to-Provisioned histogram: 10 s buckets up to two hours, then one overflow bucket. */
export const TTP_BUCKET = 10_000
export const TTP_BUCKETS = 721

export interface Totals {
  /** Transitions of the core the simulation ran (top-level calls of each table). */
  transitions: number
  clusterCacheReconciles: number
  clusterReconciles: number
  probes: number
  probeFailures: number
  probeUnauthorized: number
  connects: number
  failedConnects: number
  disconnects: number
  eventsSent: number
  clustersCreated: number
  clustersDeleted: number
  outages: number
  slowPeriods: number
  rotations: number
  scenarioIncidents: number
}

export const newTotals = (): Totals => ({
  transitions: 0,
  clusterCacheReconciles: 0,
  clusterReconciles: 0,
  probes: 0,
  probeFailures: 0,
  probeUnauthorized: 0,
  connects: 0,
  failedConnects: 0,
  disconnects: 0,
  eventsSent: 0,
  clustersCreated: 0,
  clustersDeleted: 0,
  outages: 0,
  slowPeriods: 0,
  rotations: 0,
  scenarioIncidents: 0,
})

/** Per-sample series: gauges sampled at the start of each interval, counters summed over it. */
export interface Series {
  /** Virtual ms between samples. */
  readonly every: number
  /** Clusters that exist. */
  readonly clusters: Array<number>
  /** Clusters whose accessor is connected. */
  readonly connected: Array<number>
  /** Clusters in phase Provisioned. */
  readonly provisioned: Array<number>
  readonly probeFailures: Array<number>
  /** ClusterCache reconciles. */
  readonly reconciles: Array<number>
  readonly clusterReconciles: Array<number>
  readonly disconnects: Array<number>
}

/** Everything a run measured; plain data, so that workers can post it. */
export interface Measurements {
  readonly totals: Totals
  /** Decisions per row code (see `trace.ts`), and per row id for rows without a code. */
  readonly rowCodes: Array<number>
  readonly otherRows: Record<string, number>
  readonly series: Series
  readonly timeToProvisioned: { counts: Array<number>; n: number; sum: number; min: number; max: number }
}

export const newMeasurements = (every: number, samples: number): Measurements => ({
  totals: newTotals(),
  rowCodes: new Array(512).fill(0),
  otherRows: {},
  series: {
    every,
    clusters: new Array(samples).fill(0),
    connected: new Array(samples).fill(0),
    provisioned: new Array(samples).fill(0),
    probeFailures: new Array(samples).fill(0),
    reconciles: new Array(samples).fill(0),
    clusterReconciles: new Array(samples).fill(0),
    disconnects: new Array(samples).fill(0),
  },
  timeToProvisioned: {
    counts: new Array(TTP_BUCKETS).fill(0),
    n: 0,
    sum: 0,
    min: Number.POSITIVE_INFINITY,
    max: 0,
  },
})

/** Records a time to Provisioned, ms. */
export const recordTimeToProvisioned = (m: Measurements, ms: number): void => {
  const h = m.timeToProvisioned
  const i = Math.min(TTP_BUCKETS - 1, Math.floor(ms / TTP_BUCKET))
  h.counts[i] = (h.counts[i] as number) + 1
  h.n++
  h.sum += ms
  if (ms < h.min) h.min = ms
  if (ms > h.max) h.max = ms
}

const addArrays = (into: Array<number>, from: ReadonlyArray<number>): void => {
  for (let i = 0; i < into.length && i < from.length; i++) into[i] = (into[i] as number) + (from[i] as number)
}

/** Adds `from` into `into` (the measurements of another part of the fleet). */
export const mergeMeasurements = (into: Measurements, from: Measurements): void => {
  for (const k of Object.keys(into.totals) as Array<keyof Totals>) into.totals[k] += from.totals[k]
  addArrays(into.rowCodes, from.rowCodes)
  for (const [k, v] of Object.entries(from.otherRows)) into.otherRows[k] = (into.otherRows[k] ?? 0) + v
  const s = into.series
  const f = from.series
  addArrays(s.clusters, f.clusters)
  addArrays(s.connected, f.connected)
  addArrays(s.provisioned, f.provisioned)
  addArrays(s.probeFailures, f.probeFailures)
  addArrays(s.reconciles, f.reconciles)
  addArrays(s.clusterReconciles, f.clusterReconciles)
  addArrays(s.disconnects, f.disconnects)
  const h = into.timeToProvisioned
  const g = from.timeToProvisioned
  addArrays(h.counts, g.counts)
  h.n += g.n
  h.sum += g.sum
  h.min = Math.min(h.min, g.min)
  h.max = Math.max(h.max, g.max)
}

/** Decision counts by row id, sorted by row id. */
export const decisions = (m: Measurements): Record<RowId, number> => {
  const out: Array<[string, number]> = []
  m.rowCodes.forEach((n, code) => {
    if (n === 0 || code === UNKNOWN_ROW) return
    const id = rowOfCode(code)
    if (id !== undefined) out.push([id, n])
  })
  for (const [k, v] of Object.entries(m.otherRows)) out.push([k, v])
  out.sort((a, b) => compareRows(a[0], b[0]))
  return Object.fromEntries(out) as Record<RowId, number>
}

const compareRows = (a: string, b: string): number => {
  const [ta, na] = a.split("#")
  const [tb, nb] = b.split("#")
  if (ta !== tb) return (ta as string) < (tb as string) ? -1 : 1
  return Number(na) - Number(nb)
}

/** The q-quantile (0..1) of the time-to-Provisioned histogram, ms (bucket upper bound). */
export const ttpQuantile = (m: Measurements, q: number): number | undefined => {
  const h = m.timeToProvisioned
  if (h.n === 0) return undefined
  const target = Math.ceil(q * h.n)
  let seen = 0
  for (let i = 0; i < h.counts.length; i++) {
    seen += h.counts[i] as number
    if (seen >= target) return Math.min(h.max, (i + 1) * TTP_BUCKET)
  }
  return h.max
}
