/**
 * Broken cores that more than one simulator test runs (`brokenCores.test.ts`,
 * `checkPrecision.test.ts`): each is the real core with one fault.
 *
 * @module
 */
import { clusterController, type SimCores } from "./cores.ts"

/** A Cluster controller that never reports the Provisioned phase (it says Provisioning). */
export const neverProvisioned: SimCores["cluster"] = (input, config) => {
  const step = clusterController(input, config)
  const hold = <T extends { readonly phase?: unknown }>(s: T): T =>
    s.phase === "Provisioned" ? { ...s, phase: "Provisioning" } : s
  return {
    ...step,
    status: step.status === undefined ? undefined : hold(step.status),
    actions: step.actions.map((a) => (a._tag === "PatchStatus" ? { ...a, status: hold(a.status) } : a)),
  }
}

/** A Cluster controller whose status never settles: every patch carries a new observedGeneration. */
export const flapping = (): SimCores["cluster"] => {
  let n = 0
  return (input, config) => {
    const step = clusterController(input, config)
    return {
      ...step,
      actions: step.actions.map((a) =>
        a._tag === "PatchStatus" ? { ...a, status: { ...a.status, observedGeneration: ++n } } : a,
      ),
    }
  }
}
