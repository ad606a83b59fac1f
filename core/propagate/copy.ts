/**
 * Table `propagate.copy`: what one source's copy must be in one workload cluster (seed 003,
 * Goals 1, "operate on multiple clusters in a uniform way ... sourcing information
 * from one central hub cluster"): create it (and its namespace), update it, replace it, delete
 * it, leave it, or refuse (no permission, an object that is not ours, a bad selector).
 *
 * # Expected flow (for the shell)
 * For each source and each engaged cluster: make sure the cluster's scoped cache has the
 * informer of the source's namespace and kind (the source is its dependent), read the copy from
 * it (`Forbidden` when the informer lost its permission), evaluate the source's selector against
 * the cluster, run {@link copyTransition}, perform the actions in order. A create answered
 * "namespace not found" is fed again with `namespace: "Missing"` (row 1).
 *
 * # Guarantees
 * - Nothing is written to a cluster whose informer is forbidden (row 7), nor when the selector
 *   does not parse (row 10).
 * - An object that is not labelled `krtt.io/propagated-from: <ns>.<name>` of this source is never
 *   updated nor deleted (rows 6, 9).
 * - A copy holds the source's data, binaryData, labels and annotations minus the hub's
 *   bookkeeping, plus the `propagated-from` label; the Secret type is kept (row 8).
 *
 * Rows are transcribed independently in `spec/propagate/copy.ts`.
 *
 * @module
 */
import type { PropagateConfig } from "./config.ts"
import {
  BookkeepingAnnotations,
  BookkeepingLabels,
  type Content,
  type CopyAction,
  type CopyInput,
  type CopyResult,
  type CopyStatus,
  PROPAGATE_COPY,
  PropagatedFromLabel,
  type Source,
} from "./types.ts"

/** `<hub namespace>.<name>`: the value of a copy's `krtt.io/propagated-from` label. */
export const sourceKey = (source: { readonly namespace: string; readonly name: string }): string =>
  `${source.namespace}.${source.name}`

const without = (m: Readonly<Record<string, string>>, keys: ReadonlyArray<string>): Record<string, string> =>
  Object.fromEntries(Object.entries(m).filter(([k]) => !keys.includes(k)))

/** What the copy of `source` must hold. */
export const desiredContent = (source: Source): Content => ({
  data: source.content.data,
  binaryData: source.content.binaryData,
  labels: { ...without(source.content.labels, BookkeepingLabels), [PropagatedFromLabel]: sourceKey(source) },
  annotations: without(source.content.annotations, BookkeepingAnnotations),
  type: source.content.type,
})

/** Whether two contents are the same (a missing `type` is the same as `undefined`). */
export const sameContent = (a: Content, b: Content): boolean =>
  sameMap(a.data, b.data) &&
  sameMap(a.binaryData, b.binaryData) &&
  sameMap(a.labels, b.labels) &&
  sameMap(a.annotations, b.annotations) &&
  // Stryker disable next-line ConditionalExpression
  a.type === b.type

/** Same keys and values, whatever the objects' prototypes. */
const sameMap = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean => {
  const ka = Object.keys(a)
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && a[k] === b[k])
}

/** Whether the source asks for copies at all (labelled and not being deleted). */
export const sourceWanted = (source: Source | null): source is Source =>
  source?.labelled === true && !source.deleting

const row = (n: number): `${string}#${number}` => `${PROPAGATE_COPY}#${n}`
const result = (n: number, status: CopyStatus, actions: ReadonlyArray<CopyAction> = []): CopyResult => ({
  actions,
  status,
  row: row(n),
})

/** The transition of table `propagate.copy`. */
export const copyTransition = (input: CopyInput, _config?: PropagateConfig): CopyResult => {
  const { observed, desired } = input
  const { source, copy } = observed
  const cluster = desired.cluster
  if (observed.access === "Forbidden") {
    const what = source === null ? "the copy" : `${source.kind} ${source.namespace}/${source.name}`
    return result(7, "Blocked", [
      {
        _tag: "SourceEvent",
        cluster,
        reason: "PropagationForbidden",
        message: `cluster ${cluster}: no permission to watch ${what}'s namespace; nothing is written there until the permission returns`,
      },
    ])
  }
  if (sourceWanted(source) && desired.target._tag === "Invalid") {
    return result(10, "InvalidSelector", [
      {
        _tag: "SourceEvent",
        cluster,
        reason: "InvalidPropagationSelector",
        message: `annotation krtt.io/propagation: ${desired.target.message}`,
      },
    ])
  }
  const key = source === null ? undefined : sourceKey(source)
  // Stryker disable next-line ConditionalExpression
  const ours = copy !== null && key !== undefined && copy.propagatedFrom === key
  if (sourceWanted(source) && desired.target._tag === "Selected") {
    const ref = { cluster, kind: source.kind, namespace: source.namespace, name: source.name }
    const content = desiredContent(source)
    if (copy === null) {
      const create: CopyAction = { _tag: "CreateCopy", ...ref, content }
      return observed.namespace === "Missing"
        ? result(1, "Synced", [{ _tag: "CreateNamespace", cluster, namespace: source.namespace }, create])
        : result(2, "Synced", [create])
    }
    if (!ours) {
      return result(9, "Conflict", [
        {
          _tag: "SourceEvent",
          cluster,
          reason: "PropagationConflict",
          message: `cluster ${cluster}: ${source.kind} ${source.namespace}/${source.name} exists and is not a copy of this source (label ${PropagatedFromLabel} is ${copy.propagatedFrom === undefined ? "absent" : `"${copy.propagatedFrom}"`}); it is left alone`,
        },
      ])
    }
    // Stryker disable next-line ConditionalExpression
    if (source.kind === "Secret" && copy.content.type !== content.type)
      return result(8, "Synced", [{ _tag: "ReplaceCopy", ...ref, content }])
    if (sameContent(copy.content, content)) return result(4, "Synced")
    return result(3, "Synced", [{ _tag: "UpdateCopy", ...ref, content }])
  }
  // Not wanted here: the source is gone, unlabelled, being deleted, or not selected.
  // Stryker disable next-line ConditionalExpression
  if (ours && source !== null)
    return result(5, "Clean", [
      { _tag: "DeleteCopy", cluster, kind: source.kind, namespace: source.namespace, name: source.name },
    ])
  return result(6, "Clean")
}
