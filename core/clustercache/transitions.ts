/**
 * The ClusterCache transitions by table id.
 *
 * @module
 */
import { accessorTransition } from "./accessor.ts"
import { errorsTransition } from "./errors.ts"
import { eventsTransition } from "./events.ts"
import { healthTransition } from "./health.ts"
import { reconcilerTransition } from "./reconciler.ts"
import { watchTransition } from "./watch.ts"

export const transitions = {
  "clustercache.reconciler": reconcilerTransition,
  "clustercache.accessor": accessorTransition,
  "clustercache.health": healthTransition,
  "clustercache.watch": watchTransition,
  "clustercache.events": eventsTransition,
  "clustercache.errors": errorsTransition,
} as const
