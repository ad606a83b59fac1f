/**
 * Table `propagate.copy` for one source in one workload cluster, run by the table runner
 * (`runTable`, shell/controller/table.ts): the pair's part of a source's reconcile.
 *
 * # Expected flow
 * `Observe` (from the cache) → `copyTransition` → each action carried out (`interpret.ts`); a
 * create that found no namespace asks again with it missing (row 1), a write refused for want of
 * permission asks again as forbidden (row 7), any other refusal asks again on a live read. An
 * answer of `Clean` from the cache is checked once more on a live read before it counts (a
 * finalizer may be released on it).
 *
 * # Guarantees
 * - The pair ends `Synced`, `Clean`, `Blocked`, `Conflict` or `InvalidSelector` as its last
 *   answer says, or fails with the refusal no answer followed (`runPair`'s error), or with the
 *   error of its observation. A refusal for want of permission always ends `Blocked` (row 7).
 * - At most `maxTransitions` answers per run: a table that loops fails with `TableLoopError`.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { TableLoopError } from "../../../core/krtt/run.ts"
import type { RowId } from "../../../core/krtt/types.ts"
import {
  type ClusterOutcome,
  type CopyAction,
  type CopyObserved,
  type CopyResult,
  type CopyStatus,
  copyTransition,
  PROPAGATE_COPY,
  type PropagateConfig,
  type Target,
} from "../../../core/propagate/index.ts"
import type { CacheError } from "../../cache/types.ts"
import { runTable, type Table } from "../../controller/table.ts"
import type { KubeError } from "../../kube/errors.ts"
import { interpret, type PairOutcome, type PairTrigger } from "./interpret.ts"
import {
  type CopyPlace,
  type Follow,
  forbiddenCopy,
  observeCopy,
  type SeenCopy,
  targetOf,
} from "./observe.ts"

/** What one cluster's part of a source's reconcile ended with. */
export interface ClusterRun {
  readonly outcome: ClusterOutcome
  /** The Warning Events its last answer asks for on the source. */
  readonly events: ReadonlyArray<{ readonly reason: string; readonly message: string }>
  /** The row of its last answer; none when it failed. */
  readonly row: RowId | undefined
}

/** What a pair needs besides its place: the numbers, the cluster's labels, how to follow. */
export interface PairDeps {
  readonly config: PropagateConfig
  readonly labels: Readonly<Record<string, string>>
  readonly follow: Follow
  /** The copy's namespace in a cluster for a source namespace (`copyNamespace`). */
  readonly namespaceOf: (cluster: string, sourceNamespace: string) => string
}

/** Why a pair failed: its observation, a refusal no answer followed, a loop. */
export type PairError = CacheError | TableLoopError

/** The pair's table, with the state its answers were decided on. */
interface PairTable extends Table<PairTrigger, CopyAction, CopyStatus, KubeError, CacheError, never> {
  /** The refusal that ended the run unanswered, if any. */
  readonly unanswered: () => KubeError | undefined
  /** Whether the last observation was read from the API server. */
  readonly live: () => boolean
}

const makePairTable = (place: CopyPlace, target: Target, deps: PairDeps): PairTable => {
  let seen: SeenCopy = forbiddenCopy
  let namespace: CopyObserved["namespace"] = "Unknown"
  let live = false
  let unanswered: KubeError | undefined
  const decide = (trigger: PairTrigger): Effect.Effect<CopyResult, CacheError> =>
    Effect.gen(function* () {
      unanswered = undefined
      if (trigger._tag === "Observe") {
        seen = yield* observeCopy(place, trigger.live, deps.follow)
        namespace = "Unknown"
        live = trigger.live
      } else if (trigger._tag === "NamespaceMissing") namespace = "Missing"
      else [seen, namespace, live] = [forbiddenCopy, "Unknown", true]
      const observed = { source: place.source, copy: seen.copy, access: seen.access, namespace }
      const desired = { cluster: place.cluster.name, target }
      return copyTransition({ observed, desired, trigger: { _tag: "SourceChanged" }, now: 0 }, deps.config)
    })
  const run = (action: CopyAction): Effect.Effect<PairOutcome> =>
    interpret({
      client: place.cluster.client,
      namespaceOf: (ns) => deps.namespaceOf(place.cluster.name, ns),
      resourceVersion: seen.resourceVersion,
      namespaceMissing: namespace === "Missing",
    })(action).pipe(
      Effect.tap((outcome) =>
        Effect.sync(() => {
          if (outcome._tag === "Failed") unanswered = outcome.failure
        }),
      ),
    )
  return {
    table: PROPAGATE_COPY,
    maxTransitions: 8,
    decide,
    run,
    unanswered: () => unanswered,
    live: () => live,
  }
}

const eventsOf = (result: CopyResult): ClusterRun["events"] =>
  result.actions.flatMap((a) => (a._tag === "SourceEvent" ? [{ reason: a.reason, message: a.message }] : []))

/**
 * One run of the pair's table from `first`. A refusal for want of permission that ends a run
 * unanswered (it came after another refusal) is answered by row 7 in a run of its own.
 */
const attempt = (
  place: CopyPlace,
  target: Target,
  deps: PairDeps,
  first: PairTrigger,
): Effect.Effect<{ readonly run: ClusterRun; readonly live: boolean }, PairError> =>
  Effect.gen(function* () {
    const table = makePairTable(place, target, deps)
    const run = yield* runTable(table, first)
    yield* Effect.logDebug("propagated").pipe(
      Effect.annotateLogs({
        cluster: place.cluster.name,
        source: `${place.source.kind} ${place.source.namespace}/${place.source.name}`,
        row: run.last.row,
      }),
    )
    const refused = table.unanswered()
    if (refused?._tag === "Forbidden" && first._tag !== "Refused")
      return yield* attempt(place, target, deps, { _tag: "Refused" })
    if (refused !== undefined) return yield* Effect.fail(refused)
    const outcome = {
      cluster: place.cluster.name,
      targeted: target._tag !== "NotSelected",
      status: run.last.status,
    }
    return { run: { outcome, events: eventsOf(run.last), row: run.last.row }, live: table.live() }
  })

/**
 * One cluster's part of a source's reconcile: from the cache first, again from the API server
 * when the cache's answer would release the copy (`Clean`: a finalizer may go on it).
 */
export const runPair = (place: CopyPlace, deps: PairDeps): Effect.Effect<ClusterRun, PairError> =>
  Effect.gen(function* () {
    const target = targetOf(place.source.content.annotations, place.cluster.name, deps.labels)
    const first = yield* attempt(place, target, deps, { _tag: "Observe", live: false })
    if (first.run.outcome.status !== "Clean" || first.live) return first.run
    return (yield* attempt(place, target, deps, { _tag: "Observe", live: true })).run
  })
