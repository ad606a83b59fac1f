/**
 * Carries out the engagement table's actions for one pair (`multicluster.engagement`; the
 * table's "the shell does" column in `core/multicluster/index.ts`): one typed `run(action)`
 * answering the table runner with an `Outcome`.
 *
 * # Expected flow
 * | action | carried out | outcome |
 * | --- | --- | --- |
 * | `StartCache` | opens the generation's engage scope (the cluster's cache runs from the provider's first engagement: it only has to exist) | next `CacheStarted` |
 * | `WaitForCacheSync` | waits, at most `timeout` ms, for the watches' informers, in the engage scope | done; later `CacheSynced` or `CacheSyncFailed` |
 * | `ApplyIndexes` | adds the manager's indexes to the cluster's cache, in the engage scope | done; later `IndexesApplied` |
 * | `StartSources` | starts one source per listed watch in the engage scope; once engaged, replays fan-outs | done; later `SourcesStarted` or `EngageFailed` |
 * | `CancelEngageScope` | closes the engage scope: sources and steps of that engagement stop | done |
 * | `RetryAfter` | arms a timer in the pair's lifetime | done; later `RetryDue` |
 * | `Log` | writes the line with the row | done |
 * | `Reconcile` | runs the reconciler (only in a request's run) | done |
 * | `RequeueRequest` | nothing | requeue after `after` ms |
 * | `DropRequest` | logs the first drop since the last engagement | done |
 *
 * # Guarantees
 * - No action blocks on a cluster's I/O: steps that wait run on fibers of the engage scope and
 *   report their outcome as a new run of the table (`feed`), so a slow cluster delays only its
 *   own pair; a step interrupted by the scope closing reports nothing (`pairs.ts`).
 * - Every outcome a step reports carries the generation it ran for.
 *
 * @module
 */
import type * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { Outcome } from "../../core/krtt/run.ts"
import type { EngagementAction, EngagementResult, EngagementTrigger } from "../../core/multicluster/index.ts"
import type { CacheError } from "../cache/types.ts"
import { type ControllerState, logFor } from "./controllerState.ts"
import { closeEngageScope, inEngageScope, openEngageScope, type Pair, pairOf } from "./pairs.ts"
import type { ClusterAware } from "./request.ts"
import type { Cluster, ClusterName } from "./types.ts"
import { replayFor, startSources, syncInformers } from "./watches.ts"

/** What carrying out an engagement action tells the table runner. */
export type EngagementOutcome = Outcome<EngagementTrigger, never>

/** Runs the table for a trigger of a pair that a step reports (a new run). */
export type Feed = (cluster: ClusterName, trigger: EngagementTrigger) => Effect.Effect<void>

/** What a run of one pair's table needs besides the controller's state. */
export interface RunContext<E> {
  readonly cluster: ClusterName
  readonly feed: Feed
  /** Runs the reconciler for the run's request (`Reconcile`); done outside a request's run. */
  readonly reconcile: Effect.Effect<EngagementOutcome, E>
}

/** The messages of a step's failures, for the table's `error` fields. */
const failureText = (cause: Cause.Cause<CacheError>): string =>
  cause.reasons.map((r) => (r._tag === "Fail" ? r.error.message : r._tag)).join("; ")

/** `WaitForCacheSync`: the trigger the wait ends in. */
const waitForSync = <Req extends ClusterAware>(
  state: ControllerState<Req>,
  cluster: Cluster,
  generation: string,
  timeout: number,
): Effect.Effect<EngagementTrigger> =>
  Effect.map(
    Effect.exit(Effect.timeoutOption(syncInformers(state, cluster), Duration.millis(timeout))),
    (exit) =>
      Exit.isSuccess(exit)
        ? exit.value._tag === "Some"
          ? { _tag: "CacheSynced", generation }
          : {
              _tag: "CacheSyncFailed",
              generation,
              timedOut: true,
              error: `the informers did not sync within ${timeout} ms`,
            }
        : { _tag: "CacheSyncFailed", generation, timedOut: false, error: failureText(exit.cause) },
  )

/** `StartSources`: starts the sources, reports the outcome, and replays fan-outs once engaged. */
const engageSources = <Req extends ClusterAware>(
  state: ControllerState<Req>,
  pair: Pair,
  cluster: Cluster,
  action: Extract<EngagementAction, { readonly _tag: "StartSources" }>,
  feed: Feed,
): Effect.Effect<void> =>
  inEngageScope(
    pair,
    action.generation,
    (scope) => Effect.exit(startSources(state, cluster, action.watches, scope)),
    (started) =>
      Effect.gen(function* () {
        yield* feed(
          cluster.name,
          Exit.isSuccess(started)
            ? { _tag: "SourcesStarted", generation: action.generation }
            : {
                _tag: "EngageFailed",
                generation: action.generation,
                step: "sources",
                error: failureText(started.cause),
              },
        )
        // The replay reads informers: it stays interruptible, unlike the report around it.
        if (pair.engagement.state._tag === "Engaged" && pair.cluster === cluster)
          yield* Effect.interruptible(replayFor(state, cluster))
      }),
  )

/** The steps that need the pair's cluster; done without one (it left). */
const clusterStep = <Req extends ClusterAware>(
  state: ControllerState<Req>,
  pair: Pair,
  cluster: Cluster,
  action: Extract<
    EngagementAction,
    { readonly _tag: "StartCache" | "WaitForCacheSync" | "ApplyIndexes" | "StartSources" }
  >,
  feed: Feed,
): Effect.Effect<EngagementOutcome> => {
  const { generation } = action
  switch (action._tag) {
    case "StartCache":
      return Effect.map(openEngageScope(pair, generation), (opened) =>
        opened ? Outcome.next<EngagementTrigger>({ _tag: "CacheStarted", generation }) : Outcome.done,
      )
    case "WaitForCacheSync":
      return Effect.as(
        inEngageScope(
          pair,
          generation,
          () => waitForSync(state, cluster, generation, action.timeout),
          (trigger) => feed(cluster.name, trigger),
        ),
        Outcome.done,
      )
    case "ApplyIndexes":
      return Effect.as(
        inEngageScope(
          pair,
          generation,
          () => state.host.applyIndexes(cluster),
          () => feed(cluster.name, { _tag: "IndexesApplied", generation }),
        ),
        Outcome.done,
      )
    case "StartSources":
      return Effect.as(engageSources(state, pair, cluster, action, feed), Outcome.done)
  }
}

/** The table runner's `run` for the pair of `context.cluster`. */
export const interpret =
  <Req extends ClusterAware, E>(state: ControllerState<Req>, context: RunContext<E>) =>
  (action: EngagementAction, decided: EngagementResult): Effect.Effect<EngagementOutcome, E> => {
    const pair = pairOf(state.pairs, context.cluster)
    switch (action._tag) {
      case "StartCache":
      case "WaitForCacheSync":
      case "ApplyIndexes":
      case "StartSources":
        return pair.cluster === undefined
          ? Effect.succeed(Outcome.done)
          : clusterStep(state, pair, pair.cluster, action, context.feed)
      case "CancelEngageScope":
        return Effect.as(closeEngageScope(pair, action.generation), Outcome.done)
      case "RetryAfter":
        return Effect.as(
          Effect.forkIn(
            Effect.andThen(
              Effect.sleep(Duration.millis(action.after)),
              context.feed(context.cluster, { _tag: "RetryDue" }),
            ),
            pair.lifetime ?? state.scope,
          ),
          Outcome.done,
        )
      case "Log":
        return Effect.as(
          logFor(state, action.level, action.message, context.cluster, { row: decided.row }),
          Outcome.done,
        )
      case "Reconcile":
        return context.reconcile
      case "RequeueRequest":
        return Effect.succeed(Outcome.requeue(action.after))
      case "DropRequest":
        return Effect.as(action.log ? logDrop(state, action) : Effect.void, Outcome.done)
    }
  }

/** The one log line of a departure: the first request dropped since the last engagement. */
const logDrop = <Req extends ClusterAware>(
  state: ControllerState<Req>,
  action: Extract<EngagementAction, { readonly _tag: "DropRequest" }>,
): Effect.Effect<void> => {
  const queued = { cluster: action.cluster as ClusterName, namespace: action.namespace, name: action.name }
  return Effect.logInfo("dropping requests of a cluster that is not engaged").pipe(
    Effect.annotateLogs({
      controller: state.name,
      request: state.requestType.format(state.requestType.fromQueue(queued)),
      reason: action.reason,
      detail: action.detail,
    }),
  )
}
