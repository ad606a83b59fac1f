/**
 * Get, List and GetInformer served only by existing informers (seed 002, DynamicScopedCache),
 * transcribed.
 *
 * @module
 */
import type { TableSpec } from "../../core/krtt/index.ts"
import type { ReadsInput, ReadsResult, ScopedCacheOptions } from "../../core/scopedcache/index.ts"
import { KRTT_COLUMNS, rowsFor } from "../builder.ts"
import { BOTH_LEVELS } from "./resolutions.ts"

type In = ReadsInput
type Res = ReadsResult
type Summary = In["observed"]["informers"][number]

const { doc, derived } = rowsFor<In, Res, ScopedCacheOptions>(KRTT_COLUMNS)

const gvkId = (g: { readonly group: string; readonly version: string; readonly kind: string }) =>
  `${g.group}/${g.version}/${g.kind}`
const id = (ref: Summary["ref"]) => `${ref.namespace}|${gvkId(ref.gvk)}|${ref.key}`

/**
 * Who may answer a Get or List, in the seed's terms: the cluster-level informers of the GVK (the
 * Wrapper's clusterGVKs) and, for a namespace, its namespace-level informers that no cluster-level
 * informer covers; a List without namespace uses every namespace's.
 */
const answering = (i: In): ReadonlyArray<Summary> => {
  if (i.trigger._tag === "GetInformer") return []
  const ns = i.trigger.namespace
  const g = gvkId(i.trigger.gvk)
  return i.observed.informers.filter((x) => {
    if (gvkId(x.ref.gvk) !== g) return false
    if (x.ref.namespace === "") return true
    if (ns === "" || x.state === "Covered") return false
    return ns === undefined || x.ref.namespace === ns
  })
}
const isRead = (i: In) => i.trigger._tag !== "GetInformer"
const named = (i: In) =>
  i.trigger._tag === "GetInformer"
    ? i.observed.informers.find((x) => id(x.ref) === id((i.trigger as { readonly ref: Summary["ref"] }).ref))
    : undefined

const servesExactly = (r: Res, from: ReadonlyArray<Summary>, merge: boolean) =>
  r.status.outcome === "serve" &&
  r.status.merge === merge &&
  r.status.from.length === from.length &&
  from.every((x) => r.status.outcome === "serve" && r.status.from.some((f) => id(f) === id(x.ref))) &&
  r.status.waitForSync === from.some((x) => x.state !== "Synced") &&
  r.actions.length === 0

const fails = (r: Res, tag: string) =>
  r.status.outcome === "error" && r.status.error._tag === tag && r.actions.length === 0

export const reads: TableSpec<In, Res, ScopedCacheOptions> = {
  id: "scopedcache.reads",
  source: "002_3ec470ea16f97b3b.txt",
  title: "Reads: Get, List, GetInformer from existing informers",
  columns: KRTT_COLUMNS,
  rows: [
    doc(
      1,
      [
        "No informer answers",
        "Get, List or GetInformer",
        "No registered informer of the GVK covers the asked scope (or the named informer is not registered)",
        "Do not create one",
        "`InformerNotFound` (not the API's NotFound)",
      ],
      {
        applies: (i) =>
          isRead(i) ? i.observed.started && answering(i).length === 0 : named(i) === undefined,
        holds: (_, r) => fails(r, "InformerNotFound"),
        reason:
          'Seed: Get and List "will only attempt to use the existing informers ... and will NOT automatically create a new informer"; the custom error answers the Open Question on "Not Found" (resolutions).',
      },
    ),
    doc(
      2,
      [
        "Started; informers answer",
        "Get(key, gvk)",
        "Some informer covers the object's namespace (cluster-level, or the namespace's own)",
        "Read from those informers, cluster-level first; wait for any not synced",
        "The object from the first store that has it, else the API's NotFound",
      ],
      {
        applies: (i) => i.trigger._tag === "Get" && i.observed.started && answering(i).length > 0,
        holds: (i, r) => servesExactly(r, answering(i), false),
        reason:
          'Seed: "Use informers to GET a given resource"; telescopia tries every informer of the namespace and GVK.',
      },
    ),
    doc(
      3,
      [
        "Started; informers answer",
        "List(listOpts, gvk) in one namespace",
        "Some informer covers the namespace",
        "Read from those informers; wait for any not synced",
        "Their objects merged without duplicates",
      ],
      {
        applies: (i) =>
          i.trigger._tag === "List" &&
          i.trigger.namespace !== undefined &&
          i.observed.started &&
          answering(i).length > 0,
        holds: (i, r) => servesExactly(r, answering(i), true),
        reason: 'Seed: "Use informers to LIST resources ... For a particular namespace".',
      },
    ),
    doc(
      4,
      [
        "Started; informers answer",
        "List(listOpts, gvk) across namespaces",
        "Some informer of the GVK is registered",
        "Read from the cluster-level informers and every namespace's own informers; wait for any not synced",
        "Their objects merged without duplicates",
      ],
      {
        applies: (i) =>
          i.trigger._tag === "List" &&
          i.trigger.namespace === undefined &&
          i.observed.started &&
          answering(i).length > 0,
        holds: (i, r) => servesExactly(r, answering(i), true),
        reason:
          'Seed: "Use informers to LIST resources - For all namespaces currently tracked" and, for the cluster cache, "across the cluster". Covered namespace-level informers are left out: the cluster-level informer has their objects (see the both-levels resolution).',
      },
    ),
    derived(5, ["Not started", "Get or List", "Start has not run", "Nothing", "`CacheNotStarted`"], {
      applies: (i) => isRead(i) && !i.observed.started,
      holds: (_, r) => fails(r, "CacheNotStarted"),
      reason:
        "controller-runtime's cache answers reads before Start with ErrCacheNotStarted; informers registered before Start are pending and would never sync.",
    }),
    derived(
      6,
      [
        "Informer registered",
        "GetInformer(scope, gvk, key)",
        "The named informer exists",
        "Return it; a covered namespace-level informer is answered by the cluster-level one that covers it",
        "The informer",
      ],
      {
        applies: (i) => i.trigger._tag === "GetInformer" && named(i) !== undefined,
        holds: (i, r) => {
          const own = named(i)
          if (own === undefined || r.status.outcome !== "serve" || r.status.from.length !== 1) return false
          const got = r.status.from[0]
          if (got === undefined) return false
          if (own.state !== "Covered") return id(got) === id(own.ref)
          const cover = i.observed.informers.find(
            (x) =>
              x.ref.namespace === "" && x.ref.key === own.ref.key && gvkId(x.ref.gvk) === gvkId(own.ref.gvk),
          )
          return id(got) === id((cover ?? own).ref)
        },
        reason:
          "The Wrapper's GetInformer returns the informer that meets the request; reads never create informers (resolutions), and it may be asked before Start (its informer then runs once started).",
      },
    ),
  ],
  priority: [],
  resolutions: [
    "Rows are disjoint: GetInformer by whether the named informer exists; Get and List by Start, then by whether any informer answers, then by the operation.",
    BOTH_LEVELS,
  ],
}
