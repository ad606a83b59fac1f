/**
 * The HTML report of a run: one self-contained page (no scripts, no external files) with the
 * summary, the invariants, inline SVG charts (connected clusters over time, probe failures,
 * reconciles per simulated minute, the time-to-Provisioned distribution) and the decisions per
 * documented row.
 *
 * @module
 */
import { Checks } from "./invariants.ts"
import { formatDuration } from "./scenario.ts"
import { type Measurements, TTP_BUCKET } from "./stats.ts"
import type { SimSummary } from "./summary.ts"

interface Line {
  readonly name: string
  readonly color: string
  readonly values: ReadonlyArray<number>
}

const W = 760
const H = 220
const PAD = { left: 56, right: 16, top: 28, bottom: 34 }

const esc = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** A round upper bound for an axis. */
const niceMax = (v: number): number => {
  if (v <= 0) return 1
  const p = 10 ** Math.floor(Math.log10(v))
  for (const m of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (m * p >= v) return m * p
  return 10 * p
}

const fmtNum = (v: number): string =>
  v >= 1e6
    ? `${(v / 1e6).toFixed(1)}M`
    : v >= 1e4
      ? `${(v / 1e3).toFixed(0)}k`
      : `${Math.round(v * 100) / 100}`

/** A time axis label: `1h20m`, `45m`, `0`. */
const hours = (ms: number): string => (ms === 0 ? "0" : formatDuration(Math.round(ms / 60_000) * 60_000))

/** At most `n` points: the maximum of each group keeps spikes visible. */
const downsample = (values: ReadonlyArray<number>, n: number): { values: Array<number>; step: number } => {
  if (values.length <= n) return { values: [...values], step: 1 }
  const step = Math.ceil(values.length / n)
  const out: Array<number> = []
  for (let i = 0; i < values.length; i += step) {
    let m = 0
    for (let k = i; k < i + step && k < values.length; k++) m = Math.max(m, values[k] as number)
    out.push(m)
  }
  return { values: out, step }
}

const frame = (
  title: string,
  yMax: number,
  xLabels: ReadonlyArray<[number, string]>,
  body: string,
): string => {
  const iw = W - PAD.left - PAD.right
  const ih = H - PAD.top - PAD.bottom
  let grid = ""
  for (let k = 0; k <= 4; k++) {
    const y = PAD.top + ih - (ih * k) / 4
    grid += `<line x1="${PAD.left}" x2="${PAD.left + iw}" y1="${y}" y2="${y}" stroke="#e3e3e3"/>`
    grid += `<text x="${PAD.left - 6}" y="${y + 4}" text-anchor="end">${fmtNum((yMax * k) / 4)}</text>`
  }
  for (const [x, label] of xLabels)
    grid += `<text x="${PAD.left + x * iw}" y="${H - PAD.bottom + 16}" text-anchor="middle">${esc(label)}</text>`
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}">
<text x="${PAD.left}" y="18" class="title">${esc(title)}</text>${grid}
<line x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${PAD.top + ih}" stroke="#999"/>
<line x1="${PAD.left}" x2="${PAD.left + iw}" y1="${PAD.top + ih}" y2="${PAD.top + ih}" stroke="#999"/>${body}</svg>`
}

const timeLabels = (samples: number, every: number): Array<[number, string]> => {
  const total = samples * every
  const labels: Array<[number, string]> = []
  for (let k = 0; k <= 6; k++) labels.push([k / 6, hours((total * k) / 6)])
  return labels
}

/** A line chart of per-sample series over virtual time. */
export const lineChart = (title: string, lines: ReadonlyArray<Line>, every: number): string => {
  const n = Math.max(0, ...lines.map((l) => l.values.length))
  const yMax = niceMax(Math.max(0, ...lines.flatMap((l) => l.values)))
  const iw = W - PAD.left - PAD.right
  const ih = H - PAD.top - PAD.bottom
  let body = ""
  lines.forEach((l, li) => {
    const { values } = downsample(l.values, 600)
    const m = values.length
    const pts = values
      .map(
        (v, i) =>
          `${(PAD.left + (m <= 1 ? 0 : (i / (m - 1)) * iw)).toFixed(1)},${(PAD.top + ih - (v / yMax) * ih).toFixed(1)}`,
      )
      .join(" ")
    body += `<polyline fill="none" stroke="${l.color}" stroke-width="1.6" points="${pts}"/>`
    // The legend goes on the title's line, right-aligned.
    const x = W - PAD.right - (lines.length - li) * 150
    body += `<rect x="${x}" y="9" width="10" height="10" fill="${l.color}"/>`
    body += `<text x="${x + 14}" y="18">${esc(l.name)}</text>`
  })
  return frame(title, yMax, timeLabels(n, every), body)
}

/** A bar chart of the time-to-Provisioned histogram (10 s buckets), trimmed to the data. */
export const histogramChart = (title: string, m: Measurements): string => {
  const h = m.timeToProvisioned
  let last = 0
  h.counts.forEach((c, i) => {
    if (c > 0) last = i
  })
  const counts = h.counts.slice(0, last + 1)
  const yMax = niceMax(Math.max(0, ...counts))
  const iw = W - PAD.left - PAD.right
  const ih = H - PAD.top - PAD.bottom
  const bw = counts.length === 0 ? 0 : iw / counts.length
  let body = ""
  counts.forEach((c, i) => {
    if (c === 0) return
    const bh = (c / yMax) * ih
    body += `<rect x="${(PAD.left + i * bw).toFixed(1)}" y="${(PAD.top + ih - bh).toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${bh.toFixed(1)}" fill="#4a7fd4"><title>${(i * TTP_BUCKET) / 1000}-${((i + 1) * TTP_BUCKET) / 1000} s: ${c}</title></rect>`
  })
  const labels: Array<[number, string]> = []
  for (let k = 0; k <= 5; k++)
    labels.push([k / 5, `${Math.round((counts.length * TTP_BUCKET * k) / 5 / 1000)} s`])
  return frame(title, yMax, labels, body)
}

const perMinute = (values: ReadonlyArray<number>, every: number): Array<number> =>
  values.map((v) => (v * 60_000) / every)

/** The page's charts: Clusters, failed probes and reconciles over time, time to Provisioned. */
const reportCharts = (s: SimSummary, m: Measurements): Array<string> => {
  const every = m.series.every
  return [
    lineChart(
      "Clusters over time",
      [
        { name: "existing", color: "#999999", values: m.series.clusters },
        { name: "Provisioned", color: "#4a7fd4", values: m.series.provisioned },
        { name: "connected", color: "#2e9e44", values: m.series.connected },
      ],
      every,
    ),
    lineChart(
      "Failed health probes per sample",
      [{ name: "probe failures (incl. 401)", color: "#d4513b", values: m.series.probeFailures }],
      every,
    ),
    lineChart(
      "Reconciles per simulated minute",
      [
        { name: "ClusterCache", color: "#7a4ad4", values: perMinute(m.series.reconciles, every) },
        {
          name: "Cluster controller",
          color: "#d49a2a",
          values: perMinute(m.series.clusterReconciles, every),
        },
      ],
      every,
    ),
    histogramChart(`Time from creation to Provisioned (${s.timeToProvisioned.count} clusters)`, m),
  ]
}

/** The page's table of the run's facts, as label and HTML. */
const reportFacts = (s: SimSummary): Array<[string, string]> => {
  const t = s.totals
  return [
    ["Clusters (slots)", `${s.clusters}`],
    ["Simulated", `${s.hours} h (${s.simulatedSeconds.toLocaleString("en-US")} s)`],
    ["Wall time", `${s.wallSeconds} s with ${s.workers} worker${s.workers === 1 ? "" : "s"}`],
    ["Seed", `${s.seed}`],
    [
      "Transitions",
      `${s.transitions.toLocaleString("en-US")} (${s.transitionsPerSecond.toLocaleString("en-US")}/s)`,
    ],
    [
      "Reconciles",
      `${s.reconciles.clusterCache.toLocaleString("en-US")} ClusterCache, ${s.reconciles.cluster.toLocaleString("en-US")} Cluster`,
    ],
    ["Clusters created / deleted", `${t.clustersCreated} / ${t.clustersDeleted}`],
    [
      "Faults",
      `${t.outages} outages, ${t.slowPeriods} slow periods, ${t.rotations} credential rotations, ${t.scenarioIncidents} scenario incidents`,
    ],
    [
      "Connections",
      `${t.connects} connects, ${t.failedConnects} failed attempts, ${t.disconnects} disconnects`,
    ],
    [
      "Probes",
      `${t.probes.toLocaleString("en-US")} (${t.probeFailures} failed, ${t.probeUnauthorized} with 401)`,
    ],
    [
      "Time to Provisioned",
      `p50 ${s.timeToProvisioned.p50 ?? "-"} s, p90 ${s.timeToProvisioned.p90 ?? "-"} s, p99 ${s.timeToProvisioned.p99 ?? "-"} s, max ${s.timeToProvisioned.max ?? "-"} s`,
    ],
    ["Trace", `${s.traceRecords.toLocaleString("en-US")} records, sha256 <code>${s.traceHash}</code>`],
  ]
}

/** The whole page. */
export const renderReport = (s: SimSummary, m: Measurements): string => {
  const charts = reportCharts(s, m)
  const invariants = Object.entries(s.invariants)
    .map(
      ([name, n]) =>
        `<tr class="${n === 0 ? "ok" : "fail"}"><td>${n === 0 ? "✔" : "✘"}</td><td><code>${esc(name)}</code></td><td class="n">${n}</td><td>${esc(Checks[name as keyof typeof Checks] ?? "")}</td></tr>`,
    )
    .join("\n")
  const decisions = Object.entries(s.decisions)
    .map(
      ([row, n]) =>
        `<tr><td><code>${esc(row)}</code></td><td class="n">${n.toLocaleString("en-US")}</td></tr>`,
    )
    .join("\n")
  const examples = s.examples.map((e) => `<li><code>${esc(e)}</code></li>`).join("\n")
  const facts = reportFacts(s)
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>krtt simulation: ${s.clusters} clusters, ${s.hours} h, seed ${s.seed}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:800px;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:3px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}tr.fail td{color:#b00020;font-weight:600}tr.ok td:first-child{color:#2e9e44}
svg{display:block;margin:1em 0;font-size:11px;fill:#444}svg .title{font-size:13px;font-weight:600;fill:#222}
code{font-size:12px}
</style></head><body>
<h1>krtt fleet simulation</h1>
<p>${s.violations === 0 ? "Every invariant held." : `<strong>${s.violations} invariant violations.</strong>`}</p>
<table>${facts.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${v}</td></tr>`).join("\n")}</table>
<h2>Charts</h2>
${charts.join("\n")}
<h2>Invariants</h2>
<table><tr><th></th><th>check</th><th>violations</th><th>promise</th></tr>
${invariants}</table>
${examples === "" ? "" : `<h3>First violations</h3><ul>${examples}</ul>`}
<h2>Decisions per documented row</h2>
<table><tr><th>row</th><th>decisions</th></tr>
${decisions}</table>
</body></html>
`
}
