/**
 * What a Cluster controller reconcile reads of a slot: the Cluster, its InfraCluster, its control
 * plane, its MachineDeployments with their MachineSets and Machines, the kubeconfig Secret and
 * the ClusterCache's last successful probe, built from the slot's plain state (`world.ts`) as
 * the core's `ClusterObserved`. The Cluster's metadata is built once per change of the slot
 * (`Slot.metaCache`); the rest is built on each call.
 *
 * @module
 */

// The modules themselves, not the index: the index re-exports the input schemas, which load
// effect (250 modules, ~60 MiB) in every worker for nothing.
import { rfc3339 } from "../core/cluster/conditions.ts"
import { ClusterApiVersion, ClusterNameLabel } from "../core/cluster/contract.ts"
import type {
  ClusterObserved,
  Condition,
  ControlPlane,
  Descendants,
  InfrastructureCluster,
  Machine,
  MachineGroup,
  ObjectMeta,
  OwnerReference,
} from "../core/cluster/types.ts"
import type { AccessorState } from "../core/clustercache/index.ts"
import { NAMESPACE, type Slot } from "./world.ts"

const NOT_FOUND_FETCH = { _tag: "NotFound" } as const
const FOUND_LOOKUP = { _tag: "Found" } as const
const GATES = { runtimeSDK: false, clusterTopology: false, machinePool: false } as const
const ENDPOINT_PORT = 6443

const readyCondition = (ready: boolean, time: string): Condition =>
  ready
    ? { type: "Ready", status: "True", reason: "Ready", lastTransitionTime: time }
    : { type: "Ready", status: "False", reason: "Provisioning", lastTransitionTime: time }

/** A Cluster's view of its objects: the common metadata of what it owns. */
interface Owned {
  readonly s: Slot
  /** When the Cluster was created, as conditions carry it. */
  readonly time: string
  readonly epochNow: number
  readonly labels: Readonly<Record<string, string>>
  readonly meta: (name: string, owned: boolean, deleting: boolean) => ObjectMeta
}

const ownedBy = (s: Slot, epoch: number, epochNow: number): Owned => {
  const owner: OwnerReference = { apiVersion: ClusterApiVersion, kind: "Cluster", name: s.name, uid: s.uid }
  const labels = { [ClusterNameLabel]: s.name }
  const meta = (name: string, owned: boolean, deleting: boolean): ObjectMeta => ({
    name,
    namespace: NAMESPACE,
    uid: `${s.uid}-${name}`,
    ...(owned ? { labels, ownerReferences: [owner] } : {}),
    ...(deleting ? { deletionTimestamp: rfc3339(epochNow) } : {}),
  })
  return { s, time: rfc3339(epoch + s.createdAt), epochNow, labels, meta }
}

/** The InfraCluster, provisioned or not. */
const observeInfrastructure = ({ s, time, meta }: Owned): ClusterObserved["infrastructure"] => {
  if (!s.infraExists) return NOT_FOUND_FETCH
  const object: InfrastructureCluster = {
    metadata: meta(s.name, s.infraOwned, s.infraDeleting),
    spec: s.infraProvisioned
      ? { controlPlaneEndpoint: { host: `${s.name}.fleet.example`, port: ENDPOINT_PORT } }
      : {},
    status: {
      initialization: { provisioned: s.infraProvisioned },
      ...(s.infraProvisioned ? { failureDomains: FAILURE_DOMAINS } : {}),
      conditions: [readyCondition(s.infraProvisioned, time)],
    },
  }
  return { _tag: "Found", object }
}

/** The control plane: three replicas once initialized. */
const observeControlPlane = ({ s, time, meta }: Owned): ClusterObserved["controlPlane"] => {
  if (!s.cpExists) return NOT_FOUND_FETCH
  const n = s.cpInitialized ? 3 : 0
  const object: ControlPlane = {
    metadata: meta(s.name, s.cpOwned, s.cpDeleting),
    spec: {
      replicas: 3,
      ...(s.cpInitialized
        ? { controlPlaneEndpoint: { host: `${s.name}.fleet.example`, port: ENDPOINT_PORT } }
        : {}),
    },
    status: {
      initialization: { controlPlaneInitialized: s.cpInitialized },
      replicas: n,
      readyReplicas: n,
      availableReplicas: n,
      upToDateReplicas: n,
      conditions: [
        {
          type: "Available",
          status: s.cpInitialized ? "True" : "False",
          reason: s.cpInitialized ? "Available" : "NotAvailable",
          lastTransitionTime: time,
        },
      ],
    },
  }
  return { _tag: "Found", object }
}

/** The MachineDeployments not gone, each with its MachineSet and Machines. */
const observeDescendants = ({ s, time, epochNow, labels, meta }: Owned): Descendants => {
  const machineDeployments: Array<MachineGroup> = []
  const machineSets: Array<MachineGroup> = []
  const machines: Array<Machine> = []
  for (const w of s.workers) {
    if (w.gone) continue
    const counters = {
      replicas: w.machines,
      readyReplicas: w.machines,
      availableReplicas: w.machines,
      upToDateReplicas: w.machines,
    }
    machineDeployments.push({
      metadata: meta(w.name, true, w.deleting),
      spec: { replicas: w.machines },
      status: {
        ...counters,
        conditions: [{ type: "Available", status: "True", reason: "Available", lastTransitionTime: time }],
      },
    })
    const msName = `${w.name}-ms`
    const msOwner: OwnerReference = { apiVersion: ClusterApiVersion, kind: "MachineDeployment", name: w.name }
    machineSets.push({
      metadata: {
        name: msName,
        namespace: NAMESPACE,
        labels,
        ownerReferences: [msOwner],
        ...(w.deleting ? { deletionTimestamp: rfc3339(epochNow) } : {}),
      },
      spec: { replicas: w.machines },
      status: counters,
    })
    const mOwner: OwnerReference = { apiVersion: ClusterApiVersion, kind: "MachineSet", name: msName }
    for (let i = 0; i < w.machines; i++) {
      machines.push({
        metadata: {
          name: `${msName}-${i}`,
          namespace: NAMESPACE,
          labels,
          ownerReferences: [mOwner],
          ...(w.deleting ? { deletionTimestamp: rfc3339(epochNow) } : {}),
        },
        status: { nodeRef: { name: `${msName}-${i}` }, conditions: MACHINE_CONDITIONS },
      })
    }
  }
  return { _tag: "Listed", machineDeployments, machineSets, machinePools: [], machines }
}

/** Builds what one Cluster controller reconcile reads, from the slot's state at `epochNow`. */
export const observeCluster = (
  s: Slot,
  accessor: AccessorState | undefined,
  epoch: number,
  epochNow: number,
): ClusterObserved => {
  const owned = ownedBy(s, epoch, epochNow)
  const infrastructure = observeInfrastructure(owned)
  const controlPlane = observeControlPlane(owned)
  const descendants = observeDescendants(owned)
  const lastProbeSuccessTime = accessor?.lastProbeSuccessTime
  return {
    cluster: s.exists
      ? {
          _tag: "Found",
          object: { metadata: clusterMeta(s), ...(s.status === undefined ? {} : { status: s.status }) },
        }
      : NOT_FOUND_FETCH,
    clusterClass: NOT_FOUND_FETCH,
    infrastructure,
    controlPlane,
    descendants,
    kubeconfigSecret: s.kubeconfig ? FOUND_LOOKUP : NOT_FOUND_FETCH,
    featureGates: GATES,
    remoteConnection: lastProbeSuccessTime === undefined ? {} : { lastProbeSuccessTime },
  }
}

const clusterMeta = (s: Slot) => {
  if (s.metaCache === undefined) {
    s.metaCache = {
      name: s.name,
      namespace: NAMESPACE,
      uid: s.uid,
      generation: 1,
      finalizers: s.finalizers,
      ...(s.deletionTimestamp === undefined ? {} : { deletionTimestamp: s.deletionTimestamp }),
    }
  }
  return s.metaCache as ObjectMeta & { readonly namespace: string }
}

const FAILURE_DOMAINS = [
  { name: "zone-a", controlPlane: true },
  { name: "zone-b", controlPlane: true },
  { name: "zone-c", controlPlane: true },
]
const MACHINE_CONDITIONS: ReadonlyArray<Condition> = [
  { type: "Ready", status: "True", reason: "Ready" },
  { type: "Available", status: "True", reason: "Available" },
  { type: "UpToDate", status: "True", reason: "UpToDate" },
]
