/**
 * What the IPAM e2e tests share: installing config/ipam's CRDs, running `node bin/krtt.js ipam`
 * as a process (killed and restarted at will), openmcp Clusters, and reading the cluster state
 * the controller writes (ClusterConfigs, applied-rules annotations).
 *
 * @module
 */
import { readdirSync } from "node:fs"
import { join } from "node:path"
import {
  APPLIED_RULES_ANNOTATION,
  CIDR_FINALIZER,
  CLUSTER_TARGET_LABEL,
  MANAGED_BY_LABEL,
  OPERATION_ANNOTATION,
} from "../../core/ipam/index.ts"
import type { Cluster } from "../../testenv/index.ts"
import {
  freePorts,
  killGroup,
  type Managed,
  onEmergency,
  startProcess,
  tail,
} from "../../testenv/processes.ts"
import {
  apply,
  expectStatus,
  type KubeObject,
  readManifests,
  repoRoot,
  sleep,
  waitForCrd,
} from "../fixtures/index.ts"

export const CLUSTERS = "/apis/clusters.openmcp.cloud/v1alpha1"
export const GARDENER = "/apis/gardener.clusters.openmcp.cloud/v1alpha1"

/** Applies config/ipam/crds and waits until they are served. */
export const installIpamCrds = async (cluster: Cluster): Promise<void> => {
  const dir = join(repoRoot, "config", "ipam", "crds")
  const crds = readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .flatMap((f) => readManifests(join(dir, f)))
  for (const crd of crds) await apply(cluster, crd)
  for (const crd of crds) await waitForCrd(cluster, crd.metadata.name)
}

export interface IpamProcess {
  readonly pid: number
  readonly healthUrl: string
  readonly metricsUrl: string
  readonly tail: () => string
  /** SIGKILL, no goodbye. */
  readonly kill: () => Promise<void>
  /** SIGTERM; how it ended. */
  readonly terminate: () => Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
  readonly metrics: () => Promise<string>
}

/** Starts `node bin/krtt.js ipam` and returns once `/readyz` says ready (state restored, workers up). */
export const startIpam = async (options: {
  readonly kubeconfigPath: string
  readonly dir: string
  readonly config: string
  readonly args?: ReadonlyArray<string>
  /** Wait for `/readyz` (default); false: only for `/healthz` (a replica waiting for its Lease). */
  readonly waitReady?: boolean
  /** Serve the webhooks (their certificate flags in `args`); default: `--disable-webhooks`. */
  readonly webhooks?: boolean
}): Promise<IpamProcess> => {
  const [metricsPort, healthPort] = await freePorts(2)
  const logPath = join(options.dir, `krtt-ipam-${Date.now()}.log`)
  const args = [
    join(repoRoot, "bin", "krtt.js"),
    "ipam",
    "--kubeconfig",
    options.kubeconfigPath,
    "--config",
    options.config,
    `--metrics-bind-address=127.0.0.1:${metricsPort}`,
    `--health-probe-bind-address=127.0.0.1:${healthPort}`,
    // plain HTTP, so that the tests read /metrics without a token (upstream's default is HTTPS)
    "--metrics-secure=false",
    ...(options.webhooks === true ? [] : ["--disable-webhooks"]),
    ...(options.args ?? []),
  ]
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.KUBECONFIG
  const p: Managed = await startProcess("krtt ipam", process.execPath, args, { cwd: repoRoot, logPath, env })
  const unregister = onEmergency(() => killGroup(p.pid, "SIGKILL"))
  void p.exited.then(unregister)
  const healthUrl = `http://127.0.0.1:${healthPort}`
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
  const proc: IpamProcess = {
    pid: p.pid,
    healthUrl,
    metricsUrl,
    tail: () => `last lines of ${logPath}:\n${tail(logPath, 40)}`,
    kill: async () => {
      if (p.exit() !== undefined) return
      killGroup(p.pid, "SIGKILL")
      await Promise.race([p.exited, sleep(10_000)])
    },
    terminate: async () => {
      if (p.exit() === undefined) process.kill(p.pid, "SIGTERM")
      const timer = setTimeout(() => killGroup(p.pid, "SIGKILL"), 40_000)
      const exit = await p.exited
      clearTimeout(timer)
      return exit
    },
    metrics: async () => (await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) })).text(),
  }
  const deadline = Date.now() + 90_000
  for (;;) {
    const exit = p.exit()
    if (exit !== undefined) throw new Error(`krtt ipam exited (${JSON.stringify(exit)}); ${proc.tail()}`)
    const probe = options.waitReady === false ? "/healthz" : "/readyz"
    const ready = await fetch(`${healthUrl}${probe}`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => r.status === 200,
      () => false,
    )
    if (ready) return proc
    if (Date.now() > deadline) {
      await proc.kill()
      throw new Error(`krtt ipam was not ready within 90 s; ${proc.tail()}`)
    }
    await sleep(200)
  }
}

/** An openmcp Cluster. */
export const clusterObject = (
  namespace: string,
  name: string,
  options: {
    readonly labels?: Readonly<Record<string, string>>
    readonly purposes?: ReadonlyArray<string>
    readonly finalizers?: ReadonlyArray<string>
  } = {},
) => ({
  apiVersion: "clusters.openmcp.cloud/v1alpha1",
  kind: "Cluster",
  metadata: {
    namespace,
    name,
    labels: options.labels ?? {},
    ...(options.finalizers === undefined ? {} : { finalizers: options.finalizers }),
  },
  spec: { profile: "gardener-test", tenancy: "Exclusive", purposes: options.purposes ?? ["mcp"] },
})

export const createCluster = async (
  cluster: Cluster,
  object: ReturnType<typeof clusterObject>,
): Promise<KubeObject> =>
  (
    await expectStatus(
      cluster.request("POST", `${CLUSTERS}/namespaces/${object.metadata.namespace}/clusters`, {
        body: object,
      }),
      [201],
      `create Cluster ${object.metadata.name}`,
    )
  ).body as KubeObject

export const listClusters = async (cluster: Cluster, namespace: string): Promise<ReadonlyArray<KubeObject>> =>
  (
    (
      await expectStatus(
        cluster.request("GET", `${CLUSTERS}/namespaces/${namespace}/clusters`),
        [200],
        "list Clusters",
      )
    ).body as { items: ReadonlyArray<KubeObject> }
  ).items

export const listClusterConfigs = async (
  cluster: Cluster,
  namespace: string,
  managedBy: string,
): Promise<ReadonlyArray<KubeObject>> =>
  (
    (
      await expectStatus(
        cluster.request(
          "GET",
          `${GARDENER}/namespaces/${namespace}/clusterconfigs?labelSelector=${encodeURIComponent(`${MANAGED_BY_LABEL}=${managedBy}`)}`,
        ),
        [200],
        "list ClusterConfigs",
      )
    ).body as { items: ReadonlyArray<KubeObject> }
  ).items

/** The CIDRs of a ClusterConfig's patches. */
export const cidrsOf = (cc: KubeObject): ReadonlyArray<string> =>
  ((cc.spec as { patches?: ReadonlyArray<{ value?: unknown }> } | undefined)?.patches ?? []).flatMap((p) =>
    typeof p.value === "string" ? [p.value] : [],
  )

/** `{rule: {path: cidr}}` of a Cluster's applied-rules annotation. */
export const appliedRules = (c: KubeObject): Record<string, Record<string, string>> => {
  const text = c.metadata.annotations?.[APPLIED_RULES_ANNOTATION]
  return text === undefined ? {} : (JSON.parse(text) as Record<string, Record<string, string>>)
}

/** IPv4 CIDR as [first, last] numbers. */
export const rangeOf = (cidr: string): readonly [number, number] => {
  const [addr, len] = cidr.split("/")
  const base = (addr ?? "").split(".").reduce((n, o) => n * 256 + Number(o), 0)
  const size = 2 ** (32 - Number(len))
  return [base, base + size - 1]
}

/** Pairs of CIDRs that overlap, among CIDRs held by different owners (same owner may nest). */
export const overlapping = (
  held: ReadonlyArray<{ readonly owner: string; readonly cidr: string }>,
): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = 0; i < held.length; i++) {
    for (let j = i + 1; j < held.length; j++) {
      const a = held[i]
      const b = held[j]
      if (a === undefined || b === undefined || a.owner === b.owner) continue
      const [a0, a1] = rangeOf(a.cidr)
      const [b0, b1] = rangeOf(b.cidr)
      if (a0 <= b1 && b0 <= a1) out.push(`${a.owner} ${a.cidr} ∩ ${b.owner} ${b.cidr}`)
    }
  }
  return out
}

export { CIDR_FINALIZER, CLUSTER_TARGET_LABEL, OPERATION_ANNOTATION }
