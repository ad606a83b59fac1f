/**
 * The (controller, cluster) pairs of one multi-cluster controller and their scopes: the
 * engagement the table left, the cluster of the current generation, the provider's scope of it
 * (`lifetime`), the cluster filters' verdicts, and the engage scope of each generation.
 *
 * # Expected flow
 * `engage` records the cluster and its lifetime on the pair (`pairOf`) and judges the filters;
 * the table's `StartCache` opens the generation's engage scope (`openEngageScope`) as a child of
 * the lifetime; the steps of that engagement (waiting for the caches, indexes, sources) and the
 * sources themselves run in it (`inEngageScope`); `CancelEngageScope` closes it
 * (`closeEngageScope`), and so does the lifetime closing when the cluster leaves.
 *
 * # Guarantees
 * - A pair holds at most one engage scope per generation; opening one closes the old one first.
 * - Work started in an engage scope stops when it closes: a step interrupted there reports
 *   nothing, so a later attempt of the same generation never takes an outcome of an earlier one.
 * - Without a lifetime (the cluster left) no engage scope is opened and no step starts.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { absent, type Engagement } from "../../core/multicluster/index.ts"
import type { Cluster, ClusterName } from "./types.ts"

/** A cluster filter's verdict on a cluster: unset when there is no filter. */
export type Verdict = "accept" | "reject" | undefined

/** The verdicts of the controller's filter and of each watch's, by watch name. */
export interface Filters {
  readonly controller: Verdict
  readonly watches: ReadonlyMap<string, Verdict>
}

/** No filter (the hub's: filters apply to provider clusters only). */
export const noFilters: Filters = { controller: undefined, watches: new Map() }

/** The verdict of `filter` on `cluster`. */
export const judge = (filter: ((cluster: Cluster) => boolean) | undefined, cluster: Cluster): Verdict =>
  filter === undefined ? undefined : filter(cluster) ? "accept" : "reject"

/** One (controller, cluster) pair. */
export interface Pair {
  /** What the engagement table left for the pair. */
  engagement: Engagement
  /** The cluster of the current generation. */
  cluster: Cluster | undefined
  /** The provider's scope of the current generation: engage scopes are its children. */
  lifetime: Scope.Scope | undefined
  /** The cluster filters' verdicts, taken when the cluster was added or replaced. */
  filter: Filters
  /** Engage scopes by generation (normally at most one). */
  readonly engageScopes: Map<string, Scope.Closeable>
}

/** The state of one pair, for `krtt clusters`, tests and logs. */
export interface PairView {
  readonly cluster: ClusterName
  readonly state: Engagement["state"]["_tag"]
  readonly generation: string | undefined
  readonly dropped: number
}

/** The pairs of one controller, by cluster. */
export type Pairs = Map<ClusterName, Pair>

/** The pair of `cluster`, made `Absent` on first use. */
export const pairOf = (pairs: Pairs, cluster: ClusterName): Pair => {
  let pair = pairs.get(cluster)
  if (pair === undefined) {
    pair = {
      engagement: absent,
      cluster: undefined,
      lifetime: undefined,
      filter: noFilters,
      engageScopes: new Map(),
    }
    pairs.set(cluster, pair)
  }
  return pair
}

/** The views of every pair. */
export const pairViews = (pairs: Pairs): ReadonlyArray<PairView> =>
  [...pairs.entries()].map(([cluster, p]) => ({
    cluster,
    state: p.engagement.state._tag,
    generation: p.engagement.state._tag === "Absent" ? undefined : p.engagement.state.generation,
    dropped: p.engagement.dropped,
  }))

/** Closes the engage scope of `generation`, if open (`CancelEngageScope`; idempotent). */
export const closeEngageScope = (pair: Pair, generation: string): Effect.Effect<void> =>
  Effect.suspend(() => {
    const scope = pair.engageScopes.get(generation)
    if (scope === undefined) return Effect.void
    pair.engageScopes.delete(generation)
    return Scope.close(scope, Exit.void)
  })

/** Opens the engage scope of `generation` in the pair's lifetime; `false` without a lifetime. */
export const openEngageScope = (pair: Pair, generation: string): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    yield* closeEngageScope(pair, generation)
    const lifetime = pair.lifetime
    if (lifetime === undefined) return false
    pair.engageScopes.set(generation, yield* Scope.fork(lifetime))
    return true
  })

/**
 * Runs `step` on a fiber of the engage scope of `generation`, then `report` with its result on
 * the same fiber, uninterruptibly (a report may close this very scope: Effect skips the closing
 * fiber itself when it interrupts the scope's fibers). Nothing runs when that scope is not open,
 * and nothing is reported when it closed while the step ran.
 */
export const inEngageScope = <A>(
  pair: Pair,
  generation: string,
  step: (scope: Scope.Scope) => Effect.Effect<A>,
  report: (result: A) => Effect.Effect<void>,
): Effect.Effect<void> =>
  Effect.suspend(() => {
    const scope = pair.engageScopes.get(generation)
    if (scope === undefined) return Effect.void
    const reportIfOpen = (result: A) =>
      Effect.suspend(() => (pair.engageScopes.get(generation) === scope ? report(result) : Effect.void))
    return Effect.asVoid(
      Effect.forkIn(
        Effect.flatMap(Effect.interruptible(step(scope)), (result) =>
          Effect.uninterruptible(reportIfOpen(result)),
        ),
        scope,
        { startImmediately: false },
      ),
    )
  })
