/**
 * `krtt/core` (also `krtt`): the documented transition tables as pure functions. Each table maps
 * `(observed, desired, trigger)` to `(actions, status)` and names the documented row that decided
 * it; `decide` and `explain` run any table, `tables` lists every one with its transition, default
 * configuration and input schema. The areas are namespaces: `clustercache` (seed 000), `cluster`
 * (seed 001), `scopedcache` (seed 002), `multicluster` (seed 003), `ipam` (seed 004), and the
 * fleet controllers' `propagate` and `inventory`.
 *
 * Nothing here does I/O: these functions are what the runtimes interpret and what the simulator
 * embeds.
 *
 * @module
 */
export * as cluster from "../core/cluster/index.ts"
export * as clustercache from "../core/clustercache/index.ts"
export * as inventory from "../core/inventory/index.ts"
export * as ipam from "../core/ipam/index.ts"
export {
  type AnyTableSpec,
  type Decision,
  decide,
  type Explanation,
  explain,
  findRow,
  idOf,
  type RowSpec,
  type TableSpec,
} from "../core/krtt/table.ts"
export {
  type InputOf,
  parseRowId,
  type RowId,
  rowId,
  type Transition,
  type TransitionInput,
  type TransitionResult,
} from "../core/krtt/types.ts"
export * as multicluster from "../core/multicluster/index.ts"
export * as propagate from "../core/propagate/index.ts"
export * as scopedcache from "../core/scopedcache/index.ts"
export { bindingOf as tableOf, bindings as tables, type TableBinding } from "../shell/krtt/registry.ts"
export { version } from "../shell/krtt/version.ts"
