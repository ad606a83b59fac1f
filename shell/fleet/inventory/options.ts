/**
 * What `krtt inventory`'s `addToManager` takes and gives, and the error of options it cannot run
 * with.
 *
 * @module
 */
import * as Data from "effect/Data"
import type { InventoryConfig } from "../../../core/inventory/index.ts"
import type { MultiClusterController } from "../../multicluster/index.ts"
import type { Request } from "../../workqueue/request.ts"

export interface InventoryOptions {
  /** Namespace of the ConfigMap on the hub. */
  readonly namespace: string
  /** Name of the ConfigMap. Default `krtt-inventory`. */
  readonly name?: string | undefined
  /** The numbers (debounce, poll, version refresh, retry); defaults `InventoryDefaults`. */
  readonly config?: Partial<InventoryConfig> | undefined
  /** How long a stop waits for in-flight reconciles (the manager's `--graceful-shutdown-timeout`). */
  readonly gracefulShutdownTimeout?: number | undefined
}

/** What `addToManager` returns. */
export interface InventoryController {
  readonly hub: MultiClusterController
  readonly nodes: MultiClusterController
  /** The one hub request. */
  readonly request: Request
}

/** Options the inventory cannot run with (no namespace). Not retryable: fix the flags. */
export class InventoryOptionsError extends Data.TaggedError("InventoryOptionsError")<{
  readonly message: string
}> {}
