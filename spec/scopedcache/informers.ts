/**
 * Adding and removing informers (seed 002, "ScopedCache Updated Design Thoughts"), transcribed as
 * rows. The seed has no table: each documented row is one rule its prose states (quoted in the
 * row's reason); derived rows resolve what it leaves open, with their reasons. Predicates are
 * written from the seed and `resolutions.ts`, not from core.
 *
 * @module
 */

import type { TableSpec } from "../../core/krtt/index.ts"
import type { ScopedCacheOptions } from "../../core/scopedcache/index.ts"
import type { InformersInput, InformersResult } from "../../core/scopedcache/informers.ts"
import { KRTT_COLUMNS, rowsFor } from "../builder.ts"
import { BOTH_LEVELS, BOTH_LEVELS_ROW, openQuestionTexts, rulesWithoutRows } from "./resolutions.ts"

type In = InformersInput
type Res = InformersResult
type Cfg = ScopedCacheOptions
type Act = Res["actions"][number]

const { doc, derived } = rowsFor<In, Res, Cfg>(KRTT_COLUMNS)

// ---- reading the input, in the seed's words --------------------------------------------------
const tag = (i: In) => i.trigger._tag
const exists = (i: In) => i.observed.informer !== undefined
const clusterLevel = (i: In) => i.desired.ref.namespace === ""
/** An informer "runs" once started and until stopped; pending and covered ones do not. */
const runs = (state: string | undefined) => state === "Starting" || state === "Synced"
const depUid = (i: In) =>
  i.trigger._tag === "AddInformer" || i.trigger._tag === "RemoveInformer" ? i.trigger.dependent.uid : ""
const hasDep = (i: In) => i.observed.informer?.dependents.has(depUid(i)) ?? false
const depCount = (i: In) => i.observed.informer?.dependents.size ?? 0
/** For a new cluster-level informer: namespace-level informers of its GVK and key not yet covered. */
const uncoveredPeers = (i: In) => clusterLevel(i) && i.observed.peers.some((p) => p.state !== "Covered")
const coveredHere = (i: In) => !clusterLevel(i) && i.observed.coveredByCluster
const addNew = (i: In) => tag(i) === "AddInformer" && !exists(i)
const plainNew = (i: In) => addNew(i) && !coveredHere(i) && !uncoveredPeers(i)
const removing = (i: In) => tag(i) === "RemoveInformer" && exists(i) && hasDep(i)

// ---- what a result must show ---------------------------------------------------------------
const uids = (r: Res) => (r.status.informer?.dependents.toArray() ?? []).map((d) => d.uid)
const before = (i: In) => (i.observed.informer?.dependents.toArray() ?? []).map((d) => d.uid)
const same = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && a.every((x, k) => x === b[k])
const noActions = (r: Res) => r.actions.length === 0
const peersKept = (i: In, r: Res) =>
  r.status.peers.length === i.observed.peers.length &&
  r.status.peers.every(
    (p, k) => p.namespace === i.observed.peers[k]?.namespace && p.state === i.observed.peers[k]?.state,
  )
const unchanged = (i: In, r: Res) =>
  noActions(r) &&
  peersKept(i, r) &&
  r.status.informer?.state === i.observed.informer?.state &&
  same(uids(r), before(i))
const isRef = (i: In, namespace: string) => (a: Act) =>
  "ref" in a &&
  a.ref.namespace === namespace &&
  a.ref.key === i.desired.ref.key &&
  a.ref.gvk.group === i.desired.ref.gvk.group &&
  a.ref.gvk.version === i.desired.ref.gvk.version &&
  a.ref.gvk.kind === i.desired.ref.gvk.kind
const starts = (i: In, r: Res, namespace: string) =>
  r.actions.filter((a) => a._tag === "StartInformer" && isRef(i, namespace)(a)).length
const stops = (r: Res, reason: string) =>
  r.actions.filter((a) => a._tag === "StopInformer" && a.reason === reason).length
const own = (i: In) => i.desired.ref.namespace
const onlyDependent = (i: In, r: Res) => same(uids(r), [depUid(i)])

/**
 * When a cluster-level informer leaves the registry, the namespace-level informers it covered run
 * again: started at once when the cache runs, pending otherwise (resolution "both levels").
 * Returns the number of StartInformer actions this accounts for, or -1 when the peers are wrong.
 */
const released = (i: In, r: Res): number => {
  if (!clusterLevel(i)) return peersKept(i, r) ? 0 : -1
  if (r.status.peers.length !== i.observed.peers.length) return -1
  let n = 0
  for (const [k, p] of i.observed.peers.entries()) {
    const after = r.status.peers[k]
    if (after === undefined || after.namespace !== p.namespace) return -1
    if (p.state !== "Covered") {
      if (after.state !== p.state) return -1
      continue
    }
    const want = i.observed.started ? "Starting" : "Pending"
    if (after.state !== want) return -1
    if (i.observed.started) {
      if (starts(i, r, p.namespace) !== 1) return -1
      n++
    }
  }
  return n
}

/** The informer left the registry: stopped if it ran, peers released, nothing else started. */
const left = (i: In, r: Res, reason: string): boolean => {
  if (r.status.informer !== undefined) return false
  const ran = runs(i.observed.informer?.state)
  const stopOwn = r.actions.filter(
    (a) => a._tag === "StopInformer" && isRef(i, own(i))(a) && a.reason === reason,
  )
  if (stopOwn.length !== (ran ? 1 : 0)) return false
  if (r.actions.some((a) => a._tag === "StopInformer" && !isRef(i, own(i))(a))) return false
  const n = released(i, r)
  return n >= 0 && r.actions.filter((a) => a._tag === "StartInformer").length === n
}

const notified = (i: In, r: Res, reason: string): boolean => {
  const notes = r.actions.filter((a) => a._tag === "NotifyDependents")
  if (depCount(i) === 0) return notes.length === 0
  const note = notes[0]
  return (
    notes.length === 1 &&
    note?._tag === "NotifyDependents" &&
    note.reason === reason &&
    isRef(i, own(i))(note) &&
    same(
      note.dependents.map((d) => d.uid),
      before(i),
    )
  )
}

export const informers: TableSpec<In, Res, Cfg> = {
  id: "scopedcache.informers",
  source: "002_3ec470ea16f97b3b.txt",
  title: "Informers: AddInformer, RemoveInformer, permission lost",
  columns: KRTT_COLUMNS,
  rows: [
    doc(
      1,
      [
        "No informer for (scope, GVK, key); cache not started",
        "AddInformer(infOpts)",
        "Informer not in the registry, nothing of the other level covers or is covered",
        "Register the informer with `infOpts.Dependent`; do not run it yet",
        "Informer `Pending`, one dependent",
      ],
      {
        applies: (i) => plainNew(i) && !i.observed.started,
        holds: (i, r) =>
          noActions(r) && r.status.informer?.state === "Pending" && onlyDependent(i, r) && peersKept(i, r),
        reason:
          'Seed, DynamicScopedCache: "AddInformer will ... add a new informer to the cache"; Wrapper: "Start will start ... all their informers", so one added before Start waits for it.',
      },
    ),
    doc(
      2,
      [
        "No informer for (scope, GVK, key); cache started",
        "AddInformer(infOpts)",
        "Informer not in the registry, nothing of the other level covers or is covered",
        "Register the informer with `infOpts.Dependent`; start it",
        "Informer `Starting`, one dependent",
      ],
      {
        applies: (i) => plainNew(i) && i.observed.started,
        holds: (i, r) =>
          r.actions.length === 1 &&
          starts(i, r, own(i)) === 1 &&
          r.status.informer?.state === "Starting" &&
          onlyDependent(i, r) &&
          peersKept(i, r),
        reason: 'Seed: "AddInformer will ... use these options to add a new informer to the cache."',
      },
    ),
    doc(
      3,
      [
        "Informer exists",
        "AddInformer(infOpts)",
        "`infOpts.Dependent` is not among its dependents",
        "Add the dependent; start nothing",
        "Same state, one dependent more",
      ],
      {
        applies: (i) => tag(i) === "AddInformer" && exists(i) && !hasDep(i),
        holds: (i, r) =>
          noActions(r) &&
          peersKept(i, r) &&
          r.status.informer?.state === i.observed.informer?.state &&
          same(uids(r), [...before(i), depUid(i)].sort()),
        reason:
          'Seed: "If the informer already exists, a new dependent will be added to the existing informer."',
      },
    ),
    doc(
      4,
      [
        "Informer exists with more than one dependent",
        "RemoveInformer(infOpts)",
        "`infOpts.Dependent` is among them",
        "Remove the dependent; the informer keeps running",
        "Same state, one dependent less",
      ],
      {
        applies: (i) => removing(i) && depCount(i) > 1,
        holds: (i, r) =>
          noActions(r) &&
          peersKept(i, r) &&
          r.status.informer?.state === i.observed.informer?.state &&
          same(
            uids(r),
            before(i).filter((u) => u !== depUid(i)),
          ),
        reason:
          'Seed: "an informer will only be fully removed from the cache if the informer has no more dependents."',
      },
    ),
    doc(
      5,
      [
        "Informer exists with exactly this dependent",
        "RemoveInformer(infOpts)",
        "Last dependent removed; automatic termination on (default)",
        "Cancel the informer (if it runs) and remove it; a cluster-level one releases the namespace-level informers it covered",
        "Informer gone",
      ],
      {
        applies: (i) => removing(i) && depCount(i) === 1 && i.desired.automaticTermination,
        holds: (i, r) => left(i, r, "NoDependents") && !r.actions.some((a) => a._tag === "NotifyDependents"),
        reason:
          'Seed: "Dependents ... is essentially used as a reference counter to determine if an informer is still needed"; "fully removed from the cache if the informer has no more dependents".',
      },
    ),
    doc(
      6,
      [
        "Informer exists",
        "Forced removal",
        "Asked to remove it whatever its dependents",
        "Cancel the informer (if it runs), remove it, tell its dependents; release covered namespace-level informers",
        "Informer gone; dependents notified (`InformerRemoved`)",
      ],
      {
        applies: (i) => tag(i) === "ForceRemove" && exists(i),
        holds: (i, r) => left(i, r, "Forced") && notified(i, r, "InformerRemoved"),
        reason:
          'Seed, Cache Components: the CancelFunc is kept "so that we can properly shutdown an informer when asked or when it loses permissions". The dependents are told so that none is lost silently.',
      },
    ),
    doc(
      7,
      [
        "Informer exists and runs (`Starting` or `Synced`)",
        "Permission lost",
        "Its list or watch answered 403 Forbidden",
        "Cancel the informer, remove it, log once, tell exactly its dependents; release covered namespace-level informers",
        "Informer gone; dependents notified (`PermissionLost`)",
      ],
      {
        applies: (i) => tag(i) === "PermissionLost" && runs(i.observed.informer?.state),
        holds: (i, r) =>
          left(i, r, "PermissionLost") &&
          notified(i, r, "PermissionLost") &&
          r.actions.filter((a) => a._tag === "Log").length === 1,
        reason:
          'Seed: "shutdown an informer ... when it loses permissions"; ScopedInformerFactory: "It is up to the function to properly implement any error handling logic for the informer losing permissions."',
      },
    ),
    derived(
      8,
      [
        "Informer exists",
        "AddInformer(infOpts)",
        "`infOpts.Dependent`'s UID is already among its dependents",
        "Nothing",
        "No change (a dependent is counted once)",
      ],
      {
        applies: (i) => tag(i) === "AddInformer" && exists(i) && hasDep(i),
        holds: unchanged,
        reason:
          "Dependents are keyed by UID (seed: `Dependents map[types.UID]metav1.Object`): adding one twice counts it once.",
      },
    ),
    derived(
      9,
      [
        "No cluster-level informer for (GVK, key); namespace-level ones with the same GVK and key exist",
        "AddInformer(infOpts) at cluster level",
        "New cluster-level informer",
        "Register it (start it if the cache runs); stop the running namespace-level peers",
        "Cluster-level informer `Starting`/`Pending`; peers `Covered` with their dependents",
      ],
      {
        applies: (i) => addNew(i) && uncoveredPeers(i),
        holds: (i, r) => {
          const want = i.observed.started ? "Starting" : "Pending"
          const running = i.observed.peers.filter((p) => runs(p.state))
          return (
            r.status.informer?.state === want &&
            onlyDependent(i, r) &&
            r.status.peers.length === i.observed.peers.length &&
            r.status.peers.every(
              (p, k) => p.state === "Covered" && p.namespace === i.observed.peers[k]?.namespace,
            ) &&
            starts(i, r, own(i)) === (i.observed.started ? 1 : 0) &&
            stops(r, "CoveredByCluster") === running.length &&
            running.every((p) =>
              r.actions.some((a) => a._tag === "StopInformer" && isRef(i, p.namespace)(a)),
            ) &&
            r.actions.length === running.length + (i.observed.started ? 1 : 0)
          )
        },
        reason: BOTH_LEVELS_ROW,
      },
    ),
    derived(
      10,
      [
        "A cluster-level informer with the same GVK and key exists",
        "AddInformer(infOpts) at namespace level",
        "New namespace-level informer",
        "Register it with the dependent; do not run it",
        "Informer `Covered`, one dependent",
      ],
      {
        applies: (i) => addNew(i) && coveredHere(i),
        holds: (i, r) =>
          noActions(r) && r.status.informer?.state === "Covered" && onlyDependent(i, r) && peersKept(i, r),
        reason: BOTH_LEVELS_ROW,
      },
    ),
    derived(
      11,
      [
        "No informer for (scope, GVK, key)",
        "RemoveInformer(infOpts) or forced removal",
        "Informer not in the registry",
        "Nothing",
        "No change",
      ],
      {
        applies: (i) => (tag(i) === "RemoveInformer" || tag(i) === "ForceRemove") && !exists(i),
        holds: (i, r) => r.status.informer === undefined && noActions(r) && peersKept(i, r),
        reason:
          "Removing what is not there is not an error (telescopia's RemoveInformer returns when the informer is absent), so that a dependent's cleanup can run twice.",
      },
    ),
    derived(
      12,
      [
        "Informer exists",
        "RemoveInformer(infOpts)",
        "`infOpts.Dependent` is not among its dependents",
        "Nothing",
        "No change, even when the informer has no dependents",
      ],
      {
        applies: (i) => tag(i) === "RemoveInformer" && exists(i) && !hasDep(i),
        holds: unchanged,
        reason:
          "Removing an unknown dependent must not take another dependent's informer away, nor stop an informer kept without dependents (automatic termination off).",
      },
    ),
    derived(
      13,
      [
        "Informer exists with exactly this dependent",
        "RemoveInformer(infOpts)",
        "Last dependent removed; automatic termination off",
        "Remove the dependent; the informer keeps running",
        "Same state, no dependents",
      ],
      {
        applies: (i) => removing(i) && depCount(i) === 1 && !i.desired.automaticTermination,
        holds: (i, r) =>
          noActions(r) &&
          peersKept(i, r) &&
          r.status.informer?.state === i.observed.informer?.state &&
          uids(r).length === 0,
        reason:
          'Seed, Open Questions: "When should we automatically kill informers? Should this be configurable?" and the user story "configure whether or not informers should be automatically terminated": option `automaticTermination` (default on).',
      },
    ),
    derived(
      14,
      [
        "Informer absent, `Pending` or `Covered`",
        "Permission lost",
        "A 403 reported for an informer that does not run",
        "Nothing (no log)",
        "No change",
      ],
      {
        applies: (i) => tag(i) === "PermissionLost" && !runs(i.observed.informer?.state),
        holds: (i, r) => noActions(r) && peersKept(i, r) && r.status.informer === i.observed.informer,
        reason:
          "A 403 that arrives after the informer stopped (its reflector's last error) is stale: the first one already stopped it and logged; one log line per informer, not a flood.",
      },
    ),
    derived(
      15,
      ["Informer `Starting`", "Informer synced", "Its first list is stored", "Nothing", "Informer `Synced`"],
      {
        applies: (i) => tag(i) === "InformerSynced" && i.observed.informer?.state === "Starting",
        holds: (i, r) => noActions(r) && r.status.informer?.state === "Synced" && same(uids(r), before(i)),
        reason:
          'Seed, Wrapper: "WaitForCacheSync will block until all the caches have been synced"; reads wait for an informer that has not synced.',
      },
    ),
    derived(
      16,
      ["Informer absent or not `Starting`", "Informer synced", "Stale report", "Nothing", "No change"],
      {
        applies: (i) => tag(i) === "InformerSynced" && i.observed.informer?.state !== "Starting",
        holds: (i, r) => noActions(r) && peersKept(i, r) && r.status.informer === i.observed.informer,
        reason: "A sync reported after the informer was stopped or removed changes nothing.",
      },
    ),
  ],
  priority: [],
  resolutions: [
    "Rows are disjoint by construction: operation, then whether the informer exists, then its dependents and state, then the other level.",
    BOTH_LEVELS,
    ...openQuestionTexts,
    ...rulesWithoutRows,
  ],
}
