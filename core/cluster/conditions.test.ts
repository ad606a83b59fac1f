// The condition helpers of the Cluster controller's status, word for word: the CRD's limits at
// their boundaries, transition times, v1beta1 mirrors (severity, no empty message), the
// aggregated messages ("MachineDeployment a is not Ready: …", "a, b and 1 more are not …").
import { describe, expect, it } from "vitest"
import {
  aggregate,
  anyInProgress,
  ConditionLimits,
  clockAt,
  listNames,
  v1beta1Condition,
  v1beta2Condition,
  validReason,
} from "./conditions.ts"

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5, 678)
const clock = clockAt(T0)
const reasons = { isTrue: "Ready", isFalse: "NotReady", isUnknown: "ReadyUnknown", none: "NoMachines" }
const obj = (name: string, status?: "True" | "False" | "Unknown", message?: string) => ({
  metadata: { name },
  status:
    status === undefined
      ? {}
      : {
          conditions: [{ type: "Ready", status, reason: "R", ...(message === undefined ? {} : { message }) }],
        },
})

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

  it("v1beta1: no empty message, a severity (Info unless told) only when False, its own message limit", () => {
    const t = "2026-01-02T03:04:05Z"
    expect(v1beta1Condition("A", { status: "True", reason: "R", message: "" }, [], clock)).toStrictEqual({
      type: "A",
      status: "True",
      reason: "R",
      lastTransitionTime: t,
    })
    expect(v1beta1Condition("A", { status: "True", reason: "R", message: "m" }, [], clock)).toStrictEqual({
      type: "A",
      status: "True",
      reason: "R",
      message: "m",
      lastTransitionTime: t,
    })
    expect(v1beta1Condition("A", { status: "False", reason: "R" }, [], clock)).toStrictEqual({
      type: "A",
      status: "False",
      severity: "Info",
      reason: "R",
      lastTransitionTime: t,
    })
    expect(
      v1beta1Condition("A", { status: "False", reason: "R", message: "m", severity: "Error" }, [], clock),
    ).toStrictEqual({
      type: "A",
      status: "False",
      severity: "Error",
      reason: "R",
      message: "m",
      lastTransitionTime: t,
    })
    const at = "x".repeat(ConditionLimits.v1beta1MessageMax)
    expect(v1beta1Condition("A", { status: "True", reason: "R", message: at }, [], clock).message).toBe(at)
    expect(
      v1beta1Condition("A", { status: "True", reason: "R", message: `${at}y` }, [], clock).message,
    ).toHaveLength(ConditionLimits.v1beta1MessageMax)
  })

  it("validReason keeps a reason at the length limit and matching the pattern, else the fallback", () => {
    expect(validReason("a".repeat(8), "F", 8)).toBe("a".repeat(8))
    expect(validReason("a".repeat(9), "F", 8)).toBe("F")
    expect(validReason("not valid", "F", 100)).toBe("F")
    expect(validReason(undefined, "F", 100)).toBe("F")
  })

  it("listNames shows at most max names and counts the rest", () => {
    expect(listNames(["a", "b", "c"], 3)).toBe("a, b, c")
    expect(listNames(["a", "b", "c", "d"], 3)).toBe("a, b, c and 1 more")
    expect(listNames([], 3)).toBe("")
  })

  it("aggregate: False wins with the first message when one is False; Unknown for those silent; True when all are", () => {
    const agg = (os: ReturnType<typeof obj>[]) =>
      aggregate(os, "Ready", { one: "MachineDeployment", many: "MachineDeployments" }, reasons, 3)
    expect(agg([])).toEqual({ status: "True", reason: "NoMachines" })
    expect(agg([obj("a", "True"), obj("b", "True")])).toEqual({ status: "True", reason: "Ready" })
    expect(agg([obj("a", "True"), obj("b", "False", ""), obj("c", "False", "disk full")])).toEqual({
      status: "False",
      reason: "NotReady",
      message: "MachineDeployments b, c are not Ready",
    })
    expect(agg([obj("a", "False", "disk full"), obj("b", "Unknown")])).toEqual({
      status: "False",
      reason: "NotReady",
      message: "MachineDeployment a is not Ready: disk full",
    })
    expect(agg([obj("a", "False", "")])).toEqual({
      status: "False",
      reason: "NotReady",
      message: "MachineDeployment a is not Ready",
    })
    expect(agg([obj("a", "False", "first"), obj("b", "True")])).toEqual({
      status: "False",
      reason: "NotReady",
      message: "MachineDeployment a is not Ready: first",
    })
    expect(agg([obj("a", "False")])).toEqual({
      status: "False",
      reason: "NotReady",
      message: "MachineDeployment a is not Ready",
    })
    expect(agg([obj("a"), obj("b", "Unknown")])).toEqual({
      status: "Unknown",
      reason: "ReadyUnknown",
      message: "MachineDeployments a, b do not report Ready yet",
    })
    expect(agg([obj("a")])).toEqual({
      status: "Unknown",
      reason: "ReadyUnknown",
      message: "MachineDeployment a does not report Ready yet",
    })
  })

  it("anyInProgress: True with the reporters (and the one's message), else False", () => {
    const src = (name: string, status: "True" | "False", message?: string) => ({
      kind: "MachineDeployment",
      name,
      conditions: [
        { type: "RollingOut", status, reason: "R", ...(message === undefined ? {} : { message }) },
      ],
    })
    const r = { isTrue: "RollingOut", isFalse: "NotRollingOut" }
    expect(anyInProgress([src("a", "False")], "RollingOut", r, 3)).toEqual({
      status: "False",
      reason: "NotRollingOut",
    })
    expect(
      anyInProgress([src("a", "True", "2 of 3 replaced"), src("b", "False")], "RollingOut", r, 3),
    ).toEqual({
      status: "True",
      reason: "RollingOut",
      message: "MachineDeployment a reports RollingOut: 2 of 3 replaced",
    })
    expect(anyInProgress([src("a", "True", "x"), src("b", "True", "y")], "RollingOut", r, 3)).toEqual({
      status: "True",
      reason: "RollingOut",
      message: "MachineDeployment a, MachineDeployment b report RollingOut",
    })
    for (const quiet of [src("a", "True"), src("a", "True", "")])
      expect(anyInProgress([quiet, src("b", "False", "n")], "RollingOut", r, 3)).toEqual({
        status: "True",
        reason: "RollingOut",
        message: "MachineDeployment a reports RollingOut",
      })
    expect(anyInProgress([src("a", "True", "x"), src("b", "True")], "RollingOut", r, 3).message).toBe(
      "MachineDeployment a, MachineDeployment b report RollingOut",
    )
    expect(anyInProgress([src("a", "True", ""), src("b", "True", "y")], "RollingOut", r, 1).message).toBe(
      "MachineDeployment a and 1 more report RollingOut",
    )
  })
})
