// `krtt why` beside upstream Cluster API v1.14.2's own manager: a control plane of the test's own
// (a management API server with v1.14.2's CRDs, and one workload API server), upstream's manager
// reconciling there as cluster admin, and for each scenario the differences `krtt why` lists
// between the status upstream wrote and the status krtt's tables would write. A difference
// would be listed below with its reason; `krttBug: true` would mark one where krtt's tables
// differ from v1.14.2 with no documented reason (neither something `krtt why` cannot know
// read-only nor a deliberate difference of docs/operator.md). There are none: reasons,
// messages, severities and the fields upstream leaves unset all agree.
// Runs only when upstream's manager binary is already built (bench/compare-upstream.ts builds
// it; that takes about 10 minutes).
import { execFile } from "node:child_process"
import { existsSync, writeFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  installUpstreamCrdsOf,
  type Observed,
  startUpstream,
  upstreamManagerPath,
} from "../../bench/compare-upstream.ts"
import { type Cluster, type ControlPlane, startControlPlane } from "../../testenv/index.ts"
import {
  CLUSTER_FINALIZER,
  clusterObject,
  controlPlaneObject,
  create,
  createNamespace,
  endpointOf,
  getObject,
  infraClusterObject,
  initializeControlPlane,
  installManagement,
  type KubeObject,
  kubeconfigSecret,
  paths,
  provisionInfrastructure,
  repoRoot,
  sleep,
  waitFor,
  writeServingCertificate,
} from "../fixtures/index.ts"

const run = promisify(execFile)
const VERSION = "v1.14.2"
const binary = upstreamManagerPath(VERSION)
const cached = existsSync(binary)
if (!cached)
  console.log(
    `why-upstream: skipped, upstream's manager ${VERSION} is not built at ${binary} (bench/compare-upstream.ts ensureUpstreamManagerOf builds it in about 10 minutes)`,
  )

type Condition = { type: string; status: string; reason?: string; message?: string }
const conditionsOf = (c: KubeObject | undefined): ReadonlyArray<Condition> =>
  (c?.status?.conditions as ReadonlyArray<Condition> | undefined) ?? []
const condition = (c: KubeObject | undefined, type: string) => conditionsOf(c).find((x) => x.type === type)

/** A scenario: the objects it creates, and what upstream's status shows once it has reconciled them. */
interface Scenario {
  readonly name: string
  readonly setup: (mgmt: Cluster, workload: Cluster, ns: string) => Promise<void>
  readonly reconciled: (c: KubeObject | undefined) => boolean
}

/** The E2EInfraCluster, E2EControlPlane, kubeconfig Secret and Cluster of one scenario, named `c`. */
const objects = async (
  mgmt: Cluster,
  workload: Cluster,
  ns: string,
  options: { readonly paused?: boolean } = {},
): Promise<void> => {
  const endpoint = endpointOf(workload.server)
  await create(mgmt, paths.infra(ns), infraClusterObject(ns, "c", endpoint))
  await create(mgmt, paths.controlPlane(ns), controlPlaneObject(ns, "c", endpoint))
  await create(mgmt, paths.secret(ns), kubeconfigSecret(ns, "c", workload.admin.kubeconfig))
  const cluster = clusterObject(ns, "c", { infrastructure: "c", controlPlane: "c" })
  await create(mgmt, paths.cluster(ns), {
    ...cluster,
    spec: { ...cluster.spec, ...(options.paused === true ? { paused: true } : {}) },
  })
}

const hasFinalizer = (c: KubeObject | undefined) =>
  c?.metadata.finalizers?.includes(CLUSTER_FINALIZER) === true

const SCENARIOS: ReadonlyArray<Scenario> = [
  {
    name: "infra-pending",
    setup: (mgmt, w, ns) => objects(mgmt, w, ns),
    reconciled: (c) => hasFinalizer(c) && c?.status?.phase === "Provisioning",
  },
  {
    name: "cp-pending",
    setup: async (mgmt, w, ns) => {
      await objects(mgmt, w, ns)
      await provisionInfrastructure(mgmt, ns, "c")
    },
    reconciled: (c) =>
      hasFinalizer(c) &&
      c?.status?.phase === "Provisioned" &&
      c.status.initialization?.infrastructureProvisioned === true,
  },
  {
    name: "ready",
    setup: async (mgmt, w, ns) => {
      await objects(mgmt, w, ns)
      await provisionInfrastructure(mgmt, ns, "c")
      await initializeControlPlane(mgmt, ns, "c")
    },
    reconciled: (c) =>
      hasFinalizer(c) &&
      c?.status?.phase === "Provisioned" &&
      c.status.initialization?.controlPlaneInitialized === true &&
      condition(c, "RemoteConnectionProbe")?.status === "True",
  },
  {
    name: "paused",
    setup: (mgmt, w, ns) => objects(mgmt, w, ns, { paused: true }),
    reconciled: (c) => condition(c, "Paused")?.status === "True",
  },
]

/** A difference `krtt why` reports, its values normalised (times removed). */
interface Found {
  readonly scenario: string
  readonly field: string
  readonly actual: string
  readonly expected: string
}

/** An expected difference: what `krtt why` reports, why, and whether krtt's tables are wrong there. */
interface Expected extends Found {
  readonly reason: string
  readonly krttBug?: true
}

/** Every scenario's status is the one upstream wrote: `krtt why` finds no difference. */
const EXPECTED: ReadonlyArray<Expected> = []

const normalise = (v: unknown): string =>
  v === undefined || v === null
    ? "<absent>"
    : String(v)
        .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<time>")
        .replace(/\b\d+(\.\d+)?(ms|s|m|h)\b/g, "<duration>")

describe.skipIf(!cached)(`krtt why beside upstream Cluster API ${VERSION}'s manager`, () => {
  let dir: string
  let controlPlane: ControlPlane
  let mgmt: Cluster
  let workload: Cluster
  let upstream: Observed | undefined
  const runId = Date.now().toString(36)
  const nsOf = (s: Scenario) => `why-${s.name}-${runId}`

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "krtt-e2e-why-upstream-"))
    controlPlane = await startControlPlane({ clusters: 2 })
    ;[mgmt, workload] = controlPlane.clusters as [Cluster, Cluster]
    await installManagement(mgmt, { crds: "upstream", version: VERSION })
    await installUpstreamCrdsOf(mgmt, VERSION)
    const certDir = join(dir, "serving-certs")
    await writeServingCertificate(certDir, ["127.0.0.1", "localhost"])
    upstream = await startUpstream({
      binary,
      kubeconfigPath: mgmt.admin.kubeconfigPath,
      dir,
      certDir,
      args: [],
    })
    await waitFor("upstream's manager ready", () => upstream?.ready().then((r) => (r ? true : undefined)), {
      timeoutMs: 120_000,
      context: () => upstream?.tail(30) ?? "",
    })
  }, 300_000)

  afterAll(async () => {
    await upstream?.kill()
    await controlPlane?.stop()
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  it("lists, for each scenario, only the differences recorded here with their reasons", async () => {
    for (const s of SCENARIOS) {
      const ns = await createNamespace(mgmt, nsOf(s))
      await s.setup(mgmt, workload, ns)
    }
    // Upstream's status has settled: the scenario's state is reached, and two reads 2 s apart agree.
    for (const s of SCENARIOS) {
      const path = paths.cluster(nsOf(s), "c")
      let last: KubeObject | undefined
      await waitFor(
        `upstream's status of ${s.name} to settle`,
        async () => {
          const first = await getObject(mgmt, path)
          last = first
          if (!s.reconciled(first)) return undefined
          await sleep(2_000)
          const second = await getObject(mgmt, path)
          return JSON.stringify(first?.status) === JSON.stringify(second?.status) ? true : undefined
        },
        {
          timeoutMs: 120_000,
          context: () => `last status: ${JSON.stringify(last?.status)}\n${upstream?.tail(30) ?? ""}`,
        },
      )
    }
    const { stdout } = await run(
      process.execPath,
      ["bin/krtt.js", "why", "cluster", "--all", "--json", "--kubeconfig", mgmt.admin.kubeconfigPath],
      { cwd: repoRoot, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
    )
    const report = JSON.parse(stdout) as {
      clusters: ReadonlyArray<{
        name: string
        differences: ReadonlyArray<{ field: string; actual?: unknown; expected?: unknown }>
      }>
    }
    const found: Array<Found> = []
    for (const s of SCENARIOS) {
      const c = report.clusters.find((x) => x.name === `${nsOf(s)}/c`)
      expect(c, `krtt why lists ${nsOf(s)}/c`).toBeDefined()
      for (const d of c?.differences ?? [])
        found.push({
          scenario: s.name,
          field: d.field,
          actual: normalise(d.actual),
          expected: normalise(d.expected),
        })
    }
    if (process.env.WHY_UPSTREAM_DUMP !== undefined)
      writeFileSync(process.env.WHY_UPSTREAM_DUMP, JSON.stringify({ found, report }, null, 2))
    expect(found).toEqual(
      EXPECTED.map(({ scenario, field, actual, expected }) => ({ scenario, field, actual, expected })),
    )
  }, 300_000)
})
