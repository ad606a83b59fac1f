/**
 * The rows of table `multicluster.engagement` (seed 003, "Multi-Cluster Support") by name, as
 * `spec/multicluster/engagement.ts` transcribes them: rows 1-14 from the seed, 15-24 derived.
 *
 * @module
 */
import { type RowId, rowId } from "../krtt/index.ts"
import { ENGAGEMENT } from "./types.ts"

const r = (n: number): RowId => rowId(ENGAGEMENT, n)

/** The table's rows by name. */
export const ENGAGEMENT_ROWS = {
  hubEngage: r(1),
  hubExcluded: r(2),
  providerEngage: r(3),
  noProvider: r(4),
  providerDisabled: r(5),
  hubOnlyWatches: r(6),
  cacheStarted: r(7),
  cacheSynced: r(8),
  indexesApplied: r(9),
  sourcesStarted: r(10),
  removed: r(11),
  reconcile: r(12),
  reentrant: r(13),
  engageFailed: r(14),
  filtered: r(15),
  newGeneration: r(16),
  dropNotFound: r(17),
  dropNotEngaged: r(18),
  requeueWhileEngaging: r(19),
  retryDue: r(20),
  retryEarly: r(21),
  unhealthy: r(22),
  healthy: r(23),
  ignored: r(24),
} as const
