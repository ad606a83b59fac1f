/**
 * The figures of `bench/multicluster-compare.ts`: one run's result, the summary of a cluster
 * count (min / median / max per side and the ratio of the medians, krtt over the peer) and the
 * Markdown table it prints (the one docs/benchmarks.md holds). Pure.
 *
 * @module
 */
import type { Side } from "./multicluster-compare-args.ts"
import { total } from "./multicluster-compare-audit.ts"

/** What one run of one side measured. */
export interface RunResult {
  readonly side: Side
  readonly engagedS: number
  readonly reconciledS: number
  /** CPU seconds of the process from its start to all reconciled once. */
  readonly cpuToReconciledS: number
  readonly cpuPerMinuteAfterS: number
  readonly rssAtReconciledKiB: number
  readonly rssEndKiB: number
  readonly peakRssKiB: number
  readonly hubStarting: ReadonlyMap<string, number>
  readonly workloadStarting: ReadonlyMap<string, number>
  readonly hubAfter: ReadonlyMap<string, number>
  readonly workloadAfter: ReadonlyMap<string, number>
  /** Distinct cluster users that made requests while starting (each cluster has its own). */
  readonly clustersSeen: number
}

export interface Stats {
  readonly min: number
  readonly median: number
  readonly max: number
}

/** min / median / max. */
export const stats = (xs: ReadonlyArray<number>): Stats => {
  const s = [...xs].filter((x) => !Number.isNaN(x)).sort((a, b) => a - b)
  const n = s.length
  const median =
    n === 0
      ? Number.NaN
      : n % 2 === 1
        ? (s[(n - 1) / 2] as number)
        : ((s[n / 2 - 1] as number) + (s[n / 2] as number)) / 2
  return { min: s[0] ?? Number.NaN, median, max: s.at(-1) ?? Number.NaN }
}

interface Measure {
  readonly name: string
  readonly digits: number
  readonly of: (
    r: RunResult,
    ctx: { readonly n: number; readonly steady: number; readonly idleKiB: number },
  ) => number
}

const MEASURES: ReadonlyArray<Measure> = [
  { name: "all engaged (s)", digits: 2, of: (r) => r.engagedS },
  { name: "all reconciled once (s)", digits: 2, of: (r) => r.reconciledS },
  { name: "hub requests per cluster, starting", digits: 3, of: (r, c) => total(r.hubStarting) / c.n },
  {
    name: "workload requests per cluster, starting",
    digits: 2,
    of: (r, c) => total(r.workloadStarting) / c.n,
  },
  {
    name: "hub requests per cluster and minute, after",
    digits: 3,
    of: (r, c) => (total(r.hubAfter) / c.n / c.steady) * 60,
  },
  {
    name: "workload requests per cluster and minute, after",
    digits: 2,
    of: (r, c) => (total(r.workloadAfter) / c.n / c.steady) * 60,
  },
  { name: "RSS per engaged cluster (KiB)", digits: 0, of: (r, c) => (r.rssEndKiB - c.idleKiB) / c.n },
  { name: "RSS at the end (MiB)", digits: 0, of: (r) => r.rssEndKiB / 1024 },
  { name: "peak RSS (MiB)", digits: 0, of: (r) => r.peakRssKiB / 1024 },
  { name: "CPU until all reconciled (s)", digits: 2, of: (r) => r.cpuToReconciledS },
  { name: "CPU per minute after (s)", digits: 2, of: (r) => r.cpuPerMinuteAfterS },
]

/** One row: a measure, both sides, the ratio of the medians. */
export interface Row {
  readonly measure: string
  readonly digits: number
  readonly krtt: Stats | undefined
  readonly peer: Stats | undefined
  /** krtt's median over the peer's; undefined when a side is missing or the peer's is 0. */
  readonly ratio: number | undefined
}

/** The summary of one cluster count. */
export interface SizeSummary {
  readonly clusters: number
  readonly workloads: number
  readonly steadyS: number
  readonly runs: number
  readonly idleRssKiB: Partial<Record<Side, number>>
  readonly load: { readonly before: ReadonlyArray<number>; readonly after: ReadonlyArray<number> }
  readonly clustersSeen: Partial<Record<Side, number>>
  readonly rows: ReadonlyArray<Row>
  /** Requests of each side's first run: per cluster while starting, per cluster and minute after. */
  readonly requests: Partial<
    Record<Side, { readonly starting: Record<string, number>; readonly after: Record<string, number> }>
  >
}

const perKey = (m: ReadonlyMap<string, number>, per: number) =>
  Object.fromEntries([...m].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Number((v / per).toFixed(3))]))

/** Hub requests' keys marked as such, beside the workload ones. */
const prefixed = (m: ReadonlyMap<string, number>) => new Map([...m].map(([k, v]) => [`hub: ${k}`, v]))

export const summarize = (input: {
  readonly n: number
  readonly workloads: number
  readonly steady: number
  readonly runs: ReadonlyArray<RunResult>
  readonly idle: Partial<Record<Side, number>>
  readonly load: SizeSummary["load"]
}): SizeSummary => {
  const { n, steady, runs, idle } = input
  const of = (side: Side, m: Measure): Stats | undefined => {
    const rs = runs.filter((r) => r.side === side)
    if (rs.length === 0) return undefined
    return stats(rs.map((r) => m.of(r, { n, steady, idleKiB: idle[side] ?? Number.NaN })))
  }
  const rows = MEASURES.map((m): Row => {
    const krtt = of("krtt", m)
    const peer = of("peer", m)
    const ratio =
      krtt === undefined || peer === undefined || peer.median === 0 ? undefined : krtt.median / peer.median
    return { measure: m.name, digits: m.digits, krtt, peer, ratio }
  })
  const requests: SizeSummary["requests"] = {}
  const clustersSeen: SizeSummary["clustersSeen"] = {}
  for (const side of ["krtt", "peer"] as const) {
    const rs = runs.filter((r) => r.side === side)
    const first = rs[0]
    if (first === undefined) continue
    clustersSeen[side] = Math.min(...rs.map((r) => r.clustersSeen))
    requests[side] = {
      starting: { ...perKey(prefixed(first.hubStarting), n), ...perKey(first.workloadStarting, n) },
      after: {
        ...perKey(prefixed(first.hubAfter), (n * Math.max(1, steady)) / 60),
        ...perKey(first.workloadAfter, (n * Math.max(1, steady)) / 60),
      },
    }
  }
  return {
    clusters: n,
    workloads: input.workloads,
    steadyS: steady,
    runs: Math.max(...(["krtt", "peer"] as const).map((s) => runs.filter((r) => r.side === s).length)),
    idleRssKiB: idle,
    load: input.load,
    clustersSeen,
    rows,
    requests,
  }
}

const cell = (s: Stats | undefined, digits: number) =>
  s === undefined
    ? "—"
    : s.min === s.max
      ? s.median.toFixed(digits)
      : `${s.min.toFixed(digits)} / ${s.median.toFixed(digits)} / ${s.max.toFixed(digits)}`

/** The ratio as printed: "∞ (peer 0)" when only the peer's median is 0, "— (both 0)" when both are. */
const ratioCell = (r: Row): string => {
  if (r.ratio !== undefined) return r.ratio.toFixed(2)
  if (r.krtt === undefined || r.peer === undefined) return "—"
  return r.krtt.median === 0 ? "— (both 0)" : "∞ (peer 0)"
}

/** The Markdown the bench prints: per cluster count, a heading line and one table. */
export const renderTable = (
  machine: { readonly nproc: number; readonly cpu: string; readonly node: string },
  sizes: ReadonlyArray<SizeSummary>,
): string => {
  const out = [`machine: ${machine.nproc} × ${machine.cpu}, Node ${machine.node}`]
  for (const s of sizes) {
    const load = (l: ReadonlyArray<number>) => l.map((x) => x.toFixed(2)).join(" ")
    out.push(
      "",
      `${s.clusters} clusters (kubeconfig Secrets, each its own name and user) over ${s.workloads} workload API servers; ${s.runs} run(s) per side, min / median / max; ${s.steadyS} s measured after; ratio = krtt median / multicluster-runtime median; load average ${load(s.load.before)} before, ${load(s.load.after)} after`,
      "",
      "| measure | krtt | multicluster-runtime | ratio |",
      "|---|---|---|---|",
      ...s.rows.map(
        (r) => `| ${r.measure} | ${cell(r.krtt, r.digits)} | ${cell(r.peer, r.digits)} | ${ratioCell(r)} |`,
      ),
      "",
      `idle RSS (no clusters): ${Object.entries(s.idleRssKiB)
        .map(([k, v]) => `${k} ${((v ?? 0) / 1024).toFixed(0)} MiB`)
        .join(", ")}; cluster users seen making requests while starting (of ${s.clusters}): ${Object.entries(
        s.clustersSeen,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
      ...Object.entries(s.requests).map(
        ([k, v]) =>
          `${k} requests (run 1) per cluster while starting: ${JSON.stringify(v?.starting)}; per cluster and minute after: ${JSON.stringify(v?.after)}`,
      ),
    )
  }
  return out.join("\n")
}
