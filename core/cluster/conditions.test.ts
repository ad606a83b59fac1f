// The v1beta2 condition helpers of the Cluster controller's status: the CRD's limits at their
// boundaries, transition times, reasons the CRD accepts.
import { describe, expect, it } from "vitest"
import { ConditionLimits, clockAt, v1beta2Condition, validReason } from "./conditions.ts"

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5, 678)
const clock = clockAt(T0)
describe("condition helpers", () => {
  it("formats the clock's time once, in seconds; keeps a transition time while the status stays", () => {
    expect(clock()).toBe("2026-01-02T03:04:05Z")
    const old = [
      { type: "A", status: "True" as const, reason: "R", lastTransitionTime: "2020-01-01T00:00:00Z" },
    ]
    expect(v1beta2Condition("A", { status: "True", reason: "R" }, old, 3, clock).lastTransitionTime).toBe(
      "2020-01-01T00:00:00Z",
    )
    expect(v1beta2Condition("A", { status: "False", reason: "R" }, old, 3, clock).lastTransitionTime).toBe(
      "2026-01-02T03:04:05Z",
    )
  })

  it("v1beta2: message always present and cut at the CRD's limit; observedGeneration only from 1", () => {
    const at = "x".repeat(ConditionLimits.v1beta2MessageMax)
    expect(v1beta2Condition("A", { status: "True", reason: "R", message: at }, [], 1, clock).message).toBe(at)
    const over = v1beta2Condition(
      "A",
      { status: "True", reason: "R", message: `${at}y` },
      [],
      1,
      clock,
    ).message
    expect(over).toBe(`${"x".repeat(ConditionLimits.v1beta2MessageMax - 3)}...`)
    expect(v1beta2Condition("A", { status: "True", reason: "R" }, [], 0, clock)).toStrictEqual({
      type: "A",
      status: "True",
      reason: "R",
      message: "",
      lastTransitionTime: "2026-01-02T03:04:05Z",
    })
    expect(v1beta2Condition("A", { status: "True", reason: "R" }, [], 1, clock).observedGeneration).toBe(1)
  })

  it("validReason keeps a reason at the length limit and matching the pattern, else the fallback", () => {
    expect(validReason("a".repeat(8), "F", 8)).toBe("a".repeat(8))
    expect(validReason("a".repeat(9), "F", 8)).toBe("F")
    expect(validReason("not valid", "F", 100)).toBe("F")
    expect(validReason(undefined, "F", 100)).toBe("F")
  })
})
