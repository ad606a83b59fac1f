/**
 * Field-by-field differences between a Cluster's actual status and the status krtt's tables
 * would write: phase, initialization, each condition's type/status/reason/message, the v1beta1
 * conditions and failure fields. Transition times and counters are not compared.
 *
 * @module
 */
import type { ClusterStatus, Condition } from "../../core/cluster/types.ts"

/** One field whose actual value is not the expected one (`undefined`: absent). */
export interface Difference {
  readonly field: string
  readonly actual: string | boolean | undefined
  readonly expected: string | boolean | undefined
}

const CONDITION_FIELDS = ["status", "reason", "message"] as const

const conditions = (
  prefix: string,
  actual: ReadonlyArray<Condition> | undefined,
  expected: ReadonlyArray<Condition> | undefined,
): ReadonlyArray<Difference> => {
  const types = [...new Set([...(expected ?? []), ...(actual ?? [])].map((c) => c.type))]
  return types.flatMap((type) => {
    const a = actual?.find((c) => c.type === type)
    const e = expected?.find((c) => c.type === type)
    if (a === undefined || e === undefined)
      return [{ field: `${prefix}[${type}]`, actual: a?.status, expected: e?.status }]
    return CONDITION_FIELDS.flatMap((f) =>
      (a[f] ?? "") === (e[f] ?? "")
        ? []
        : [{ field: `${prefix}[${type}].${f}`, actual: a[f], expected: e[f] }],
    )
  })
}

const field = (
  name: string,
  actual: string | boolean | undefined,
  expected: string | boolean | undefined,
): ReadonlyArray<Difference> => (actual === expected ? [] : [{ field: name, actual, expected }])

/** Every difference between `actual` and `expected`, in a stable order. */
export const statusDifferences = (
  actual: ClusterStatus | undefined,
  expected: ClusterStatus | undefined,
): ReadonlyArray<Difference> => {
  const av1 = actual?.deprecated?.v1beta1
  const ev1 = expected?.deprecated?.v1beta1
  return [
    ...field("status.phase", actual?.phase, expected?.phase),
    ...field(
      "status.initialization.infrastructureProvisioned",
      actual?.initialization?.infrastructureProvisioned,
      expected?.initialization?.infrastructureProvisioned,
    ),
    ...field(
      "status.initialization.controlPlaneInitialized",
      actual?.initialization?.controlPlaneInitialized,
      expected?.initialization?.controlPlaneInitialized,
    ),
    ...conditions("status.conditions", actual?.conditions, expected?.conditions),
    ...conditions("status.deprecated.v1beta1.conditions", av1?.conditions, ev1?.conditions),
    ...field("status.deprecated.v1beta1.failureReason", av1?.failureReason, ev1?.failureReason),
    ...field("status.deprecated.v1beta1.failureMessage", av1?.failureMessage, ev1?.failureMessage),
  ]
}
