// The injection rules of an IPAMConfig as validateIpamConfig reads them (core/ipam/rules.ts):
// rule ids, and injections with their ids, paths, parents and subnet sizes.
import { describe, expect, it } from "vitest"
import { configOf, expectIssues, rule, spec } from "./testing.ts"

describe("validateIpamConfig(): rule ids", () => {
  const withId = (id: unknown) => spec({ injectionRules: [rule([{ path: "/a", subnetSize: 24 }], { id })] })
  it("accepts a label value of 1 to 63 characters", () => {
    for (const id of ["a", "a-b", "0", "r".repeat(63)])
      expect(configOf(withId(id)).injectionRules[0]?.id).toBe(id)
  })
  it("refuses a missing id, a 64-character one, and one that is not a label value", () => {
    expectIssues(withId(undefined), [/^spec\.injectionRules\[0\]\.id: is required and must be a string$/])
    expectIssues(withId("r".repeat(64)), [/is 64 characters long; .*at most 63$/])
    for (const bad of ["-a", "a-", "A", "a_b", ""])
      expectIssues(withId(bad), [/^spec\.injectionRules\[0\]\.id: ".*" must consist of lower case letters/])
  })
  it("names the first rule of a duplicate id; two rules without an id are not duplicates of each other", () => {
    const two = (id: unknown) =>
      spec({ injectionRules: [0, 1].map(() => rule([{ path: "/a", subnetSize: 24 }], { id })) })
    expectIssues(two("x"), [
      /^spec\.injectionRules\[1\]\.id: duplicate rule id "x" \(also spec\.injectionRules\[0\]\.id\)$/,
    ])
    expectIssues(two(undefined), [
      /injectionRules\[0\]\.id: is required/,
      /injectionRules\[1\]\.id: is required/,
    ])
  })
})

describe("validateIpamConfig(): injections", () => {
  const one = (injection: unknown, parentCIDRs: unknown = { a: ["10.0.0.0/16"], six: ["fd00::/48"] }) => ({
    spec: { parentCIDRs, injectionRules: [rule([injection])] },
  })
  const at = "^spec\\.injectionRules\\[0\\]\\.injections"
  it("requires injections as a list of objects", () => {
    expectIssues(spec({ injectionRules: [{ id: "r" }] }), [new RegExp(`${at}: is required$`)])
    expectIssues(spec({ injectionRules: [rule("x" as never)] }), [
      new RegExp(`${at}: must be a list, got string$`),
    ])
    expectIssues(one(null), [new RegExp(`${at}\\[0\\]: must be an object, got null$`)])
  })
  it("reads an optional string id (empty means none) and refuses another type", () => {
    expect(
      configOf(one({ id: "", path: "/a", subnetSize: 24 })).injectionRules[0]?.injections[0]?.id,
    ).toBeUndefined()
    expectIssues(one({ id: 3, path: "/a", subnetSize: 24 }), [
      new RegExp(`${at}\\[0\\]\\.id: must be a string$`),
    ])
  })
  it("requires a non-empty path or paths, each a string, path first", () => {
    expect(
      configOf(one({ path: "", paths: ["/b", ".c"], subnetSize: 24 })).injectionRules[0]?.injections[0]
        ?.paths,
    ).toEqual(["/b", "/c"])
    expect(
      configOf(one({ path: "/a", paths: ["/b"], subnetSize: 24 })).injectionRules[0]?.injections[0]?.paths,
    ).toEqual(["/a", "/b"])
    expectIssues(one({ path: "", paths: [], subnetSize: 24 }), [
      new RegExp(
        `${at}\\[0\\]\\.path: either 'path' must be non-empty or 'paths' must contain at least one entry$`,
      ),
    ])
    expectIssues(one({ path: 5, subnetSize: 24 }), [new RegExp(`${at}\\[0\\]\\.path: must be a string$`)])
    expectIssues(one({ paths: [5], subnetSize: 24 }), [
      new RegExp(`${at}\\[0\\]\\.paths\\[0\\]: must be a string, got number$`),
      new RegExp(`${at}\\[0\\]\\.path: either 'path'`),
    ])
  })
  it("names the earlier occurrence of a duplicate path (also across the two forms)", () => {
    expectIssues(one({ path: "/a/b", paths: [".a.b"], subnetSize: 24 }), [
      new RegExp(
        `${at}\\[0\\]\\.paths\\[0\\]: duplicate path /a/b in rule "r" \\(also spec\\.injectionRules\\[0\\]\\.injections\\[0\\]\\.path\\)$`,
      ),
    ])
  })
  it("requires subnetSize as an integer from 0 to 128", () => {
    expectIssues(one({ path: "/a" }), [new RegExp(`${at}\\[0\\]\\.subnetSize: is required$`)])
    for (const bad of [-1, 129, 24.5, "24"])
      expectIssues(one({ path: "/a", subnetSize: bad }), [
        new RegExp(
          `${at}\\[0\\]\\.subnetSize: ${JSON.stringify(bad).replace(".", "\\.")} must be an integer from 0 to 128$`,
        ),
      ])
  })
  it("a size fits a parent when it is longer than the parent's prefix and at most the family's bits", () => {
    const size = (subnetSize: number, parents: ReadonlyArray<string>) =>
      one({ path: "/a", subnetSize, parents })
    for (const [s, p] of [
      [17, ["a"]],
      [32, ["a"]],
      [49, ["six"]],
      [128, ["six"]],
      [49, []],
      [17, []],
    ] as const)
      expect(configOf(size(s, p)).injectionRules[0]?.injections[0]?.subnetSize, `${s}`).toBe(s)
    expectIssues(size(33, ["a"]), [
      new RegExp(`${at}\\[0\\]\\.subnetSize: a /33 fits in none of its parents \\(a\\)`),
    ])
    expectIssues(size(48, ["six", "a"]), [/a \/48 fits in none of its parents \(six, a\)/])
    expectIssues(size(16, []), [/a \/16 fits in none of its parents \(all parent CIDRs\)/])
    expectIssues(size(0, []), [/a \/0 fits in none/])
  })
  it("a parent without CIDRs offers nothing to slice from, and an empty spec.parentCIDRs leaves no parent at all", () => {
    expectIssues(one({ path: "/a", subnetSize: 24, parents: ["e"] }, { e: [] }), [
      /a \/24 fits in none of its parents \(e\)/,
    ])
    expectIssues(one({ path: "/a", subnetSize: 24 }, {}), [
      new RegExp(`${at}\\[0\\]\\.parents: is empty, .*there is none$`),
    ])
  })
  it("an unknown parent gets no suggestion when there is no id to suggest", () => {
    expectIssues(one({ path: "/a", subnetSize: 24, parents: ["x"] }, {}), [
      new RegExp(`${at}\\[0\\]\\.parents\\[0\\]: unknown parent "x": neither .* of this rule$`),
    ])
  })
  it("an injection id is a parent for later injections of the same rule only, when the size is longer", () => {
    const rules = (second: Record<string, unknown>) => ({
      spec: {
        parentCIDRs: { a: ["10.0.0.0/16"] },
        injectionRules: [
          rule([
            { id: "n", path: "/a", parents: ["a"], subnetSize: 24 },
            { path: "/b", ...second },
          ]),
        ],
      },
    })
    expect(
      configOf(rules({ parents: ["n"], subnetSize: 25 })).injectionRules[0]?.injections[1]?.parents,
    ).toEqual(["n"])
    expect(
      configOf(rules({ parents: ["n", "a"], subnetSize: 20 })).injectionRules[0]?.injections[1]?.subnetSize,
    ).toBe(20)
    expectIssues(rules({ parents: ["nn"], subnetSize: 25 }), [
      /parents\[0\]: unknown parent "nn": .*did you mean "n"\?$/,
    ])
    const later = {
      spec: {
        parentCIDRs: { a: ["10.0.0.0/16"] },
        injectionRules: [
          rule([
            { path: "/b", parents: ["n"], subnetSize: 25 },
            { id: "n", path: "/a", parents: ["a"], subnetSize: 24 },
          ]),
        ],
      },
    }
    expectIssues(later, [/injections\[0\]\.parents\[0\]: unknown parent "n"/])
  })
})
