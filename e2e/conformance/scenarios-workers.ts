/**
 * The differential suite's scenarios about a Cluster's descendants: MachineDeployments,
 * MachineSets, Machines and MachinePools in each state the Cluster's status aggregates
 * (available or not, rolling out, scaling up or down, ready or not, up to date or not, unhealthy
 * and remediated), and the deletion of a Cluster whose descendants are held by a finalizer.
 *
 * @module
 */
import { create, getObject, mergePatch, paths } from "../fixtures/index.ts"
import { caSecret } from "./ca.ts"
import {
  CONTROL_PLANE_LABEL,
  cluster,
  cond,
  deleteCluster,
  HOLD_FINALIZER,
  machine,
  machineDeployment,
  machinePool,
  machineSet,
  NAME,
  PAUSED_ANNOTATION,
  provider,
  type World,
} from "./objects.ts"
import { PROVIDERS } from "./providers.ts"
import { conditionStatus, deleting, inState, type Scenario } from "./scenario.ts"
import { CP_INITIALIZED, INFRA_PROVISIONED, v1beta2Cluster } from "./scenarios-providers.ts"

const replicas = (n: number, ready = n, available = ready, upToDate = available) => ({
  replicas: n,
  readyReplicas: ready,
  availableReplicas: available,
  upToDateReplicas: upToDate,
})

const connected = inState("Provisioned", { RemoteConnectionProbe: "True", ControlPlaneInitialized: "True" })
const ready = (w: World) => v1beta2Cluster(w, INFRA_PROVISIONED, CP_INITIALIZED)

const healthy = [
  cond("Ready", "True", "Ready"),
  cond("UpToDate", "True", "UpToDate"),
  cond("Available", "True", "Available"),
]

const workersAvailable = async (w: World) => {
  await machineDeployment(w, "md-a", {
    replicas: 2,
    status: {
      ...replicas(2),
      conditions: [
        cond("Available", "True", "Available"),
        cond("RollingOut", "False", "NotRollingOut"),
        cond("ScalingUp", "False", "NotScalingUp"),
        cond("ScalingDown", "False", "NotScalingDown"),
      ],
    },
  })
  await machineSet(w, "md-a-1", {
    replicas: 2,
    labels: { "cluster.x-k8s.io/deployment-name": "md-a" },
    status: { ...replicas(2), conditions: [cond("ScalingUp", "False", "NotScalingUp")] },
  })
  for (const name of ["md-a-1-x", "md-a-1-y"])
    await machine(w, name, {
      labels: { "cluster.x-k8s.io/deployment-name": "md-a", "cluster.x-k8s.io/set-name": "md-a-1" },
      status: { conditions: healthy },
    })
  await machinePool(w, "mp-a", { replicas: 3, status: { ...replicas(3) } })
  await ready(w)
}

const workersDegraded = async (w: World) => {
  await machineDeployment(w, "md-b", {
    replicas: 3,
    status: {
      ...replicas(2, 1, 1, 0),
      conditions: [
        cond("Available", "False", "NotAvailable", "1 available replicas, at least 2 required"),
        cond("RollingOut", "True", "RollingOut", "Rolling out 2 not up-to-date replicas"),
        cond("ScalingUp", "True", "ScalingUp", "Scaling up from 2 to 3 replicas"),
        cond("ScalingDown", "False", "NotScalingDown"),
      ],
    },
  })
  await machineDeployment(w, "md-c", {
    replicas: 1,
    status: {
      ...replicas(3),
      conditions: [
        cond("Available", "True", "Available"),
        cond("ScalingDown", "True", "ScalingDown", "Scaling down from 3 to 1 replicas"),
      ],
    },
  })
  await machine(w, "w-not-ready", {
    status: {
      conditions: [
        cond("Ready", "False", "NotReady", "* NodeHealthy: Node not ready"),
        cond("UpToDate", "False", "NotUpToDate", "* Version v1.33.0, v1.34.4 required"),
      ],
    },
  })
  await machine(w, "w-unhealthy", {
    status: {
      conditions: [
        cond("Ready", "True", "Ready"),
        cond("UpToDate", "True", "UpToDate"),
        cond("HealthCheckSucceeded", "False", "UnhealthyNode", "Node failed the health check"),
        cond("OwnerRemediated", "False", "WaitingForRemediation", "Waiting for remediation"),
      ],
    },
  })
  await machine(w, "w-unknown", {
    status: { conditions: [cond("Ready", "Unknown", "ReadyUnknown", "no news")] },
  })
  await ready(w)
}

const controlPlaneMachines = async (w: World) => {
  await machine(w, "cp-ready", { labels: { [CONTROL_PLANE_LABEL]: "" }, status: { conditions: healthy } })
  await machine(w, "cp-not-ready", {
    labels: { [CONTROL_PLANE_LABEL]: "" },
    status: {
      conditions: [
        cond("Ready", "False", "NotReady", "* EtcdMemberHealthy: member not started"),
        cond("UpToDate", "False", "NotUpToDate", "* Version v1.33.0, v1.34.4 required"),
        cond("HealthCheckSucceeded", "False", "UnhealthyNode", "Node failed the health check"),
      ],
    },
  })
  await machine(w, "cp-silent", { labels: { [CONTROL_PLANE_LABEL]: "" } })
  await ready(w)
}

const standaloneAndPools = async (w: World) => {
  await machineSet(w, "ms-alone", {
    replicas: 1,
    status: {
      ...replicas(3),
      conditions: [cond("ScalingDown", "True", "ScalingDown", "Scaling down from 3 to 1")],
    },
  })
  await machineDeployment(w, "md-silent", { replicas: 2 })
  await machinePool(w, "mp-b", {
    replicas: 2,
    status: { ...replicas(1, 0, 0, 0), conditions: [cond("Available", "False", "NotAvailable", "0 of 2")] },
  })
  await machine(w, "mp-b-x", {
    labels: { "cluster.x-k8s.io/pool-name": "mp-b" },
    status: { conditions: [cond("Ready", "False", "NotReady", "pool machine")] },
  })
  await ready(w)
}

const heldDescendants = async (w: World) => {
  const hold = { finalizers: [HOLD_FINALIZER] }
  await machineDeployment(w, "md-held", { ...hold, status: { ...replicas(1) } })
  await machineSet(w, "ms-held", { ...hold, status: { ...replicas(1) } })
  await machinePool(w, "mp-held", { ...hold, status: { ...replicas(1) } })
  await machine(w, "m-held", { ...hold, status: { conditions: healthy } })
  await machine(w, "cp-held", {
    ...hold,
    labels: { [CONTROL_PLANE_LABEL]: "" },
    status: { conditions: healthy },
  })
  await ready(w)
}

/** No control plane provider: the control plane is made of Machines, one with a Node. */
const standaloneControlPlane = async (w: World) => {
  await create(w.mgmt, paths.secret(w.ns), caSecret(w.ns, NAME))
  const cp = { [CONTROL_PLANE_LABEL]: "" }
  await machine(w, "cp-node", {
    labels: cp,
    status: { nodeRef: { name: "node-a" }, conditions: healthy },
  })
  await machine(w, "cp-booting", {
    labels: cp,
    status: { conditions: [cond("Ready", "False", "NotReady", "booting")] },
  })
  await provider(w, PROVIDERS.infraV1beta2, { status: INFRA_PROVISIONED })
  await cluster(w, { infra: PROVIDERS.infraV1beta2 })
}

/** Descendants the Cluster owns, held by a finalizer: upstream deletes owned descendants only. */
const heldOwnedDescendants = async (w: World) => {
  await ready(w)
  const uid = (await getObject(w.mgmt, paths.cluster(w.ns, NAME)))?.metadata.uid
  if (uid === undefined) throw new Error(`Cluster ${w.ns}/${NAME} has no uid`)
  const hold = { finalizers: [HOLD_FINALIZER], ownerUid: uid }
  await machineDeployment(w, "md-owned", { ...hold, status: { ...replicas(1) } })
  await machineSet(w, "ms-owned", { ...hold, status: { ...replicas(1) } })
  await machinePool(w, "mp-owned", { ...hold, status: { ...replicas(1) } })
  await machine(w, "m-owned", { ...hold, status: { conditions: healthy } })
  await machine(w, "cp-owned", {
    ...hold,
    labels: { [CONTROL_PLANE_LABEL]: "" },
    status: { conditions: healthy },
  })
}

export const WORKER_SCENARIOS: ReadonlyArray<Scenario> = [
  { name: "workers-available", setup: workersAvailable, settled: connected },
  { name: "workers-degraded", setup: workersDegraded, settled: connected },
  { name: "control-plane-machines", setup: controlPlaneMachines, settled: connected },
  { name: "machinesets-and-pools", setup: standaloneAndPools, settled: connected },
  {
    name: "deleting-descendants",
    setup: heldDescendants,
    settled: connected,
    next: { run: deleteCluster, settled: deleting },
  },
  {
    name: "control-plane-without-provider",
    setup: standaloneControlPlane,
    settled: inState("Provisioned", { InfrastructureReady: "True" }),
  },
  {
    name: "deleting-paused",
    setup: ready,
    settled: connected,
    next: {
      run: async (w) => {
        await mergePatch(w.mgmt, paths.cluster(w.ns, NAME), {
          metadata: { annotations: { [PAUSED_ANNOTATION]: "" } },
        })
        await deleteCluster(w)
      },
      settled: (c) => c?.metadata.deletionTimestamp !== undefined && conditionStatus(c, "Paused") === "True",
    },
  },
  {
    name: "deleting-owned-descendants",
    setup: heldOwnedDescendants,
    settled: connected,
    next: { run: deleteCluster, settled: deleting },
  },
]
