/**
 * Reads (seed 002, `Get` and `List` of the DynamicScopedCache, and the Wrapper's `GetInformer`):
 * which informers answer, served only by informers that exist ("will NOT automatically create a
 * new informer").
 *
 * # Expected flow
 * The shell asks this table which informers serve a read, then answers from their stores: `Get`
 * returns the object from the first informer that has it (the API's NotFound when none has it),
 * `List` merges their objects without duplicates (by UID).
 *
 * # Guarantees
 * - No informer for the read → `InformerNotFound`, never the API's NotFound (resolution of the
 *   seed's open question on custom errors).
 * - A namespace is served by the cluster-level informers of the GVK and by its own namespace-level
 *   informers that are not `Covered` (a covered one's objects are in the cluster-level informer).
 *
 * @module
 */
import { type RowId, rowId, type TransitionInput, type TransitionResult } from "../krtt/index.ts"
import type { ScopedCacheAction } from "./actions.ts"
import type { InformerSummary } from "./lifecycle.ts"
import type { ScopedCacheOptions } from "./options.ts"
import { CLUSTER_SCOPE, type Gvk, gvkString, type InformerRef, isClusterLevel, refString } from "./types.ts"

export const READS = "scopedcache.reads"

export interface ReadsObserved {
  readonly started: boolean
  /**
   * The registered informers of the read's GVK: every cluster-level one, and the namespace-level
   * ones of the read's namespace (of every namespace for a `List` across namespaces, and the named
   * informer's namespace for `GetInformer`).
   */
  readonly informers: ReadonlyArray<InformerSummary>
}

export type ReadsTrigger =
  /** `Get(key, gvk)`; `namespace` "" for a cluster-scoped object. */
  | { readonly _tag: "Get"; readonly gvk: Gvk; readonly namespace: string; readonly name: string }
  /** `List(listOpts, gvk)`; `namespace` absent to list across every namespace. */
  | { readonly _tag: "List"; readonly gvk: Gvk; readonly namespace?: string | undefined }
  /** The informer for a scope, GVK and key (the Wrapper's `GetInformer`). */
  | { readonly _tag: "GetInformer"; readonly ref: InformerRef }

export type ReadError =
  /** No informer exists that could answer (distinct from the API's NotFound). */
  | { readonly _tag: "InformerNotFound"; readonly message: string }
  /** A Get or List before `Start` (controller-runtime's ErrCacheNotStarted). */
  | { readonly _tag: "CacheNotStarted"; readonly message: string }

export type ReadsStatus =
  | {
      readonly outcome: "serve"
      /** The informers whose stores answer, cluster-level first. */
      readonly from: ReadonlyArray<InformerRef>
      /** Whether the answer must wait for some of them to sync. */
      readonly waitForSync: boolean
      /** Whether several stores' objects are merged (without duplicates, by UID). */
      readonly merge: boolean
    }
  | { readonly outcome: "error"; readonly error: ReadError }

export type ReadsInput = TransitionInput<ReadsObserved, Record<string, never>, ReadsTrigger>
export type ReadsResult = TransitionResult<ScopedCacheAction, ReadsStatus>

const r = (n: number): RowId => rowId(READS, n)
/** Row ids of `scopedcache.reads`. */
export const READS_ROW = {
  noInformer: r(1),
  get: r(2),
  listNamespace: r(3),
  listAll: r(4),
  notStarted: r(5),
  getInformer: r(6),
} as const

const NONE: ReadonlyArray<ScopedCacheAction> = []

const sameGvk = (a: Gvk, b: Gvk) => a.group === b.group && a.version === b.version && a.kind === b.kind

/** The informers that serve a namespace ("" = cluster-scoped objects only; undefined = all). */
const servingInformers = (
  informers: ReadonlyArray<InformerSummary>,
  gvk: Gvk,
  namespace: string | undefined,
): ReadonlyArray<InformerSummary> => {
  const ofGvk = informers.filter((i) => sameGvk(i.ref.gvk, gvk))
  const cluster = ofGvk.filter((i) => isClusterLevel(i.ref))
  // Stryker disable next-line ConditionalExpression
  if (namespace === CLUSTER_SCOPE) return cluster
  const local = ofGvk.filter(
    (i) =>
      !isClusterLevel(i.ref) &&
      i.state !== "Covered" &&
      (namespace === undefined || i.ref.namespace === namespace),
  )
  return [...cluster, ...local]
}

const notFound = (what: string): ReadsResult => ({
  actions: NONE,
  status: { outcome: "error", error: { _tag: "InformerNotFound", message: `no informer for ${what}` } },
  row: READS_ROW.noInformer,
})

const serve = (from: ReadonlyArray<InformerSummary>, merge: boolean, row: RowId): ReadsResult => ({
  actions: NONE,
  status: {
    outcome: "serve",
    from: from.map((i) => i.ref),
    waitForSync: from.some((i) => i.state !== "Synced"),
    merge,
  },
  row,
})

const scopeText = (gvk: Gvk, namespace: string | undefined) =>
  `${gvkString(gvk)}${namespace === undefined ? " in any namespace" : namespace === "" ? " at cluster level" : ` in namespace ${namespace}`}`

/** `scopedcache.reads` as a transition. */
export const readsTransition = (input: ReadsInput, _options: ScopedCacheOptions): ReadsResult => {
  const { observed, trigger } = input
  if (trigger._tag === "GetInformer") {
    const { ref } = trigger
    const own = observed.informers.find(
      (i) => i.ref.namespace === ref.namespace && i.ref.key === ref.key && sameGvk(i.ref.gvk, ref.gvk),
    )
    if (own === undefined) return notFound(refString(ref))
    const by =
      own.state === "Covered"
        ? observed.informers.find(
            (i) => isClusterLevel(i.ref) && i.ref.key === ref.key && sameGvk(i.ref.gvk, ref.gvk),
          )
        : own
    return serve([by ?? own], false, READS_ROW.getInformer)
  }
  if (!observed.started) {
    return {
      actions: NONE,
      status: {
        outcome: "error",
        error: { _tag: "CacheNotStarted", message: "the cache is not started, can not read objects" },
      },
      row: READS_ROW.notStarted,
    }
  }
  const namespace = trigger.namespace
  const from = servingInformers(observed.informers, trigger.gvk, namespace)
  if (from.length === 0) return notFound(scopeText(trigger.gvk, namespace))
  if (trigger._tag === "Get") return serve(from, false, READS_ROW.get)
  return namespace === undefined
    ? serve(from, true, READS_ROW.listAll)
    : serve(from, true, READS_ROW.listNamespace)
}
