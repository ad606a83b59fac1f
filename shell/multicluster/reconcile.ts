/**
 * The request path of a multi-cluster controller: every request a worker takes is a run of its
 * pair's engagement table with `RequestArrived` (rows 12, 17-19): reconciled while the pair is
 * engaged, requeued while an engagement is under way, dropped otherwise.
 *
 * # Guarantees
 * - The reconciler runs only when the table answers `Reconcile`, with the request in the
 *   controller's request type and its cluster in context (`currentCluster`).
 * - The reconciler's own result and errors are the controller's; otherwise the run's result
 *   (`reconcileResult`) carries the deciding row.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import { Outcome, type TableLoopError } from "../../core/krtt/run.ts"
import type { ReconcileResult } from "../controller/result.ts"
import { reconcileResult, runTable } from "../controller/table.ts"
import type { Request } from "../workqueue/request.ts"
import { withCluster } from "./context.ts"
import type { ControllerState } from "./controllerState.ts"
import { engagementTable } from "./engagementRun.ts"
import type { ClusterAware } from "./request.ts"

/** Reconciles one queued request through the engagement table of its cluster. */
export const reconcileRequest =
  <Req extends ClusterAware, E>(
    state: ControllerState<Req>,
    reconcile: (request: Req) => Effect.Effect<ReconcileResult, E>,
  ) =>
  (request: Request): Effect.Effect<ReconcileResult, E | TableLoopError> =>
    Effect.gen(function* () {
      // The reconciler's result, when the table asked for it (the runner's outcomes carry no result).
      let result: ReconcileResult | undefined
      const cluster = state.pairs.get(request.cluster)?.cluster
      const own = reconcile(state.requestType.fromQueue(request))
      const run = Effect.map(cluster === undefined ? own : withCluster(cluster)(own), (r) => {
        result = r
        return Outcome.done
      })
      const ran = yield* runTable(engagementTable(state, request.cluster, run), {
        _tag: "RequestArrived",
        namespace: request.namespace,
        name: request.name,
      })
      return result ?? (yield* reconcileResult(ran, (failure: never) => failure))
    })
