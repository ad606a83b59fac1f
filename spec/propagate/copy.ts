/**
 * Table `propagate.copy`, transcribed from the behaviour `krtt propagate` promises (docs/fleet.md;
 * seed 003's UNIFORM pattern, Goals 1: "reconciling the same resources on multiple
 * clusters ... sourcing information from one central hub cluster"). One row per sentence of the
 * issue that decides what a copy must be in one cluster (rows 1-7); rows 8-10 are derived, each
 * with its reason. The predicates are written from these texts, not from `core/`.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util"
import type { TableSpec } from "../../core/krtt/index.ts"
import type { PropagateConfig } from "../../core/propagate/config.ts"
import type { CopyAction, CopyInput, CopyResult, Source } from "../../core/propagate/types.ts"
import { KRTT_COLUMNS, rowsFor } from "../builder.ts"

const { doc, derived } = rowsFor<CopyInput, CopyResult, PropagateConfig>(KRTT_COLUMNS)

// ---------------------------------------------------------------------------------------------
// Reading an input, from the words

/** "every ConfigMap and Secret in the hub labelled krtt.io/propagate: "true"" that is not being deleted. */
const wantedSource = (i: CopyInput): Source | undefined => {
  const s = i.observed.source
  return s?.labelled === true && !s.deleting ? s : undefined
}
const allowed = (i: CopyInput) => i.observed.access === "Allowed"
/** "An annotation krtt.io/propagation ... restricts its targets": this cluster is a target. */
const selected = (i: CopyInput) => i.desired.target._tag === "Selected"
const wantedHere = (i: CopyInput) => wantedSource(i) !== undefined && selected(i) && allowed(i)
/** "Copies carry the label krtt.io/propagated-from: <hub namespace>.<name>". */
const label = (s: { namespace: string; name: string }) => `${s.namespace}.${s.name}`
const copyIsOurs = (i: CopyInput) => {
  const s = i.observed.source
  const c = i.observed.copy
  return s !== null && c !== null && c.propagatedFrom === label(s)
}

/** "kept identical (data, labels, annotations except the hub's own bookkeeping)". */
const expectedCopy = (s: Source) => {
  const labels: Record<string, string> = {}
  for (const [k, v] of Object.entries(s.content.labels)) if (k !== "krtt.io/propagate") labels[k] = v
  labels["krtt.io/propagated-from"] = label(s)
  const annotations: Record<string, string> = {}
  const hubOnly = [
    "krtt.io/propagation",
    "krtt.io/propagated-to",
    "kubectl.kubernetes.io/last-applied-configuration",
  ]
  for (const [k, v] of Object.entries(s.content.annotations)) if (!hubOnly.includes(k)) annotations[k] = v
  return { data: s.content.data, binaryData: s.content.binaryData, labels, annotations, type: s.content.type }
}

/** "identical": the same data, binaryData, labels, annotations and type. */
const identical = (a: Source["content"], b: Source["content"]) =>
  JSON.stringify([a.data, a.binaryData, a.labels, a.annotations, a.type ?? null].map(sorted)) ===
  JSON.stringify([b.data, b.binaryData, b.labels, b.annotations, b.type ?? null].map(sorted))
const sorted = (v: unknown) =>
  v !== null && typeof v === "object"
    ? Object.entries(v as Record<string, string>).sort(([x], [y]) => (x < y ? -1 : 1))
    : v

// ---------------------------------------------------------------------------------------------
// Judging a result

const only = (r: CopyResult, expected: ReadonlyArray<CopyAction>) => isDeepStrictEqual(r.actions, expected)
const writeOf = (i: CopyInput, tag: "CreateCopy" | "UpdateCopy" | "ReplaceCopy"): CopyAction => {
  const s = wantedSource(i) as Source
  return {
    _tag: tag,
    cluster: i.desired.cluster,
    kind: s.kind,
    namespace: s.namespace,
    name: s.name,
    content: expectedCopy(s),
  }
}
const oneEvent = (r: CopyResult, reason: string, cluster: string, mentions: string) =>
  r.actions.length === 1 &&
  r.actions[0]?._tag === "SourceEvent" &&
  r.actions[0].reason === reason &&
  r.actions[0].cluster === cluster &&
  r.actions[0].message.includes(mentions)

export const copy: TableSpec<CopyInput, CopyResult, PropagateConfig> = {
  id: "propagate.copy",
  source: "003_424e4e9fdc1cae8c.txt",
  title: "Propagation of one source to one cluster (seed 003, uniform controller)",
  columns: KRTT_COLUMNS,
  rows: [
    doc(
      1,
      [
        "Source labelled, not deleting, cluster selected, permission held; no copy; the namespace is missing",
        "The copy in the namespace of the same name",
        "Any (level-triggered)",
        'Create the namespace, then the copy ("the namespace is created when missing")',
        "Synced",
      ],
      {
        applies: (i) => wantedHere(i) && i.observed.copy === null && i.observed.namespace === "Missing",
        holds: (i, r) =>
          r.status === "Synced" &&
          only(r, [
            {
              _tag: "CreateNamespace",
              cluster: i.desired.cluster,
              namespace: (wantedSource(i) as Source).namespace,
            },
            writeOf(i, "CreateCopy"),
          ]),
      },
    ),
    doc(
      2,
      [
        "Source labelled, not deleting, cluster selected, permission held; no copy; the namespace present or not known missing",
        "The copy",
        'Any; also a copy deleted in the cluster ("a copy ... deleted ... is restored")',
        "Create the copy: source data, labels, annotations minus the hub's bookkeeping, label krtt.io/propagated-from",
        "Synced",
      ],
      {
        applies: (i) => wantedHere(i) && i.observed.copy === null && i.observed.namespace !== "Missing",
        holds: (i, r) => r.status === "Synced" && only(r, [writeOf(i, "CreateCopy")]),
      },
    ),
    doc(
      3,
      [
        "Source wanted here; our copy (its propagated-from label names this source) differs",
        "The copy identical to the source",
        'Any; also a copy edited in the cluster ("a copy edited ... is restored")',
        "Update the copy to the source's content",
        "Synced",
      ],
      {
        applies: (i) => {
          const s = wantedSource(i)
          const c = i.observed.copy
          return (
            wantedHere(i) &&
            c !== null &&
            copyIsOurs(i) &&
            !(s?.kind === "Secret" && c.content.type !== s.content.type) &&
            !identical(c.content, expectedCopy(s as Source))
          )
        },
        holds: (i, r) => r.status === "Synced" && only(r, [writeOf(i, "UpdateCopy")]),
      },
    ),
    doc(
      4,
      [
        "Source wanted here; our copy is identical",
        "The copy identical to the source",
        "Any",
        "Nothing",
        "Synced",
      ],
      {
        applies: (i) =>
          wantedHere(i) &&
          i.observed.copy !== null &&
          copyIsOurs(i) &&
          identical(i.observed.copy.content, expectedCopy(wantedSource(i) as Source)),
        holds: (_i, r) => r.status === "Synced" && r.actions.length === 0,
      },
    ),
    doc(
      5,
      [
        "Source deleted (finalizer held), unlabelled, or this cluster not selected; permission held; our copy present",
        "No copy",
        'Any ("a source deleted, or unlabelled, removes its copies everywhere")',
        "Delete the copy",
        "Clean",
      ],
      {
        applies: (i) =>
          allowed(i) &&
          !(wantedSource(i) !== undefined && i.desired.target._tag !== "NotSelected") &&
          copyIsOurs(i),
        holds: (i, r) => {
          const s = i.observed.source as Source
          return (
            r.status === "Clean" &&
            only(r, [
              {
                _tag: "DeleteCopy",
                cluster: i.desired.cluster,
                kind: s.kind,
                namespace: s.namespace,
                name: s.name,
              },
            ])
          )
        },
      },
    ),
    doc(
      6,
      [
        "Source not wanted here (gone, deleting, unlabelled, not selected); permission held; no copy of ours (none, or another owner's)",
        "No copy",
        "Any",
        "Nothing: an object that is not ours is never deleted",
        "Clean",
      ],
      {
        applies: (i) =>
          allowed(i) &&
          !(wantedSource(i) !== undefined && i.desired.target._tag !== "NotSelected") &&
          !copyIsOurs(i),
        holds: (_i, r) => r.status === "Clean" && r.actions.length === 0,
      },
    ),
    doc(
      7,
      [
        "The cluster's scoped-cache informer of the source's namespace and kind is forbidden (a Role revoked or never granted)",
        "Any",
        'Any ("a revoked Role shows up as an Event on the affected sources and nothing else breaks")',
        "One Warning Event PropagationForbidden on the source naming the cluster; nothing written there",
        "Blocked",
      ],
      {
        applies: (i) => i.observed.access === "Forbidden",
        holds: (i, r) =>
          r.status === "Blocked" && oneEvent(r, "PropagationForbidden", i.desired.cluster, i.desired.cluster),
      },
    ),
    derived(
      8,
      [
        "Source wanted here, a Secret; our copy's type differs from the source's",
        "The copy with the source's type",
        "Any",
        "Replace the copy: delete it, then create it",
        "Synced",
      ],
      {
        reason:
          "The API server refuses to change a Secret's type (the field is immutable), so an update could never succeed; upstream controllers that sync Secrets (e.g. external-secrets' creation policy Owner) recreate the object.",
        applies: (i) => {
          const s = wantedSource(i)
          const c = i.observed.copy
          return (
            wantedHere(i) &&
            s?.kind === "Secret" &&
            c !== null &&
            copyIsOurs(i) &&
            c.content.type !== s.content.type
          )
        },
        holds: (i, r) => r.status === "Synced" && only(r, [writeOf(i, "ReplaceCopy")]),
      },
    ),
    derived(
      9,
      [
        "Source wanted here; an object of that name exists that is not our copy (no propagated-from label, or another source's)",
        "The copy",
        "Any",
        "One Warning Event PropagationConflict on the source naming the cluster; the object is left alone",
        "Conflict",
      ],
      {
        reason:
          "The issue is silent. Overwriting an object someone else made would destroy their data; Helm and Argo CD refuse to adopt an object that carries no ownership mark, and so does krtt. Delete or label the object to let the copy in.",
        applies: (i) => wantedHere(i) && i.observed.copy !== null && !copyIsOurs(i),
        holds: (i, r) =>
          r.status === "Conflict" && oneEvent(r, "PropagationConflict", i.desired.cluster, i.desired.cluster),
      },
    ),
    derived(
      10,
      [
        "Source labelled, not deleting; its krtt.io/propagation annotation is not a label selector; permission held",
        "Unknown targets",
        "Any",
        "One Warning Event InvalidPropagationSelector naming the annotation; nothing created nor deleted",
        "InvalidSelector",
      ],
      {
        reason:
          'Bad input gets a clear error naming the field (house rule). Treating a typo as "no cluster" would delete every copy, and as "every cluster" would spread the object where it was meant not to go; so nothing changes until the annotation parses.',
        applies: (i) => allowed(i) && wantedSource(i) !== undefined && i.desired.target._tag === "Invalid",
        holds: (i, r) =>
          r.status === "InvalidSelector" &&
          oneEvent(r, "InvalidPropagationSelector", i.desired.cluster, "krtt.io/propagation"),
      },
    ),
  ],
  priority: [],
  resolutions: [
    "Rows are disjoint: a forbidden informer (row 7) comes before everything (nothing can be seen or written); an invalid selector (row 10) before any write or delete; otherwise the source is wanted in this cluster (rows 1-4, 8, 9) or not (rows 5, 6).",
    'A cluster that is not engaged is not an input of this table: it is skipped ("a cluster that is disengaged is skipped without delaying the others") and cleaned when it is engaged again (core/propagate/summary.ts, pendingAfterRelease).',
  ],
}
