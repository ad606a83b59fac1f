/**
 * `krtt propagate` (seed 003, Goals 1): copies every hub ConfigMap and Secret labelled
 * `krtt.io/propagate: "true"` into every engaged cluster (docs/fleet.md). `addToManager` adds its
 * controllers to a multi-cluster manager; `runPropagate` runs them as a process.
 *
 * @module
 */
export { addToManager } from "./controller.ts"
export { kubeconfigSecretLabels, sourceOf, targetOf } from "./observe.ts"
export type { PropagateOptions, Propagator } from "./options.ts"
export { PendingConfigMap } from "./pending.ts"
export { makePropagateCacheFactory, type PropagateRunOptions, runPropagate } from "./process.ts"
