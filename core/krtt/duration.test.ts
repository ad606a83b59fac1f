import { describe, expect, it } from "vitest"
import { goDuration } from "./duration.ts"

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
