import { describe, expect, it } from "vitest"
import { goDuration, parseGoDuration } from "./duration.ts"

describe("goDuration", () => {
  it("words a duration as Go's time.Duration.String()", () => {
    expect(goDuration(0)).toBe("0s")
    expect(goDuration(1)).toBe("1ms")
    expect(goDuration(999)).toBe("999ms")
    expect(goDuration(1_000)).toBe("1s")
    expect(goDuration(1_500)).toBe("1.5s")
    expect(goDuration(10_000)).toBe("10s")
    expect(goDuration(59_999)).toBe("59.999s")
    expect(goDuration(60_000)).toBe("1m0s")
    expect(goDuration(90_000)).toBe("1m30s")
    expect(goDuration(3_600_000)).toBe("1h0m0s")
    expect(goDuration(5_430_250)).toBe("1h30m30.25s")
    expect(goDuration(-1_500)).toBe("-1.5s")
    expect(goDuration(-5)).toBe("-5ms")
  })
})

describe("parseGoDuration()", () => {
  it("reads every unit of Go's time.ParseDuration, in milliseconds", () => {
    expect(parseGoDuration("24h")).toBe(86_400_000)
    expect(parseGoDuration("1h30m")).toBe(5_400_000)
    expect(parseGoDuration("90s")).toBe(90_000)
    expect(parseGoDuration("100ms")).toBe(100)
    expect(parseGoDuration("1500us")).toBeCloseTo(1.5)
    expect(parseGoDuration("1000µs")).toBeCloseTo(1)
    expect(parseGoDuration("1000μs")).toBeCloseTo(1)
    expect(parseGoDuration("2000000ns")).toBeCloseTo(2)
  })
  it("reads fractions and the bare 0", () => {
    expect(parseGoDuration("0")).toBe(0)
    expect(parseGoDuration("1.5s")).toBe(1_500)
    expect(parseGoDuration(".5s")).toBe(500)
    expect(parseGoDuration(".25s")).toBe(250)
    expect(parseGoDuration("2.m")).toBe(120_000)
  })
  it("refuses texts that are not durations: no unit, unknown unit, spaces, signs, empty", () => {
    for (const bad of ["", "1", "1x", "1h 30m", "1h30", "-1h", "+1h", "h", "1d", " 1h"])
      expect(parseGoDuration(bad), bad).toBeUndefined()
  })
})
