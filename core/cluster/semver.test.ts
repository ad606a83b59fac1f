import { describe, expect, it } from "vitest"
import { compareSemVer, compareWithBuild, parseStrict, parseTolerant, type SemVer } from "./semver.ts"

const v = (
  major: bigint,
  minor: bigint,
  patch: bigint,
  pre: Array<bigint | string> = [],
  build: Array<string> = [],
) => ({
  major,
  minor,
  patch,
  pre,
  build,
})
const U64_MAX = "18446744073709551615"
const U64_OVER = "18446744073709551616"

describe("parseStrict (blang/semver's Parse)", () => {
  it("parses MAJOR.MINOR.PATCH with pre-release and build identifiers", () => {
    expect(parseStrict("1.2.3")).toEqual(v(1n, 2n, 3n))
    expect(parseStrict("0.0.0")).toEqual(v(0n, 0n, 0n))
    expect(parseStrict("1.2.3-rc.1+b.2")).toEqual(v(1n, 2n, 3n, ["rc", 1n], ["b", "2"]))
    expect(parseStrict("1.2.3-0")).toEqual(v(1n, 2n, 3n, [0n]))
    expect(parseStrict("1.2.3-0a.a-b.1")).toEqual(v(1n, 2n, 3n, ["0a", "a-b", 1n]))
    expect(parseStrict("1.2.3+b-c")).toEqual(v(1n, 2n, 3n, [], ["b-c"]))
    expect(parseStrict("1.2.3+001.x")).toEqual(v(1n, 2n, 3n, [], ["001", "x"]))
    expect(parseStrict(`1.2.3+${U64_OVER}`)).toEqual(v(1n, 2n, 3n, [], [U64_OVER]))
  })
  it("takes numbers up to 2^64-1", () => {
    expect(parseStrict(`${U64_MAX}.${U64_MAX}.${U64_MAX}-${U64_MAX}`)).toEqual(
      v(2n ** 64n - 1n, 2n ** 64n - 1n, 2n ** 64n - 1n, [2n ** 64n - 1n]),
    )
    for (const s of [`${U64_OVER}.0.0`, `0.${U64_OVER}.0`, `0.0.${U64_OVER}`, `0.0.0-${U64_OVER}`])
      expect(parseStrict(s)).toBeUndefined()
  })
  it("refuses anything else", () => {
    for (const s of [
      "",
      "1",
      "1.2",
      "1.2.",
      "1..3",
      ".2.3",
      "1.2.3.4",
      "a.2.3",
      "1.b.3",
      "1.2.c",
      "1.2.-rc",
      "1.2.+b",
      "01.2.3",
      "1.02.3",
      "1.2.03",
      "1.2.3-",
      "1.2.3-01",
      "1.2.3-00",
      "1.2.3-a..b",
      "1.2.3-a.",
      "1.2.3-a_b",
      "1.2.3-a+",
      "1.2.3+",
      "1.2.3+a..b",
      "1.2.3+a.",
      "1.2.3+a_b",
      "v1.2.3",
      " 1.2.3",
      "1.2.3 ",
      "-1.2.3",
    ])
      expect(parseStrict(s), s).toBeUndefined()
  })
})

describe("parseTolerant (blang/semver's ParseTolerant)", () => {
  it("trims Go's white space and one leading v, strips leading zeros, fills in a missing minor or patch", () => {
    expect(parseTolerant("  v1.2.3\n")).toEqual(v(1n, 2n, 3n))
    expect(parseTolerant("\u00851.2.3\u00a0\u3000")).toEqual(v(1n, 2n, 3n))
    expect(parseTolerant("\t1.2.3-rc.1+b \v")).toEqual(v(1n, 2n, 3n, ["rc", 1n], ["b"]))
    expect(parseTolerant("01.002.0003")).toEqual(v(1n, 2n, 3n))
    expect(parseTolerant("v1.10.100")).toEqual(v(1n, 10n, 100n))
    expect(parseTolerant("v10.20.30")).toEqual(v(10n, 20n, 30n))
    expect(parseTolerant("00.00.00")).toEqual(v(0n, 0n, 0n))
    expect(parseTolerant("0.0.0")).toEqual(v(0n, 0n, 0n))
    expect(parseTolerant("1.2.00-rc.1")).toEqual(v(1n, 2n, 0n, ["rc", 1n]))
    expect(parseTolerant("1.2.007-rc")).toEqual(v(1n, 2n, 7n, ["rc"]))
    expect(parseTolerant("v1")).toEqual(v(1n, 0n, 0n))
    expect(parseTolerant("1")).toEqual(v(1n, 0n, 0n))
    expect(parseTolerant("0")).toEqual(v(0n, 0n, 0n))
    expect(parseTolerant("v1.34")).toEqual(v(1n, 34n, 0n))
    expect(parseTolerant("v01.034")).toEqual(v(1n, 34n, 0n))
  })
  it("refuses what Parse refuses once so prepared", () => {
    for (const s of [
      "",
      " ",
      "v",
      "vv1.2.3",
      "V1.2.3",
      "\ufeff1.2.3",
      "\u200b1.2.3",
      "1.2. 3",
      "1 .2.3",
      "1.2-rc",
      "1-rc",
      "1.2+b",
      "1+b",
      "v1.34-rc.1",
      "1.2.3-01",
      "1.2.0a",
      "1.2.a",
      "1.2.3.4",
      "latest",
      `${U64_OVER}`,
    ])
      expect(parseTolerant(s), JSON.stringify(s)).toBeUndefined()
  })
})

describe("compareSemVer and compareWithBuild", () => {
  const p = (s: string) => parseStrict(s) as SemVer
  const ascending = (compare: (a: SemVer, b: SemVer) => number, list: ReadonlyArray<string>) => {
    for (let i = 0; i < list.length; i++)
      for (let j = 0; j < list.length; j++) {
        const want = i < j ? -1 : i > j ? 1 : 0
        expect(compare(p(list[i] as string), p(list[j] as string)), `${list[i]} vs ${list[j]}`).toBe(want)
      }
  }
  it("orders by semver precedence: core numerically, a pre-release below its release, identifiers left to right", () => {
    const list = [
      "0.0.0",
      "0.0.1",
      "0.1.0",
      "0.9.0",
      "0.10.0",
      "1.0.0-0",
      "1.0.0-1",
      "1.0.0-2",
      "1.0.0-10",
      "1.0.0-10.1",
      "1.0.0-A",
      "1.0.0-alpha",
      "1.0.0-alpha.1",
      "1.0.0-alpha.beta",
      "1.0.0-beta",
      "1.0.0-beta.2",
      "1.0.0-beta.11",
      "1.0.0-rc.1",
      "1.0.0",
      "1.0.1",
      "1.1.0",
      "2.0.0",
      "10.0.0",
    ]
    ascending(compareSemVer, list)
    ascending(compareWithBuild, list)
  })
  it("ignores build metadata for precedence", () => {
    expect(compareSemVer(p("1.0.0+a"), p("1.0.0+b"))).toBe(0)
    expect(compareSemVer(p("1.0.0+1"), p("1.0.0"))).toBe(0)
    expect(compareSemVer(p("1.0.0-rc.1+x"), p("1.0.0-rc.1"))).toBe(0)
  })
  it("then orders build identifiers: numbers numerically and below words, more identifiers greater", () => {
    ascending(compareWithBuild, [
      "1.0.0-rc+9",
      "1.0.0",
      "1.0.0+0",
      "1.0.0+1",
      "1.0.0+1.a",
      "1.0.0+2",
      "1.0.0+10",
      "1.0.0+10.0",
      "1.0.0+10.1",
      "1.0.0+10.a",
      "1.0.0+a",
      "1.0.0+a.1",
      "1.0.0+a.2",
      "1.0.0+a.a",
      "1.1.0+0",
    ])
    expect(compareWithBuild(p("1.0.0+007"), p("1.0.0+7"))).toBe(0)
  })
  it("saturates build numbers beyond 2^64-1", () => {
    expect(compareWithBuild(p(`1.0.0+${U64_OVER}`), p(`1.0.0+${U64_MAX}`))).toBe(0)
    expect(compareWithBuild(p(`1.0.0+1${U64_OVER}`), p(`1.0.0+${U64_MAX}`))).toBe(0)
    expect(compareWithBuild(p(`1.0.0+${U64_OVER}`), p("1.0.0+18446744073709551614"))).toBe(1)
    expect(compareWithBuild(p("1.0.0+18446744073709551614"), p(`1.0.0+${U64_OVER}`))).toBe(-1)
  })
  it("cannot order two different build words: 2, either way", () => {
    expect(compareWithBuild(p("1.0.0+a"), p("1.0.0+b"))).toBe(2)
    expect(compareWithBuild(p("1.0.0+b"), p("1.0.0+a"))).toBe(2)
    expect(compareWithBuild(p("1.0.0+1.a"), p("1.0.0+1.b.0"))).toBe(2)
    expect(compareWithBuild(p("1.0.0+a.1"), p("1.0.0+a.1"))).toBe(0)
  })
})
