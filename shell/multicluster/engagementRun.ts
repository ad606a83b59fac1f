/**
 * One pair's engagement table on the shared table runner (`runTable`, shell/controller/table.ts):
 * `decide` (observe.ts) and `run` (interpret.ts) of the pair of one cluster, and `feed`, which
 * runs the table for a trigger that the provider, a timer or a finished step brings.
 *
 * # Guarantees
 * - Every trigger of a pair is one run of the table: decided, its actions carried out in order,
 *   and a `next` outcome (`StartCache` → `CacheStarted`) decided in the same run.
 * - A run that loops past `ENGAGEMENT_BOUND` ends in a `TableLoopError`: a request's run fails
 *   with it, a fed trigger's run logs it.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import { Outcome, type TableBound, type TableLoopError } from "../../core/krtt/run.ts"
import {
  ENGAGEMENT,
  type Engagement,
  type EngagementAction,
  type EngagementTrigger,
} from "../../core/multicluster/index.ts"
import { runTable, type Table } from "../controller/table.ts"
import { type ControllerState, logFor } from "./controllerState.ts"
import { type EngagementOutcome, type Feed, interpret } from "./interpret.ts"
import { decide } from "./observe.ts"
import type { ClusterAware } from "./request.ts"
import type { ClusterName } from "./types.ts"

/** The bound of one run: the longest chain is `StartCache` → `CacheStarted` → `WaitForCacheSync`. */
export const ENGAGEMENT_BOUND: TableBound = { table: ENGAGEMENT, maxTransitions: 8 }

/** The table of the pair of `cluster`; `reconcile` carries out a request's `Reconcile`. */
export const engagementTable = <Req extends ClusterAware, E>(
  state: ControllerState<Req>,
  cluster: ClusterName,
  reconcile: Effect.Effect<EngagementOutcome, E>,
): Table<EngagementTrigger, EngagementAction, Engagement, never, E, never> => ({
  ...ENGAGEMENT_BOUND,
  decide: decide(state, cluster),
  run: interpret(state, { cluster, feed: feedFor(state), reconcile }),
})

/** Runs the table of a pair for a trigger outside a request (provider, timer, finished step). */
export const feedFor =
  <Req extends ClusterAware>(state: ControllerState<Req>): Feed =>
  (cluster, trigger) =>
    runTable(engagementTable(state, cluster, Effect.succeed(Outcome.done)), trigger).pipe(
      Effect.asVoid,
      Effect.catch((e: TableLoopError) =>
        logFor(state, "warn", e.message, cluster, { trigger: trigger._tag }),
      ),
    )
