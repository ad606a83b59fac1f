import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { readControlPlaneVersions } from "./readVersions.ts"
import { compareWithBuild, parseStrict, parseTolerant, type SemVer } from "./semver.ts"
import type { Machine } from "./types.ts"
import { aggregateVersions, compareStrings, goStableSort, versionsFromMachines } from "./versions.ts"

const machine = (name: string, created: string, spec?: string, kubelet?: string): Machine => ({
  metadata: { name, creationTimestamp: created },
  ...(spec === undefined ? {} : { spec: { version: spec } }),
  ...(kubelet === undefined ? {} : { status: { nodeInfo: { kubeletVersion: kubelet } } }),
})

describe("semver as Cluster API v1.14.2 reads it", () => {
  it("parses tolerantly: v prefix, spaces, leading zeros, short forms; strictly otherwise", () => {
    expect(parseTolerant(" v1.34 ")).toMatchObject({ major: 1n, minor: 34n, patch: 0n })
    expect(parseTolerant("v01.02.03")).toMatchObject({ major: 1n, minor: 2n, patch: 3n })
    expect(parseTolerant("v1.34-rc.1")).toBeUndefined()
    expect(parseTolerant("latest")).toBeUndefined()
    expect(parseStrict("1.34.1+a.b")).toMatchObject({ build: ["a", "b"] })
    expect(parseStrict("01.2.3")).toBeUndefined()
    expect(parseStrict("1.2.3-01")).toBeUndefined()
    expect(parseStrict("18446744073709551616.0.0")).toBeUndefined()
  })
  it("orders by precedence, then build identifiers: numbers below words, different words incomparable", () => {
    const c = (a: string, b: string) =>
      compareWithBuild(parseTolerant(a) as SemVer, parseTolerant(b) as SemVer)
    expect(c("v1.34.0-rc.1", "v1.34.0")).toBe(-1)
    expect(c("v1.34.0+2", "v1.34.0+10")).toBe(-1)
    expect(c("v1.34.0+1", "v1.34.0+a")).toBe(-1)
    expect(c("v1.34.0+a", "v1.34.0+b")).toBe(2)
    expect(c("v1.34.0+a", "v1.34.0+a.1")).toBe(-1)
    expect(c("v1.34.0", "1.34.0")).toBe(0)
  })
})

describe("versions (status.controlPlane.versions, status.workers.versions)", () => {
  it("sums per exact string, sorts ascending, puts non-versions last and leaves out empty ones", () => {
    expect(
      aggregateVersions([
        { version: "latest", replicas: 1 },
        { version: "v1.34.1", replicas: 2 },
        { version: "", replicas: 9 },
        { version: "v1.9.0", replicas: 1 },
        { version: "1.34.1", replicas: 1 },
        { version: "v1.34.1", replicas: 1 },
        { version: "v1.33.0" },
      ]),
    ).toEqual([
      { version: "v1.9.0", replicas: 1 },
      { version: "v1.33.0" },
      { version: "1.34.1", replicas: 1 },
      { version: "v1.34.1", replicas: 3 },
      { version: "latest", replicas: 1 },
    ])
    expect(aggregateVersions([])).toBeUndefined()
    expect(aggregateVersions([{ version: "", replicas: 1 }])).toBeUndefined()
  })
  it("keeps incomparable build words in the order first seen", () => {
    const out = aggregateVersions([
      { version: "v1.34.0+b", replicas: 1 },
      { version: "v1.34.0+a", replicas: 1 },
    ])
    expect(out?.map((v) => v.version)).toEqual(["v1.34.0+b", "v1.34.0+a"])
  })
  it("takes a Machine's kubelet version over its spec, skips Machines without one", () => {
    expect(
      versionsFromMachines([
        machine("b", "2026-01-01T00:00:01Z", "v1.33.0", "v1.34.1"),
        machine("a", "2026-01-01T00:00:01Z", "v1.33.0"),
        machine("c", "2026-01-01T00:00:00Z"),
      ]),
    ).toEqual([
      { version: "v1.33.0", replicas: 1 },
      { version: "v1.34.1", replicas: 1 },
    ])
    expect(versionsFromMachines([machine("c", "2026-01-01T00:00:00Z")])).toBeUndefined()
  })
  it("sorts as a stable sort for any total order, over lists beyond one block of 20", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.nat()), { maxLength: 90 }), (xs) => {
        const go = [...xs]
        goStableSort(go, (a, b) => a[0] < b[0])
        expect(go).toEqual([...xs].sort((a, b) => a[0] - b[0]))
      }),
    )
  })
})

describe("a control-plane object's status.versions", () => {
  const read = (versions: unknown) => readControlPlaneVersions({ status: { versions } })
  it("is read when every version parses, in ascending order, with replicas of at least 0", () => {
    expect(read([{ version: "v1.33.0", replicas: 1 }, { version: "v1.34.0" }])).toEqual({
      _tag: "Read",
      versions: [{ version: "v1.33.0", replicas: 1 }, { version: "v1.34.0" }],
    })
    expect(read([{ Version: "v1.33.0", replicas: 0 }])).toEqual({
      _tag: "Read",
      versions: [{ version: "v1.33.0" }],
    })
    expect(read([{ version: "v1.34.0+a" }, { version: "v1.34.0+b" }])._tag).toBe("Read")
  })
  it("is missing without status or status.versions", () => {
    expect(readControlPlaneVersions({})).toEqual({ _tag: "Missing" })
    expect(readControlPlaneVersions({ status: {} })).toEqual({ _tag: "Missing" })
  })
  it("does not read otherwise", () => {
    for (const bad of [
      null,
      "v1.34.0",
      [{ version: "v1.34.0" }, { version: "v1.33.0" }],
      [{ version: "latest" }],
      [{ version: "v1.34.0", replicas: -1 }],
      [{ version: "v1.34.0", replicas: 1.5 }],
      [{ version: 1 }],
      [null],
    ])
      expect(read(bad)._tag).toBe("Invalid")
  })
})

/** Go 1.26's `sort.SliceStable` over the list below, with a `less` that is no order at all. */
const GO_SLICE_STABLE: ReadonlyArray<readonly [number, ReadonlyArray<number>]> = [
  [0, []],
  [1, [11]],
  [2, [7, 20]],
  [5, [31, 3, 34, 47, 49]],
  [19, [10, 35, 4, 6, 19, 42, 25, 14, 0, 20, 16, 48, 19, 0, 4, 34, 0, 1, 32]],
  [20, [16, 18, 30, 25, 31, 8, 17, 45, 14, 41, 40, 3, 17, 0, 39, 32, 15, 38, 17, 22]],
  [21, [28, 16, 22, 19, 20, 48, 32, 18, 39, 25, 22, 19, 15, 6, 21, 35, 45, 20, 26, 26, 48]],
  [22, [7, 21, 28, 42, 24, 45, 5, 29, 19, 10, 46, 4, 11, 37, 28, 19, 40, 12, 15, 14, 14, 22]],
  [
    39,
    [
      31, 24, 2, 18, 23, 4, 28, 22, 30, 34, 5, 3, 4, 49, 35, 2, 43, 21, 25, 14, 11, 29, 40, 39, 15, 43, 7, 3,
      48, 45, 21, 2, 35, 27, 44, 32, 30, 27, 7,
    ],
  ],
  [
    40,
    [
      6, 10, 23, 25, 9, 16, 14, 43, 20, 18, 18, 12, 48, 6, 41, 3, 48, 36, 10, 18, 48, 21, 11, 24, 20, 6, 29,
      5, 39, 6, 29, 33, 24, 20, 27, 9, 1, 29, 5, 41,
    ],
  ],
  [
    41,
    [
      44, 44, 23, 9, 45, 45, 26, 19, 33, 27, 9, 27, 25, 36, 24, 45, 49, 9, 37, 46, 30, 28, 12, 25, 31, 43, 29,
      22, 7, 28, 19, 19, 4, 41, 36, 49, 21, 27, 44, 34, 39,
    ],
  ],
  [
    43,
    [
      37, 7, 44, 34, 21, 46, 4, 24, 13, 34, 34, 1, 45, 22, 34, 10, 15, 30, 39, 4, 6, 6, 2, 11, 25, 18, 20, 10,
      31, 43, 1, 26, 0, 31, 47, 13, 20, 30, 23, 20, 11, 36, 19,
    ],
  ],
  [
    61,
    [
      32, 42, 44, 18, 46, 46, 44, 3, 3, 24, 27, 29, 11, 37, 44, 42, 17, 3, 31, 10, 5, 22, 13, 39, 46, 25, 44,
      43, 35, 25, 6, 10, 18, 14, 13, 48, 17, 23, 43, 43, 14, 41, 28, 23, 26, 16, 17, 40, 33, 12, 15, 45, 3,
      13, 17, 47, 40, 22, 4, 14, 18,
    ],
  ],
  [
    79,
    [
      25, 5, 38, 8, 23, 44, 36, 49, 14, 3, 49, 1, 23, 14, 1, 44, 25, 7, 12, 30, 42, 35, 32, 41, 30, 2, 3, 3,
      19, 25, 26, 28, 9, 44, 13, 11, 18, 2, 3, 31, 0, 27, 33, 21, 32, 2, 3, 20, 32, 4, 16, 39, 13, 22, 22, 13,
      49, 5, 29, 23, 16, 46, 39, 38, 24, 10, 22, 29, 6, 11, 35, 28, 17, 47, 3, 14, 21, 4, 8,
    ],
  ],
  [
    80,
    [
      40, 45, 47, 33, 24, 32, 40, 34, 16, 19, 4, 18, 45, 45, 8, 27, 49, 5, 19, 39, 3, 3, 5, 48, 15, 37, 13,
      12, 47, 3, 18, 21, 14, 16, 46, 30, 15, 14, 15, 12, 49, 9, 14, 42, 23, 7, 42, 30, 5, 17, 10, 36, 22, 41,
      32, 18, 37, 23, 16, 21, 9, 33, 24, 3, 31, 40, 19, 19, 45, 15, 15, 30, 30, 30, 7, 48, 38, 8, 28, 49,
    ],
  ],
  [
    81,
    [
      36, 27, 28, 19, 3, 33, 15, 20, 6, 38, 16, 18, 10, 28, 41, 25, 40, 43, 5, 1, 48, 20, 15, 31, 47, 24, 10,
      40, 10, 10, 18, 18, 28, 23, 16, 37, 8, 14, 49, 49, 7, 24, 33, 3, 34, 0, 18, 9, 43, 33, 25, 46, 18, 9,
      44, 14, 35, 14, 40, 4, 4, 39, 45, 17, 38, 10, 29, 20, 40, 29, 26, 31, 23, 37, 46, 40, 38, 0, 22, 42, 39,
    ],
  ],
  [
    100,
    [
      38, 27, 47, 21, 42, 2, 35, 21, 42, 48, 46, 6, 19, 32, 12, 31, 47, 49, 17, 10, 39, 14, 28, 25, 43, 30,
      45, 17, 34, 43, 40, 29, 8, 42, 36, 8, 21, 19, 46, 4, 46, 46, 30, 21, 38, 8, 0, 28, 36, 41, 27, 47, 49,
      46, 36, 5, 45, 18, 42, 36, 33, 12, 9, 40, 38, 1, 7, 9, 44, 44, 0, 3, 43, 14, 6, 33, 22, 36, 37, 48, 37,
      24, 34, 32, 40, 1, 11, 28, 9, 36, 33, 24, 22, 48, 31, 31, 24, 17, 3, 43,
    ],
  ],
]

/** The input of GO_SLICE_STABLE's case of length n: a 32-bit linear congruential sequence. */
const goInput = (n: number): Array<number> => {
  const xs: Array<number> = []
  let s = (n * 7 + 3) >>> 0
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0
    xs.push((s >>> 16) % 50)
  }
  return xs
}

const chaoticLess = (a: number, b: number): boolean => (a * 31 + b * 17) % 7 < 3

/** Distinct versions in the order aggregateVersions sorts them. */
const ASCENDING = [
  "v1.9.0",
  "1.10.0-alpha",
  "v1.10.0-alpha.1",
  "v1.10.0-alpha.beta",
  "v1.10.0-beta",
  "v1.10.0-beta.2",
  "v1.10.0-beta.11",
  "v1.10.0-rc.1",
  " v1.10.0",
  "01.10.0",
  "1.10.0",
  "v1.10",
  "v1.10.0",
  "v1.10.0+1",
  "v1.10.0+2",
  "v1.10.0+10",
  "v1.10.0+a",
  "v1.10.0+a.1",
  "v1.10.1",
  "v1.11",
  "v1.11.1",
  "v2",
  "v10.0.0",
  "Latest",
  "latest",
  "v1.2.3.4",
  "v1.x",
  "vNext",
  "z",
  "\u00e9",
  "\uffff",
  "\u{1f600}",
]

describe("Go's sort.SliceStable", () => {
  it("gives Go's order for any less, lists of several blocks of 20 included", () => {
    for (const [n, want] of GO_SLICE_STABLE) {
      const xs = goInput(n)
      goStableSort(xs, chaoticLess)
      expect(xs, `length ${n}`).toEqual(want)
    }
  })
  it("is a stable sort for a total order: equal keys keep their input order", () => {
    const list = fc
      .integer({ min: 0, max: 100 })
      .chain((n) =>
        fc
          .integer({ min: 1, max: 40 })
          .chain((keys) => fc.array(fc.integer({ min: 0, max: keys - 1 }), { minLength: n, maxLength: n })),
      )
    fc.assert(
      fc.property(list, (keys) => {
        const items = keys.map((key, i) => ({ key, i }))
        const go = [...items]
        goStableSort(go, (a, b) => a.key < b.key)
        expect(go).toEqual([...items].sort((a, b) => a.key - b.key))
      }),
      { numRuns: 200 },
    )
  })
})

describe("aggregateVersions over longer lists", () => {
  it("sums per string and sorts any shuffle of versions, beyond one block of 20", () => {
    const entries = fc.integer({ min: 0, max: 80 }).chain((n) =>
      fc.array(
        fc.tuple(fc.integer({ min: 0, max: ASCENDING.length - 1 }), fc.option(fc.nat(3), { nil: undefined })),
        {
          minLength: n,
          maxLength: n,
        },
      ),
    )
    fc.assert(
      fc.property(entries, (xs) => {
        const sums = new Map<number, number>()
        for (const [i, r] of xs) sums.set(i, (sums.get(i) ?? 0) + (r ?? 0))
        const want = [...sums.keys()]
          .sort((a, b) => a - b)
          .map((i) => {
            const replicas = sums.get(i) ?? 0
            const version = ASCENDING[i] as string
            return replicas === 0 ? { version } : { version, replicas }
          })
        const got = aggregateVersions(
          xs.map(([i, replicas]) =>
            replicas === undefined
              ? { version: ASCENDING[i] as string }
              : { version: ASCENDING[i] as string, replicas },
          ),
        )
        expect(got).toEqual(want.length === 0 ? undefined : want)
      }),
      { numRuns: 200 },
    )
  })
  it("keeps build words it cannot order in the order first seen, among versions it can", () => {
    expect(
      aggregateVersions(
        [
          "v1.34.0+b",
          "v1.35.0",
          "v1.34.0+a",
          "v1.34.0",
          "v1.34.0+c",
          "v1.34.0+1",
          "v1.34.0+b",
          "v1.33.0",
        ].map((version) => ({ version, replicas: 1 })),
      )?.map((v) => v.version),
    ).toEqual(["v1.33.0", "v1.34.0", "v1.34.0+1", "v1.34.0+b", "v1.34.0+a", "v1.34.0+c", "v1.35.0"])
  })
})

describe("compareStrings (Go's string order)", () => {
  it("orders by code point, which is UTF-8 byte order, a prefix first", () => {
    const list = ["", "A", "B", "a", "ab", "abc", "b", "\u00e9", "\uffff", "\u{10000}", "\u{1f600}"]
    for (let i = 0; i < list.length; i++)
      for (let j = 0; j < list.length; j++)
        expect(Math.sign(compareStrings(list[i] as string, list[j] as string)), `${i} vs ${j}`).toBe(
          Math.sign(i - j),
        )
  })
})

describe("versionsFromMachines' order of Machines", () => {
  it("takes Machines by creation time, then name; none or an unreadable one first; the input untouched", () => {
    const machines: Array<Machine> = [
      machine("a", "2026-01-01T00:00:02Z", "v1.34.0+x"),
      machine("e", "2026-01-01T00:00:01Z", "v1.34.0+v"),
      machine("b", "2026-01-01T00:00:01Z", "v1.34.0+y"),
      { metadata: { name: "d", creationTimestamp: "not a time" }, spec: { version: "v1.34.0+w" } },
      { metadata: { name: "c" }, spec: { version: "v1.34.0+z" } },
      machine("f", "2025-12-31T23:59:59Z", "v1.34.0+u"),
      machine("g", "2026-01-01T00:00:00Z", undefined, ""),
    ]
    const copy = [...machines]
    expect(versionsFromMachines(machines)?.map((v) => v.version)).toEqual([
      "v1.34.0+z",
      "v1.34.0+w",
      "v1.34.0+u",
      "v1.34.0+y",
      "v1.34.0+v",
      "v1.34.0+x",
    ])
    expect(machines).toEqual(copy)
    expect(
      versionsFromMachines([
        machine("a", "2026-01-01T00:00:00Z", "v1.34.0+b"),
        { metadata: { name: "z" }, spec: { version: "v1.34.0+a" } },
      ])?.map((v) => v.version),
    ).toEqual(["v1.34.0+a", "v1.34.0+b"])
    expect(
      versionsFromMachines([
        machine("a", "2026-01-01T00:00:00Z", "v1.34.0+b"),
        { metadata: { name: "z", creationTimestamp: "yesterday" }, spec: { version: "v1.34.0+a" } },
      ])?.map((v) => v.version),
    ).toEqual(["v1.34.0+a", "v1.34.0+b"])
  })
})
