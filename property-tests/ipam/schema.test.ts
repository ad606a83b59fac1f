/**
 * The strict input schemas of `krtt explain ipam.*` accept every generated input written as JSON,
 * decode it to an input that the transition decides the same way, and name the closest known
 * field for an unknown one.
 *
 * @module
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { reconcileTransition, triggerTransition } from "../../core/ipam/index.ts"
import { decodeInput } from "../../shell/cli/explain.ts"
import { reconcileInput, triggerInput } from "./arbitraries.ts"

describe("IPAM explain input schemas", () => {
  it("every generated trigger input survives JSON and decides the same row", () => {
    fc.assert(
      fc.property(triggerInput, (input) => {
        const decoded = decodeInput("ipam.trigger", JSON.stringify(input))
        expect(triggerTransition(decoded as typeof input).row).toBe(triggerTransition(input).row)
      }),
      { numRuns: 300 },
    )
  })

  it("every generated reconcile input survives JSON and decides the same row", () => {
    fc.assert(
      fc.property(reconcileInput, (input) => {
        const decoded = decodeInput("ipam.reconcile", JSON.stringify(input))
        expect(reconcileTransition(decoded as typeof input).row).toBe(reconcileTransition(input).row)
      }),
      { numRuns: 300 },
    )
  })

  it("an unknown field names the closest known one", () => {
    const [input] = fc.sample(reconcileInput, { numRuns: 1, seed: 1 })
    const bad = { ...(input as object), trigger: { _tag: "Reconcile", namespace: "ns", nmae: "c1" } }
    expect(() => decodeInput("ipam.reconcile", JSON.stringify(bad))).toThrow(
      /input\.trigger\.nmae: unknown field; did you mean "name"\?/,
    )
    // exactly one complaint, about the unknown key only (known keys are never "unknown")
    let message = ""
    try {
      decodeInput("ipam.reconcile", JSON.stringify(bad))
    } catch (e) {
      message = (e as Error).message
    }
    expect(message.match(/unknown field/g)).toHaveLength(1)
  })
})
