/**
 * The differential suite's comparison. Status: the differences `krtt why --all --json` lists
 * between the status upstream's manager wrote and the one krtt's tables would write, on the same
 * objects. Upstream's run beside krtt's run of the same scenario: the same status fields as
 * `krtt run` wrote them, and everything else (finalizers, owner references, labels and
 * annotations of the Cluster and of the objects it refers to, its spec, failure domains, replica
 * counters, events, the descendants deleted). Values are normalised: times, durations and the
 * scenario's namespace are replaced by placeholders.
 *
 * @module
 */
import type { ClusterStatus } from "../../core/cluster/types.ts"
import { statusDifferences } from "../../shell/why/differences.ts"
import type { KubeObject } from "../fixtures/index.ts"
import type { Snapshot } from "./snapshot.ts"

/** A field whose value differs between upstream's manager and krtt. */
export interface Divergence {
  readonly scenario: string
  readonly field: string
  readonly upstream: string
  readonly krtt: string
}

export interface Comparison {
  readonly fields: number
  readonly divergences: ReadonlyArray<Divergence>
}

/** The label by which krtt's run selects the Clusters of its side (not compared). */
export const WATCH_FILTER_LABEL = "cluster.x-k8s.io/watch-filter"

const isEmpty = (v: unknown) => typeof v === "object" && v !== null && Object.keys(v).length === 0

/**
 * A value as text, with times, durations and the namespace replaced by placeholders. An empty
 * object or list reads as absent, as the API treats them: every field in it is absent either way
 * (upstream writes the Cluster's `status.controlPlane` and `status.workers` as `{}` when it has
 * nothing to count).
 */
export const normalise = (v: unknown, ns?: string): string => {
  if (v === undefined || v === null || isEmpty(v)) return "<absent>"
  const text = typeof v === "string" ? v : JSON.stringify(v)
  const replaced = text
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g, "<time>")
    .replace(/\b\d+(\.\d+)?(ms|s|m|h)\b/g, "<duration>")
  return ns === undefined ? replaced : replaced.split(ns).join("<ns>")
}

const sorted = (xs: ReadonlyArray<string> | undefined) => (xs === undefined ? undefined : [...xs].sort())

const without = (m: Readonly<Record<string, string>> | undefined, key: string) => {
  if (m === undefined) return undefined
  const rest = Object.fromEntries(Object.entries(m).filter(([k]) => k !== key))
  return Object.keys(rest).length === 0 ? undefined : rest
}

const owners = (o: KubeObject | undefined) =>
  o?.metadata.ownerReferences
    ?.map((r) => ({
      apiVersion: r.apiVersion,
      kind: r.kind,
      name: r.name,
      controller: r.controller,
      blockOwnerDeletion: r.blockOwnerDeletion,
    }))
    .sort((a, b) => `${a.kind}/${a.name}`.localeCompare(`${b.kind}/${b.name}`))

/** The metadata fields compared for an object (the Cluster, a provider object, the Secret). */
const objectFields = (o: KubeObject | undefined): Record<string, unknown> => ({
  "": o === undefined ? undefined : "present",
  "metadata.deletionTimestamp": o?.metadata.deletionTimestamp === undefined ? undefined : "set",
  "metadata.finalizers": sorted(o?.metadata.finalizers),
  "metadata.labels": without(o?.metadata.labels, WATCH_FILTER_LABEL),
  "metadata.annotations": o?.metadata.annotations,
  "metadata.ownerReferences": owners(o),
})

/** Every field of a snapshot that the run-beside-run comparison covers, by name. */
export const snapshotFields = (s: Snapshot): Record<string, unknown> => {
  const fields: Record<string, unknown> = { settled: s.settled }
  const add = (prefix: string, values: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(values)) fields[k === "" ? prefix : `${prefix}.${k}`] = v
  }
  add("Cluster", {
    ...objectFields(s.cluster),
    spec: s.cluster?.spec,
    "status.observedGeneration": s.cluster?.status?.observedGeneration,
    "status.failureDomains": s.cluster?.status?.failureDomains,
    "status.controlPlane": s.cluster?.status?.controlPlane,
    "status.workers": s.cluster?.status?.workers,
  })
  for (const [kind, o] of Object.entries(s.providers)) if (o !== undefined) add(kind, objectFields(o))
  fields.events = [...new Set(s.events.map((e) => `${e.type} ${e.reason}: ${e.message}`))].sort()
  fields.descendants = s.descendants
  return fields
}

/** Suffix of the status fields compared run beside run (the others come from `krtt why`). */
export const RUN_SUFFIX = " (krtt run)"

type Conditioned = { readonly conditions?: ReadonlyArray<{ readonly type: string }> }
const typeCount = (a: Conditioned | undefined, b: Conditioned | undefined) =>
  new Set([...(a?.conditions ?? []), ...(b?.conditions ?? [])].map((c) => c.type)).size

/**
 * The Cluster's status as `krtt run` wrote it beside upstream's: the fields `krtt why` compares
 * (phase, initialization, conditions, v1beta1 conditions and failure fields). Descendants are
 * paused in both runs, so both statuses are computed from the same objects; the connection to
 * the workload cluster is the ClusterCache's own here, which `krtt why` cannot see.
 */
const statusComparison = (
  scenario: string,
  upstream: { readonly snapshot: Snapshot; readonly ns: string },
  krtt: { readonly snapshot: Snapshot; readonly ns: string },
): Comparison => {
  const u = upstream.snapshot.cluster?.status as ClusterStatus | undefined
  const k = krtt.snapshot.cluster?.status as ClusterStatus | undefined
  const fields = 5 + 3 * typeCount(u, k) + 3 * typeCount(u?.deprecated?.v1beta1, k?.deprecated?.v1beta1)
  const divergences = statusDifferences(u, k).flatMap((d) => {
    const a = normalise(d.actual, upstream.ns)
    const b = normalise(d.expected, krtt.ns)
    return a === b ? [] : [{ scenario, field: `${d.field}${RUN_SUFFIX}`, upstream: a, krtt: b }]
  })
  return { fields, divergences }
}

/** upstream's run of a scenario beside krtt's run of it. */
export const compareRuns = (
  scenario: string,
  upstream: { readonly snapshot: Snapshot; readonly ns: string },
  krtt: { readonly snapshot: Snapshot; readonly ns: string },
): Comparison => {
  const u = snapshotFields(upstream.snapshot)
  const k = snapshotFields(krtt.snapshot)
  const names = [...new Set([...Object.keys(u), ...Object.keys(k)])]
  const divergences = names.flatMap((field) => {
    const a = normalise(u[field], upstream.ns)
    const b = normalise(k[field], krtt.ns)
    // A scenario upstream never settles is broken whatever krtt does: it is reported too.
    const broken = field === "settled" && upstream.snapshot.settled === false
    return a === b && !broken ? [] : [{ scenario, field, upstream: a, krtt: b }]
  })
  const status = statusComparison(scenario, upstream, krtt)
  return { fields: names.length + status.fields, divergences: [...divergences, ...status.divergences] }
}
