/**
 * The status half of the differential suite: `krtt why cluster --all --json` run against the
 * management cluster once upstream's manager has settled every scenario, and its differences
 * turned into divergences (upstream: the status upstream wrote; krtt: the one krtt's tables
 * would write on the same objects).
 *
 * @module
 */
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import type { Cluster } from "../../testenv/index.ts"
import { repoRoot } from "../fixtures/index.ts"
import { type Comparison, type Divergence, normalise } from "./compare.ts"
import { NAME } from "./objects.ts"

const run = promisify(execFile)

type Condition = { readonly type: string }
interface Status {
  readonly conditions?: ReadonlyArray<Condition>
  readonly deprecated?: { readonly v1beta1?: { readonly conditions?: ReadonlyArray<Condition> } }
}

/** One Cluster of `krtt why --all --json`. */
export interface WhyCluster {
  readonly name: string
  readonly expectedStatus: Status | null
  readonly differences: ReadonlyArray<{
    readonly field: string
    readonly actual: unknown
    readonly expected: unknown
  }>
}

/** Runs `krtt why cluster --all --json` (bin/krtt.js, so dist/ must be built). */
export const krttWhy = async (mgmt: Cluster): Promise<ReadonlyArray<WhyCluster>> => {
  const { stdout } = await run(
    process.execPath,
    ["bin/krtt.js", "why", "cluster", "--all", "--json", "--kubeconfig", mgmt.admin.kubeconfigPath],
    { cwd: repoRoot, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
  )
  return (JSON.parse(stdout) as { clusters: ReadonlyArray<WhyCluster> }).clusters
}

const types = (a: ReadonlyArray<Condition> | undefined, b: ReadonlyArray<Condition> | undefined) =>
  new Set([...(a ?? []), ...(b ?? [])].map((c) => c.type)).size

/** phase, the two initialization flags and the two v1beta1 failure fields. */
const SCALAR_FIELDS = 5

/**
 * The divergences of one scenario's Cluster; the fields compared are those `krtt why` compares:
 * the scalars, and status, reason and message of every condition either status has.
 */
export const whyComparison = (
  report: ReadonlyArray<WhyCluster>,
  scenario: string,
  ns: string,
  actual: Status | undefined,
): Comparison => {
  const c = report.find((x) => x.name === `${ns}/${NAME}`)
  // A Cluster upstream has deleted has no status left to compare.
  if (c === undefined && actual === undefined) return { fields: 0, divergences: [] }
  if (c === undefined)
    return { fields: 1, divergences: [{ scenario, field: "krtt why", upstream: "listed", krtt: "<absent>" }] }
  const expected = c.expectedStatus ?? undefined
  const fields =
    SCALAR_FIELDS +
    3 * types(actual?.conditions, expected?.conditions) +
    3 * types(actual?.deprecated?.v1beta1?.conditions, expected?.deprecated?.v1beta1?.conditions)
  const divergences: ReadonlyArray<Divergence> = c.differences.map((d) => ({
    scenario,
    field: d.field,
    upstream: normalise(d.actual, ns),
    krtt: normalise(d.expected, ns),
  }))
  return { fields, divergences }
}
