/**
 * The order in which Cluster API v1.14.2 lists an object's v1beta2 conditions
 * (`util/conditions`' default sort): a fixed order of the known types, the other types (the
 * availability gates, other controllers' conditions) by name before Paused and Deleting.
 *
 * @module
 */
import type { Condition } from "./types.ts"

/** `""` stands for every type not named. */
const ORDER = [
  "Available",
  "Ready",
  "UpToDate",
  "RemoteConnectionProbe",
  "BootstrapConfigReady",
  "InfrastructureReady",
  "ControlPlaneInitialized",
  "ControlPlaneAvailable",
  "WorkersAvailable",
  "CertificatesAvailable",
  "Initialized",
  "EtcdClusterHealthy",
  "ControlPlaneComponentsHealthy",
  "NodeHealthy",
  "NodeReady",
  "NodeKubeadmLabelsAndTaintsSet",
  "EtcdPodHealthy",
  "EtcdMemberHealthy",
  "APIServerPodHealthy",
  "ControllerManagerPodHealthy",
  "SchedulerPodHealthy",
  "HealthCheckSucceeded",
  "OwnerRemediated",
  "TopologyReconciled",
  "Updating",
  "RollingOut",
  "Remediating",
  "ScalingDown",
  "ScalingUp",
  "MachinesReady",
  "ControlPlaneMachinesReady",
  "WorkerMachinesReady",
  "MachinesUpToDate",
  "ControlPlaneMachinesUpToDate",
  "WorkerMachinesUpToDate",
  "",
  "Paused",
  "Deleting",
] as const

const RANK = new Map<string, number>(ORDER.map((t, i) => [t, i]))
const OTHERS = RANK.get("") as number

const rank = (type: string): number => RANK.get(type) ?? OTHERS

/** The conditions in upstream's order (a new array; equal types keep their order). */
export const sortConditions = (conditions: ReadonlyArray<Condition>): Array<Condition> =>
  [...conditions].sort(
    (a, b) => rank(a.type) - rank(b.type) || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0),
  )
