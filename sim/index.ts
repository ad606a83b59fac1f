/**
 * The fleet simulator: the pure cores of `core/` embedded, unmodified, in a deterministic
 * discrete-event world with a virtual clock, with the invariants of seeds 000 and 001 checked
 * while it runs. `docs/simulation.md` explains the model, the invariants and the scenario format.
 *
 * The cores are re-exported too, so that one import is enough to embed them in a simulation of
 * one's own (see `examples/`).
 *
 * @module
 */
export * as cluster from "../core/cluster/index.ts"
export * as clustercache from "../core/clustercache/index.ts"
export * as krtt from "../core/krtt/index.ts"
export * from "./config.ts"
export * from "./cores.ts"
export * from "./fleet.ts"
export * from "./invariants.ts"
export { observeCluster } from "./observeCluster.ts"
export { EventQueue } from "./queue.ts"
export { hashString, Rng, splitmix32 } from "./random.ts"
export { renderReport } from "./report.ts"
export * from "./scenario.ts"
export * from "./simulation.ts"
export * from "./stats.ts"
export * from "./summary.ts"
export * from "./trace.ts"
export { CLUSTER_VIEWS, Slot, slotName, type WorkerGroup } from "./world.ts"
