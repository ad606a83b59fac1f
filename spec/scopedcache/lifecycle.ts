/**
 * Start, IsStarted and WaitForCacheSync (seed 002, DynamicScopedCache and Wrapper), transcribed.
 *
 * @module
 */
import type { TableSpec } from "../../core/krtt/index.ts"
import {
  type InformerRef,
  type LifecycleInput,
  type LifecycleResult,
  refString,
  type ScopedCacheOptions,
} from "../../core/scopedcache/index.ts"
import { KRTT_COLUMNS, rowsFor } from "../builder.ts"

type In = LifecycleInput
type Res = LifecycleResult

const { doc, derived } = rowsFor<In, Res, ScopedCacheOptions>(KRTT_COLUMNS)

/** The informer's whole ref (scope, group, version, kind, key): two GVKs may share a kind. */
const key = (r: { readonly ref: InformerRef }) => refString(r.ref)
const informersKept = (i: In, r: Res) =>
  r.status.informers.length === i.observed.informers.length &&
  r.status.informers.every(
    (x, k) => x.state === i.observed.informers[k]?.state && key(x) === key(i.observed.informers[k] ?? x),
  )

export const lifecycle: TableSpec<In, Res, ScopedCacheOptions> = {
  id: "scopedcache.lifecycle",
  source: "002_3ec470ea16f97b3b.txt",
  title: "Lifecycle: Start, IsStarted, WaitForCacheSync",
  columns: KRTT_COLUMNS,
  rows: [
    doc(
      1,
      [
        "Not started",
        "Start()",
        "Cache not started",
        "Start every pending informer",
        "Started; pending informers `Starting`",
      ],
      {
        applies: (i) => i.trigger._tag === "Start" && !i.observed.started,
        holds: (i, r) => {
          const pending = i.observed.informers.filter((x) => x.state === "Pending")
          return (
            r.status.started &&
            r.actions.length === pending.length &&
            pending.every((p) => r.actions.some((a) => a._tag === "StartInformer" && key(a) === key(p))) &&
            r.status.informers.length === i.observed.informers.length &&
            r.status.informers.every((x, k) => {
              const was = i.observed.informers[k]
              return (
                was !== undefined &&
                key(x) === key(was) &&
                x.state === (was.state === "Pending" ? "Starting" : was.state)
              )
            })
          )
        },
        reason:
          'Seed: "Start will start the cache"; Wrapper: "This involves starting both the ClusterScopedCache and NamespaceScopedCache and all their informers".',
      },
    ),
    doc(2, ["Any", "IsStarted()", "Asked", "Nothing", "Answers whether Start has run"], {
      applies: (i) => i.trigger._tag === "IsStarted",
      holds: (i, r) =>
        r.actions.length === 0 &&
        r.status.isStarted === i.observed.started &&
        r.status.started === i.observed.started &&
        informersKept(i, r),
      reason:
        'Seed: "IsStarted returns a boolean that represents whether or not the cache has been started".',
    }),
    doc(
      3,
      [
        "Any",
        "WaitForCacheSync()",
        "Asked",
        "Nothing",
        "Synced when started and every informer that runs has synced (covered ones are served by their cluster-level informer)",
      ],
      {
        applies: (i) => i.trigger._tag === "WaitForCacheSync",
        holds: (i, r) =>
          r.actions.length === 0 &&
          informersKept(i, r) &&
          r.status.synced ===
            (i.observed.started &&
              !i.observed.informers.some((x) => x.state === "Pending" || x.state === "Starting")),
        reason:
          'Seed, Wrapper: "WaitForCacheSync will block until all the caches have been synced"; the shell waits until this holds.',
      },
    ),
    derived(4, ["Started", "Start()", "Cache already started", "Nothing", "No change"], {
      applies: (i) => i.trigger._tag === "Start" && i.observed.started,
      holds: (i, r) => r.actions.length === 0 && r.status.started && informersKept(i, r),
      reason:
        "Start is idempotent (the seed's `started` flag): a second Start must not start informers twice. controller-runtime refuses a second Start; here it changes nothing.",
    }),
  ],
  priority: [],
  resolutions: ["Rows are disjoint: the operation, then whether the cache has started."],
}
