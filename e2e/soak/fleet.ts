/**
 * The soak's fleet: a control plane of its own (a management cluster and two workload clusters,
 * so that killing a workload API server touches no other test) with the three processes users
 * run side by side on a management cluster: the operator (`krtt run`), the IPAM controller
 * (`krtt ipam`) and a multi-cluster controller (`krtt propagate` over kubeconfig Secrets). Each
 * workload cluster is reached through identities the soak rotates and whose RBAC it revokes.
 *
 * @module
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Cluster, ControlPlane } from "../../testenv/index.ts"
import { startControlPlane } from "../../testenv/index.ts"
import { freePorts, type Managed, startProcess, stopProcess, tail } from "../../testenv/processes.ts"
import {
  apply,
  expectStatus,
  installManagement,
  managerIdentity,
  type OperatorProcess,
  repoRoot,
  startOperator,
  tokenKubeconfig,
  workloadAdmin,
} from "../fixtures/index.ts"
import { type IpamProcess, installIpamCrds, startIpam } from "../ipam/support.ts"

/** Where the soak's objects live on the management cluster (and the sources' copies on the workloads). */
export const NS = {
  capi: "soak-capi",
  ipam: "soak-ipam",
  /** The kubeconfig Secrets of `krtt propagate`'s provider, and its Lease. */
  fleet: "soak-fleet",
  /** The propagated ConfigMaps, on the hub and (as copies) on each workload cluster. */
  team: "soak-team",
  /** The ServiceAccounts the soak hands out on the workload clusters. */
  identities: "krtt-soak",
} as const

export const IPAM_CONFIG = "soak"
export const IPAM_LABEL = "e2e.krtt.dev/soak"
/** One /20 cut into /24s: 16 CIDRs for the live Clusters, so a leak soon leaves none to hand out. */
export const IPAM_PARENT = "10.50.0.0/20"
export const PROPAGATE_LABEL = "krtt.io/propagate"

/** A ServiceAccount token on a workload cluster, made cluster-admin by a ClusterRoleBinding. */
export interface WorkloadIdentity {
  readonly serviceAccount: string
  readonly kubeconfig: string
  /** Deletes the ServiceAccount and its binding: its token is refused from then on. */
  readonly revoke: () => Promise<void>
}

export const mintIdentity = async (workload: Cluster, serviceAccount: string): Promise<WorkloadIdentity> => {
  const admin = await workloadAdmin(workload, NS.identities, serviceAccount)
  const user = `system:serviceaccount:${NS.identities}:${serviceAccount}`
  return { serviceAccount, kubeconfig: tokenKubeconfig(workload, user, admin.token), revoke: admin.revoke }
}

export interface Fleet {
  readonly plane: ControlPlane
  readonly mgmt: Cluster
  readonly workloads: ReadonlyArray<Cluster>
  readonly dir: string
  readonly operator: OperatorProcess
  readonly ipam: IpamProcess
  readonly propagate: Managed
  /** Per workload cluster (by index in `workloads`): the identity the operator's Clusters use now. */
  readonly operatorIdentity: Array<WorkloadIdentity>
  /** Per workload cluster: the identity of `krtt propagate`'s kubeconfig Secret now. */
  readonly propagateIdentity: Array<WorkloadIdentity>
  /** The last lines of each process's log, for failure messages. */
  readonly context: () => string
  readonly stop: () => Promise<void>
}

const namespaces = async (cluster: Cluster, names: ReadonlyArray<string>): Promise<void> => {
  for (const name of names)
    await expectStatus(
      cluster.request("POST", "/api/v1/namespaces", { body: { metadata: { name } } }),
      [201, 409],
      `namespace ${name}`,
    )
}

/** `krtt propagate`'s kubeconfig Secret for workload cluster `name` (the provider's label). */
export const propagateSecret = (name: string, kubeconfig: string) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: {
    name,
    namespace: NS.fleet,
    labels: { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" },
  },
  data: { kubeconfig: Buffer.from(kubeconfig).toString("base64") },
})

/** The IPAMConfig: Clusters labelled {@link IPAM_LABEL} get a /24 of {@link IPAM_PARENT} for their nodes. */
const ipamConfig = () => ({
  apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
  kind: "IPAMConfig",
  metadata: { name: IPAM_CONFIG },
  spec: {
    parentCIDRs: { soak: [IPAM_PARENT] },
    injectionRules: [
      {
        id: "nodes",
        matchLabels: { [IPAM_LABEL]: "true" },
        injections: [{ path: "/spec/networking/nodes", parents: ["soak"], subnetSize: 24 }],
      },
    ],
  },
})

const startPropagate = async (mgmt: Cluster, dir: string): Promise<Managed> => {
  const [health] = await freePorts(1)
  return startProcess(
    "krtt propagate",
    process.execPath,
    [
      join(repoRoot, "bin", "krtt.js"),
      "propagate",
      `--kubeconfig=${mgmt.admin.kubeconfigPath}`,
      "--provider=kubeconfig-secrets",
      `--provider-namespace=${NS.fleet}`,
      `--namespace=${NS.fleet}`,
      "--retry-interval=2s",
      "--leader-elect",
      `--leader-elect-namespace=${NS.fleet}`,
      "--metrics-bind-address=0",
      `--health-probe-bind-address=127.0.0.1:${health}`,
      "--graceful-shutdown-timeout=10s",
    ],
    { cwd: repoRoot, logPath: join(dir, "propagate.log"), env: { ...process.env, KUBECONFIG: "" } },
  )
}

/** Installs what the three controllers need; the identities the workload clusters hand out. */
const prepare = async (mgmt: Cluster, workloads: ReadonlyArray<Cluster>) => {
  await installManagement(mgmt)
  await installIpamCrds(mgmt)
  await namespaces(mgmt, [NS.capi, NS.ipam, NS.fleet, NS.team])
  await apply(mgmt, ipamConfig())
  const operatorIdentity: Array<WorkloadIdentity> = []
  const propagateIdentity: Array<WorkloadIdentity> = []
  for (const w of workloads) {
    await namespaces(w, [NS.team])
    operatorIdentity.push(await mintIdentity(w, "operator-0"))
    const propagate = await mintIdentity(w, "propagate-0")
    propagateIdentity.push(propagate)
    await apply(mgmt, propagateSecret(w.name, propagate.kubeconfig))
  }
  return { operatorIdentity, propagateIdentity }
}

/**
 * Starts the control plane, installs what the three controllers need, and starts them; on a
 * failure, stops what it started.
 */
export const startFleet = async (): Promise<Fleet> => {
  const dir = await mkdtemp(join(tmpdir(), "krtt-e2e-soak-"))
  const plane = await startControlPlane({ clusters: 3, users: 2 })
  const [mgmt, ...workloads] = plane.clusters as [Cluster, ...Array<Cluster>]
  const stops: Array<() => Promise<void>> = []
  const stop = async () => {
    for (const s of [...stops].reverse()) await s().catch(() => {})
    await plane.stop()
    await rm(dir, { recursive: true, force: true })
  }
  try {
    const identities = await prepare(mgmt, workloads)
    const identity = await managerIdentity(mgmt, dir)
    const operator = await startOperator({
      kubeconfigPath: identity.kubeconfigPath,
      dir,
      // The Lease outlasts a busy 2-core machine's slow moments (see e2e/chaos's restart test).
      args: ["--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=45s"],
    })
    stops.push(() => operator.kill())
    const ipam = await startIpam({ kubeconfigPath: mgmt.admin.kubeconfigPath, dir, config: IPAM_CONFIG })
    stops.push(() => ipam.kill())
    const propagate = await startPropagate(mgmt, dir)
    stops.push(() => stopProcess(propagate))
    const context = () =>
      [operator.tail(15), ipam.tail(), `propagate: ${tail(propagate.logPath, 15)}`].join("\n")
    return { plane, mgmt, workloads, dir, operator, ipam, propagate, ...identities, context, stop }
  } catch (e) {
    await stop()
    throw e
  }
}
