import { describe, expect, it } from "vitest"
import { closestKey, didYouMean, editDistance } from "./suggest.ts"

describe("suggest", () => {
  it("editDistance() counts insertions, deletions and substitutions", () => {
    expect(editDistance("", "")).toBe(0)
    expect(editDistance("abc", "abc")).toBe(0)
    expect(editDistance("abc", "ab")).toBe(1)
    expect(editDistance("ab", "abc")).toBe(1)
    expect(editDistance("abc", "axc")).toBe(1)
    expect(editDistance("kitten", "sitting")).toBe(3)
  })
  it("closestKey() picks the nearest known name, ignoring case, within the typo bound", () => {
    expect(closestKey("namspace", ["name", "namespace"])).toBe("namespace")
    expect(closestKey("NOW", ["now", "observed"])).toBe("now")
    expect(closestKey("zzzzzz", ["name", "namespace"])).toBeUndefined()
    // The bound: 2 edits for short names, half the length for long ones.
    expect(closestKey("ab", ["abcd"])).toBe("abcd")
    expect(closestKey("ab", ["abcde"])).toBeUndefined()
    expect(closestKey("abcdefghij", ["abcdefghijklmno"])).toBe("abcdefghijklmno")
    expect(closestKey("abcdefghij", ["abcdefghijklmnop"])).toBeUndefined()
    expect(closestKey("x", [])).toBeUndefined()
  })
  it("closestKey() breaks a tie by the order of the known names, so the suggestion is stable", () => {
    expect(closestKey("ab", ["ax", "ay"])).toBe("ax")
    expect(closestKey("ab", ["ay", "ax"])).toBe("ay")
  })
  it("didYouMean() renders the suggestion or nothing", () => {
    expect(didYouMean("fixAfer", ["at", "fixAfter"])).toBe('; did you mean "fixAfter"?')
    expect(didYouMean("qqqqqqq", ["at"])).toBe("")
  })
})
