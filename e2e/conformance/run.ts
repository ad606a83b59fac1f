/**
 * The differential suite against upstream Cluster API's core manager: a control plane of its own
 * (a management API server with the release's CRDs, and one workload API server), every scenario
 * run under upstream's manager, `krtt why --all --json` on what it wrote, then every scenario
 * run again on fresh namespaces under `krtt run`, and the comparison of both.
 *
 * The two never run at once: upstream's manager is stopped before `krtt run` starts, and
 * `krtt run` reconciles only its own Clusters (those labelled with its watch filter).
 *
 * @module
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { installUpstreamCrdsOf, startUpstream } from "../../bench/compare-upstream.ts"
import { type Cluster, startControlPlane } from "../../testenv/index.ts"
import { installManagement, startOperator, waitFor, writeServingCertificate } from "../fixtures/index.ts"
import { type Comparison, compareRuns, type Divergence, WATCH_FILTER_LABEL } from "./compare.ts"
import { type Controller, runPhase, type ScenarioRun } from "./phase.ts"
import { installConformanceProviders } from "./providers.ts"
import type { Scenario } from "./scenario.ts"
import { krttWhy, type WhyCluster, whyComparison } from "./why.ts"

/** The suite's report, as `npm run conformance:upstream` prints it. */
export interface Report {
  readonly scenarios: number
  readonly fields: number
  readonly divergences: ReadonlyArray<Divergence>
}

export interface SuiteOptions {
  readonly binary: string
  readonly version: string
  readonly scenarios: ReadonlyArray<Scenario>
  readonly log: (line: string) => void
  readonly settleTimeoutMs?: number
  /** A file to write everything read into (the snapshots of both runs and krtt why's report). */
  readonly dump?: string
}

const KRTT_FILTER = "krtt-conformance"

const upstreamController = async (mgmt: Cluster, dir: string, binary: string): Promise<Controller> => {
  const certDir = join(dir, "serving-certs")
  await writeServingCertificate(certDir, ["127.0.0.1", "localhost"])
  const p = await startUpstream({ binary, kubeconfigPath: mgmt.admin.kubeconfigPath, dir, certDir, args: [] })
  await waitFor("upstream's manager ready", () => p.ready().then((r) => (r ? true : undefined)), {
    timeoutMs: 120_000,
    context: () => p.tail(30),
  })
  return { stop: () => p.terminate().then(() => undefined) }
}

const krttController = async (mgmt: Cluster, dir: string): Promise<Controller> => {
  const p = await startOperator({
    kubeconfigPath: mgmt.admin.kubeconfigPath,
    dir,
    args: [`--watch-filter=${KRTT_FILTER}`],
  })
  return { stop: () => p.terminate().then(() => undefined) }
}

const compareAll = (
  scenarios: ReadonlyArray<Scenario>,
  why: ReadonlyArray<WhyCluster>,
  upstream: ReadonlyMap<string, ScenarioRun>,
  krtt: ReadonlyMap<string, ScenarioRun>,
): Report => {
  const parts: Array<Comparison> = scenarios.flatMap((s) => {
    const u = upstream.get(s.name) as ScenarioRun
    const k = krtt.get(s.name) as ScenarioRun
    const status = u.snapshot.cluster === undefined ? undefined : (u.snapshot.cluster.status ?? {})
    return [whyComparison(why, s.name, u.ns, status), compareRuns(s.name, u, k)]
  })
  return {
    scenarios: scenarios.length,
    fields: parts.reduce((n, p) => n + p.fields, 0),
    divergences: parts.flatMap((p) => p.divergences),
  }
}

/** Runs the suite; the report. */
export const runSuite = async (o: SuiteOptions): Promise<Report> => {
  const dir = await mkdtemp(join(tmpdir(), "krtt-conformance-"))
  const controlPlane = await startControlPlane({ clusters: 2 })
  try {
    const [mgmt, workload] = controlPlane.clusters as [Cluster, Cluster]
    o.log(`installing Cluster API ${o.version}'s CRDs and the test providers`)
    await installManagement(mgmt, { crds: "upstream", version: o.version })
    await installUpstreamCrdsOf(mgmt, o.version)
    await installConformanceProviders(mgmt)
    const runId = Date.now().toString(36)
    const common = { mgmt, workload, scenarios: o.scenarios, settleTimeoutMs: o.settleTimeoutMs ?? 150_000 }
    let why: ReadonlyArray<WhyCluster> = []
    o.log(`running ${o.scenarios.length} scenarios under upstream's manager ${o.version}`)
    const upstream = await runPhase({
      ...common,
      prefix: `u${runId}`,
      clusterLabels: {},
      start: () => upstreamController(mgmt, dir, o.binary),
      whileSettled: async () => {
        why = await krttWhy(mgmt)
      },
    })
    o.log(
      `krtt why read upstream's ${why.length} Clusters; running ${o.scenarios.length} scenarios under krtt run`,
    )
    const krtt = await runPhase({
      ...common,
      prefix: `k${runId}`,
      clusterLabels: { [WATCH_FILTER_LABEL]: KRTT_FILTER },
      start: () => krttController(mgmt, dir),
    })
    if (o.dump !== undefined)
      await writeFile(
        o.dump,
        JSON.stringify(
          { why, upstream: Object.fromEntries(upstream), krtt: Object.fromEntries(krtt) },
          null,
          2,
        ),
      )
    o.log("comparing")
    return compareAll(o.scenarios, why, upstream, krtt)
  } finally {
    await controlPlane.stop()
    // With a dump, the controllers' logs stay for reading.
    if (o.dump === undefined) await rm(dir, { recursive: true, force: true })
    else o.log(`the controllers' logs are in ${dir}`)
  }
}
