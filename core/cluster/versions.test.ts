import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { readControlPlaneVersions } from "./readVersions.ts"
import { compareWithBuild, parseStrict, parseTolerant, type SemVer } from "./semver.ts"
import type { Machine } from "./types.ts"
import { aggregateVersions, goStableSort, versionsFromMachines } from "./versions.ts"

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
