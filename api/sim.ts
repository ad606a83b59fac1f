/**
 * `krtt/sim`: the fleet simulator. A deterministic discrete-event world of Cluster slots on a
 * virtual clock, whose providers provision, API servers fail and credentials rotate, driven by
 * the pure ClusterCache and Cluster controller tables (or cores of your own), with the seeds'
 * invariants checked on every step. `Simulation` runs one fleet in process; `runFleet` spreads a
 * large one over worker threads. `clustercache` and `cluster` are `krtt/core`'s namespaces, for
 * building cores.
 *
 * @module
 */
export * as cluster from "../core/cluster/index.ts"
export * as clustercache from "../core/clustercache/index.ts"
export { type SimConfig, type SimConfigOverrides, SimDefaults, simConfig } from "../sim/config.ts"
export { type ClusterControllerCore, defaultCores, type SimCores } from "../sim/cores.ts"
export { type FleetOptions, type FleetResult, runFleet } from "../sim/fleet.ts"
export { type CheckName, CheckNames, formatViolation, type Violation } from "../sim/invariants.ts"
export { EventQueue } from "../sim/queue.ts"
export { type Incident, parseScenario, ScenarioError } from "../sim/scenario.ts"
export { Simulation } from "../sim/simulation.ts"
export type { SimSummary } from "../sim/summary.ts"
