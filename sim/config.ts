/**
 * The simulation's configuration: the fleet, the virtual duration, the seed, how long providers
 * take, how often faults strike, and the bounds the invariants allow. Durations are milliseconds,
 * rates are per cluster and per hour. {@link SimDefaults} is what `krtt simulate` runs without
 * flags; {@link simConfig} overrides parts of it.
 *
 * @module
 */

// The modules themselves, not the index: the index re-exports the input schemas, which load
// effect (250 modules, ~60 MiB) in every worker for nothing.
import { type ClusterControllerConfig, ClusterControllerDefaults } from "../core/cluster/config.ts"
import { type ClusterCacheConfig, ClusterCacheDefaults } from "../core/clustercache/config.ts"
import type { Incident } from "./scenario.ts"

/** A duration drawn uniformly from [min, max] ms. */
export interface Range {
  readonly min: number
  readonly max: number
}

export interface ProviderTimes {
  /** From creation until the infrastructure provider reports the InfraCluster provisioned. */
  readonly infrastructureProvision: Range
  /** From the infrastructure being provisioned until the control plane is initialized. */
  readonly controlPlaneInitialize: Range
  /** From a delete request until a Machine, MachineSet or MachineDeployment is gone. */
  readonly workerDelete: Range
  readonly controlPlaneDelete: Range
  readonly infrastructureDelete: Range
  /** Fraction of Clusters whose infrastructure provider never finishes (they are not expected to provision). */
  readonly stuckFraction: number
}

export interface ApiServerBehaviour {
  /** Time a successful Connect() takes (REST config, clients, cache sync). */
  readonly connectDuration: Range
  readonly outageDuration: Range
  readonly slowDuration: Range
  /** Response time while slow: more than the probe timeout (5 s), less than the client timeout (10 s). */
  readonly slowLatency: Range
  /** From a credential rotation until the kubeconfig Secret holds the new credentials. */
  readonly kubeconfigFixAfter: Range
}

export interface FaultRates {
  /** API server outages per cluster-hour. */
  readonly outage: number
  /** Slow periods (past the probe timeout) per cluster-hour. */
  readonly slow: number
  /** Credential rotations per cluster-hour. */
  readonly rotation: number
}

export interface Churn {
  /** Creations are spread uniformly over [0, window) from the start of the run. */
  readonly creationWindow: number
  /** Cluster deletions per cluster-hour, once a Cluster exists. */
  readonly deletionRate: number
  /** How long after its Cluster is gone a slot gets a new one. */
  readonly recreateAfter: Range
  /** MachineDeployments per Cluster, each with one MachineSet. */
  readonly machineDeployments: Range
  /** Machines per MachineSet. */
  readonly machinesPerSet: Range
}

export interface CheckBounds {
  /**
   * A Cluster whose providers are done and whose API server is healthy must be Provisioned and
   * connected within this time (retry interval + probe interval + connect time, with room).
   */
  readonly connectedWithin: number
  /**
   * A Cluster's accessor must be gone this long after the Cluster is: the ClusterCache reconciles
   * at once, unless a connect or probe is in flight (at most two slow responses, 18 s).
   */
  readonly accessorGoneWithin: number
  /** More Cluster controller reconciles of one Cluster at one instant than this is a storm. */
  readonly maxReconcilesPerInstant: number
  /** How many violations of each check are kept with their details (all are counted). */
  readonly keepExamples: number
}

/** A whole simulation: the fleet, the virtual time, the seed, and how providers, API servers and faults behave. */
export interface SimConfig {
  /** Cluster slots in the fleet; each holds one Cluster at a time. */
  readonly clusters: number
  /** Virtual duration, hours. */
  readonly hours: number
  readonly seed: number
  /**
   * What the core sees as `now` at virtual time 0, ms since the Unix epoch. Default 0: the times
   * the core writes (condition transition times) read as offsets from the start of the run, and
   * they stay small integers, which keeps the accessors' fields unboxed.
   */
  readonly epoch: number
  readonly faults: FaultRates
  readonly providers: ProviderTimes
  readonly apiServer: ApiServerBehaviour
  readonly churn: Churn
  readonly checks: CheckBounds
  readonly clusterCache: ClusterCacheConfig
  readonly clusterController: ClusterControllerConfig
  /** Incidents at given times on given clusters, besides the random ones. */
  readonly scenario: ReadonlyArray<Incident>
  /** Length of one sample of the time series (connected clusters, probe failures, reconciles). */
  readonly sampleEvery: number
}

const s = 1_000
const min = 60 * s

/** The defaults: a day of a fleet with a few faults per cluster per week. */
export const SimDefaults: SimConfig = {
  clusters: 100,
  hours: 24,
  seed: 1,
  epoch: 0,
  faults: { outage: 0.01, slow: 0.005, rotation: 0.005 },
  providers: {
    infrastructureProvision: { min: 1 * min, max: 4 * min },
    controlPlaneInitialize: { min: 2 * min, max: 6 * min },
    workerDelete: { min: 10 * s, max: 60 * s },
    controlPlaneDelete: { min: 20 * s, max: 90 * s },
    infrastructureDelete: { min: 30 * s, max: 2 * min },
    stuckFraction: 0.005,
  },
  apiServer: {
    connectDuration: { min: 200, max: 2 * s },
    outageDuration: { min: 1 * min, max: 15 * min },
    slowDuration: { min: 1 * min, max: 10 * min },
    slowLatency: { min: 6 * s, max: 9 * s },
    kubeconfigFixAfter: { min: 10 * s, max: 5 * min },
  },
  churn: {
    creationWindow: 10 * min,
    deletionRate: 0.005,
    recreateAfter: { min: 1 * min, max: 10 * min },
    machineDeployments: { min: 0, max: 2 },
    machinesPerSet: { min: 1, max: 3 },
  },
  checks: {
    connectedWithin: 90 * s,
    accessorGoneWithin: 30 * s,
    maxReconcilesPerInstant: 20,
    keepExamples: 20,
  },
  clusterCache: ClusterCacheDefaults,
  clusterController: ClusterControllerDefaults,
  scenario: [],
  sampleEvery: min,
}

/** A partial configuration: every group may be given in part. */
export interface SimConfigOverrides {
  readonly clusters?: number
  readonly hours?: number
  readonly seed?: number
  readonly epoch?: number
  readonly faults?: Partial<FaultRates>
  readonly providers?: Partial<ProviderTimes>
  readonly apiServer?: Partial<ApiServerBehaviour>
  readonly churn?: Partial<Churn>
  readonly checks?: Partial<CheckBounds>
  readonly clusterCache?: ClusterCacheConfig
  readonly clusterController?: ClusterControllerConfig
  readonly scenario?: ReadonlyArray<Incident>
  readonly sampleEvery?: number
}

/** The defaults with the given values overridden. */
export const simConfig = (o: SimConfigOverrides = {}): SimConfig => ({
  ...SimDefaults,
  ...o,
  faults: { ...SimDefaults.faults, ...o.faults },
  providers: { ...SimDefaults.providers, ...o.providers },
  apiServer: { ...SimDefaults.apiServer, ...o.apiServer },
  churn: { ...SimDefaults.churn, ...o.churn },
  checks: { ...SimDefaults.checks, ...o.checks },
})

/** Whether an incident applies to a slot. */
export const appliesTo = (incident: Incident, slot: number): boolean => {
  if (incident.clusters === undefined) return true
  for (const [from, to] of incident.clusters) if (slot >= from && slot <= to) return true
  return false
}
