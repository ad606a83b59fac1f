/**
 * The scoped cache's transitions by table id.
 *
 * @module
 */
import { informersTransition } from "./informers.ts"
import { lifecycleTransition } from "./lifecycle.ts"
import { readsTransition } from "./reads.ts"

export const transitions = {
  "scopedcache.informers": informersTransition,
  "scopedcache.lifecycle": lifecycleTransition,
  "scopedcache.reads": readsTransition,
} as const
