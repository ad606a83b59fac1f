/**
 * `krtt inventory` (seed 003, Goals 2): one hub ConfigMap `krtt-inventory` with a key per
 * engaged cluster (docs/fleet.md). `addToManager` adds its controllers to a multi-cluster
 * manager; `runInventory` runs them as a process.
 *
 * @module
 */
export { addToManager } from "./controller.ts"
export { inventoryClusters, inventoryDecisions, inventoryWrites } from "./metrics.ts"
export { NodesResource, nodeReady, readinessChanged } from "./observe.ts"
export { type InventoryController, type InventoryOptions, InventoryOptionsError } from "./options.ts"
export { type InventoryRunOptions, runInventory } from "./process.ts"
