/**
 * The objects of the differential suite's scenarios: a Cluster named `c` in the scenario's
 * namespace, its provider objects of either contract, its kubeconfig Secret, and its
 * descendants (MachineDeployments, MachineSets, Machines, MachinePools) made as plain objects
 * with the status the scenario gives them. Descendants carry `cluster.x-k8s.io/paused`, so that
 * upstream's Machine, MachineSet, MachineDeployment and MachinePool controllers leave their
 * status as the scenario wrote it (they only add a Paused condition).
 *
 * @module
 */
import type { Cluster } from "../../testenv/index.ts"
import {
  CLUSTER_NAME_LABEL,
  create,
  endpointOf,
  INFRA_GROUP,
  type KubeObject,
  kubeconfigSecret,
  mergePatch,
  paths,
} from "../fixtures/index.ts"
import { type ProviderKind, providerPath } from "./providers.ts"

/** What a scenario builds in: the management and workload clusters and its own namespace. */
export interface World {
  readonly mgmt: Cluster
  readonly workload: Cluster
  readonly ns: string
  /** Labels every Cluster of this run carries (krtt's run selects its Clusters by them). */
  readonly clusterLabels: Readonly<Record<string, string>>
}

/** The name of every scenario's Cluster and provider objects. */
export const NAME = "c"
export const PAUSED_ANNOTATION = "cluster.x-k8s.io/paused"
export const CONTROL_PLANE_LABEL = "cluster.x-k8s.io/control-plane"
/** A finalizer of the suite's own that keeps an object in deletion. */
export const HOLD_FINALIZER = "conformance.e2e.krtt.dev/hold"
const CAPI = "cluster.x-k8s.io/v1beta2"
const FIXED_TIME = "2026-01-01T00:00:00Z"

type Status = Record<string, unknown>

/** A condition as providers and controllers write it. */
export const cond = (type: string, status: "True" | "False" | "Unknown", reason: string, message = "") => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: FIXED_TIME,
})

/** Creates an object, then writes its status through the status subresource when given. */
export const createWithStatus = async (
  mgmt: Cluster,
  collection: string,
  object: KubeObject,
  status?: Status,
): Promise<void> => {
  await create(mgmt, collection, object)
  if (status !== undefined) await mergePatch(mgmt, `${collection}/${object.metadata.name}/status`, { status })
}

/** A provider object of kind `p` named `c`, pointing at the workload API server. */
export const provider = (
  w: World,
  p: ProviderKind,
  options: { readonly status?: Status; readonly finalizers?: ReadonlyArray<string> } = {},
): Promise<void> => {
  const endpoint = endpointOf(w.workload.server)
  const isControlPlane = p.plural.includes("controlplane")
  const object: KubeObject = {
    apiVersion: `${p.group}/${p.version}`,
    kind: p.kind,
    metadata: {
      name: NAME,
      namespace: w.ns,
      ...(options.finalizers === undefined ? {} : { finalizers: options.finalizers }),
    },
    spec: {
      controlPlaneEndpoint: endpoint,
      ...(isControlPlane ? { replicas: 1, version: "v1.34.4" } : {}),
    },
  }
  return createWithStatus(w.mgmt, providerPath(p, w.ns), object, options.status)
}

/** The Secret `c-kubeconfig` with the workload cluster's admin kubeconfig, or with `value`. */
export const kubeconfig = (w: World, value?: string): Promise<unknown> =>
  create(w.mgmt, paths.secret(w.ns), kubeconfigSecret(w.ns, NAME, value ?? w.workload.admin.kubeconfig))

export interface ClusterOptions {
  readonly infra?: ProviderKind
  readonly controlPlane?: ProviderKind
  readonly paused?: boolean
  readonly annotations?: Readonly<Record<string, string>>
  readonly topology?: Record<string, unknown>
  readonly availabilityGates?: ReadonlyArray<Record<string, string>>
  readonly status?: Status
  /** Written into `spec.controlPlaneEndpoint`: the workload API server's. */
  readonly endpoint?: boolean
}

const refOf = (p: ProviderKind) => ({ apiGroup: p.group, kind: p.kind, name: NAME })

/** The Cluster `c`. */
export const cluster = (w: World, o: ClusterOptions = {}): Promise<void> =>
  createWithStatus(
    w.mgmt,
    paths.cluster(w.ns),
    {
      apiVersion: CAPI,
      kind: "Cluster",
      metadata: {
        name: NAME,
        namespace: w.ns,
        labels: { ...w.clusterLabels },
        ...(o.annotations === undefined ? {} : { annotations: o.annotations }),
      },
      spec: {
        ...(o.endpoint === true ? { controlPlaneEndpoint: endpointOf(w.workload.server) } : {}),
        ...(o.infra === undefined ? {} : { infrastructureRef: refOf(o.infra) }),
        ...(o.controlPlane === undefined ? {} : { controlPlaneRef: refOf(o.controlPlane) }),
        ...(o.paused === undefined ? {} : { paused: o.paused }),
        ...(o.topology === undefined ? {} : { topology: o.topology }),
        ...(o.availabilityGates === undefined ? {} : { availabilityGates: o.availabilityGates }),
      },
    },
    o.status,
  )

/** The spec every descendant of the suite's Clusters gets (its refs are never read: paused). */
const machineSpec = (name: string) => ({
  clusterName: NAME,
  bootstrap: { dataSecretName: `${name}-bootstrap` },
  infrastructureRef: { apiGroup: INFRA_GROUP, kind: "E2EInfraMachine", name },
  version: "v1.34.4",
})

export interface DescendantOptions {
  readonly labels?: Readonly<Record<string, string>>
  readonly replicas?: number
  readonly status?: Status
  readonly finalizers?: ReadonlyArray<string>
  /** The uid of the Cluster `c`, to make the descendant one the Cluster owns. */
  readonly ownerUid?: string
}

const descendantMeta = (w: World, name: string, o: DescendantOptions) => ({
  name,
  namespace: w.ns,
  labels: { [CLUSTER_NAME_LABEL]: NAME, ...o.labels },
  annotations: { [PAUSED_ANNOTATION]: "" },
  ...(o.finalizers === undefined ? {} : { finalizers: o.finalizers }),
  ...(o.ownerUid === undefined
    ? {}
    : { ownerReferences: [{ apiVersion: CAPI, kind: "Cluster", name: NAME, uid: o.ownerUid }] }),
})

const collection = (w: World, plural: string) => `/apis/cluster.x-k8s.io/v1beta2/namespaces/${w.ns}/${plural}`

/** A Machine; a control plane Machine when its labels hold {@link CONTROL_PLANE_LABEL}. */
export const machine = (w: World, name: string, o: DescendantOptions = {}): Promise<void> =>
  createWithStatus(
    w.mgmt,
    collection(w, "machines"),
    {
      apiVersion: CAPI,
      kind: "Machine",
      metadata: descendantMeta(w, name, o),
      spec: machineSpec(name),
    },
    o.status,
  )

const replicated = (w: World, kind: string, plural: string, name: string, o: DescendantOptions) =>
  createWithStatus(
    w.mgmt,
    collection(w, plural),
    {
      apiVersion: CAPI,
      kind,
      metadata: descendantMeta(w, name, o),
      spec: {
        clusterName: NAME,
        replicas: o.replicas ?? 1,
        ...(kind === "MachinePool" ? {} : { selector: { matchLabels: { "e2e.krtt.dev/set": name } } }),
        template: {
          metadata: { labels: { "e2e.krtt.dev/set": name } },
          spec: machineSpec(name),
        },
      },
    },
    o.status,
  )

export const machineDeployment = (w: World, name: string, o: DescendantOptions = {}): Promise<void> =>
  replicated(w, "MachineDeployment", "machinedeployments", name, o)

export const machineSet = (w: World, name: string, o: DescendantOptions = {}): Promise<void> =>
  replicated(w, "MachineSet", "machinesets", name, o)

export const machinePool = (w: World, name: string, o: DescendantOptions = {}): Promise<void> =>
  replicated(w, "MachinePool", "machinepools", name, o)

/** A ClusterClass named `class` whose templates are never read (no topology controller runs). */
export const clusterClass = (w: World, availabilityGates?: ReadonlyArray<Record<string, string>>) =>
  create(w.mgmt, `/apis/cluster.x-k8s.io/v1beta2/namespaces/${w.ns}/clusterclasses`, {
    apiVersion: CAPI,
    kind: "ClusterClass",
    metadata: { name: "class", namespace: w.ns },
    spec: {
      controlPlane: {
        templateRef: {
          apiVersion: "controlplane.e2e.krtt.dev/v1alpha1",
          kind: "E2EControlPlaneTemplate",
          name: "t",
        },
      },
      infrastructure: {
        templateRef: { apiVersion: `${INFRA_GROUP}/v1alpha1`, kind: "E2EInfraClusterTemplate", name: "t" },
      },
      ...(availabilityGates === undefined ? {} : { availabilityGates }),
    },
  })

/** Deletes the Cluster `c` (its deletion then waits on what the scenario holds). */
export const deleteCluster = async (w: World): Promise<void> => {
  const r = await w.mgmt.request("DELETE", paths.cluster(w.ns, NAME))
  if (r.status !== 200 && r.status !== 202)
    throw new Error(`DELETE Cluster ${w.ns}/${NAME}: HTTP ${r.status}`)
}
