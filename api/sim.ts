/**
 * `krtt/sim`: the fleet simulator. A deterministic discrete-event world of Cluster slots on a
 * virtual clock, whose providers provision, API servers fail and credentials rotate, driven by
 * the pure ClusterCache and Cluster controller tables (or cores of your own), with the seeds'
 * invariants checked on every step. `Simulation` runs one fleet in process; `runFleet` spreads a
 * large one over worker threads.
 *
 * @module
 */
export * from "../sim/index.ts"
