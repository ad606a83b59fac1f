/**
 * `krtt propagate`'s decisions (seed 003, Goals 1, a uniform multi-cluster controller sourcing
 * from the hub): table `propagate.copy` (what one source's copy must be in one
 * cluster) and the source-level summary (finalizer, `krtt.io/propagated-to`). Pure: the shell
 * in `shell/fleet/` reads the clusters and performs the actions.
 *
 * @module
 */
import { copyTransition } from "./copy.ts"
import { CopyInputSchema } from "./schema.ts"
import { PROPAGATE_COPY } from "./types.ts"

export * from "./config.ts"
export * from "./copy.ts"
export * from "./schema.ts"
export * from "./summary.ts"
export * from "./types.ts"

/** The transitions by table id. */
export const transitions = { [PROPAGATE_COPY]: copyTransition } as const

/** The input schemas by table id. */
export const inputSchemas = { [PROPAGATE_COPY]: CopyInputSchema } as const
