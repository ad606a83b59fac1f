import { describe, expect, it } from "vitest"
import { readControlPlaneVersions } from "./readVersions.ts"

const read = (versions: unknown) => readControlPlaneVersions({ status: { versions } })
const invalid = (error: string) => ({ _tag: "Invalid", error })

describe("readControlPlaneVersions", () => {
  it("is missing without a status or status.versions", () => {
    for (const cp of [undefined, null, "cp", 1, [], [{ status: { versions: [] } }], {}, { status: null }])
      expect(readControlPlaneVersions(cp)).toEqual({ _tag: "Missing" })
    expect(readControlPlaneVersions({ status: {} })).toEqual({ _tag: "Missing" })
    expect(readControlPlaneVersions({ status: { versions: undefined } })).toEqual({ _tag: "Missing" })
    expect(readControlPlaneVersions({ status: { Versions: [{ version: "v1.34.0" }] } })).toEqual({
      _tag: "Missing",
    })
  })
  it("refuses a status that is not an object, and versions that are not a list", () => {
    for (const status of ["x", 1, true, [], [{ versions: [] }]])
      expect(readControlPlaneVersions({ status })).toEqual(invalid(".status is not an object"))
    for (const versions of [null, "v1.34.0", 1, { version: "v1.34.0" }])
      expect(read(versions)).toEqual(invalid(".status.versions is not a list"))
  })
  it("reads a list in ascending order, replicas 0 or absent left out", () => {
    expect(read([])).toEqual({ _tag: "Read", versions: [] })
    expect(
      read([
        { version: "v1.33.0", replicas: 2 },
        { version: "v1.33.0" },
        { version: "1.33.0", replicas: 0 },
        { version: "v1.34.0-rc.1", replicas: null },
        { version: "v1.34.0", replicas: 2147483647 },
        { version: "v1.34.0+a", replicas: 1 },
        { version: "v1.34.0+b", replicas: 1 },
        { version: "v1.34.0+a", replicas: 1 },
        { version: "v1.35", replicas: 1, extra: "ignored" },
      ]),
    ).toEqual({
      _tag: "Read",
      versions: [
        { version: "v1.33.0", replicas: 2 },
        { version: "v1.33.0" },
        { version: "1.33.0" },
        { version: "v1.34.0-rc.1" },
        { version: "v1.34.0", replicas: 2147483647 },
        { version: "v1.34.0+a", replicas: 1 },
        { version: "v1.34.0+b", replicas: 1 },
        { version: "v1.34.0+a", replicas: 1 },
        { version: "v1.35", replicas: 1 },
      ],
    })
  })
  it("matches keys as Go's JSON decoder does: case-insensitively, ſ as s, the last of the matches in sorted key order", () => {
    expect(read([{ VERSION: "v1.34.0", RePlIcAs: 3 }])).toEqual({
      _tag: "Read",
      versions: [{ version: "v1.34.0", replicas: 3 }],
    })
    expect(read([{ "ver\u017fion": "v1.34.0", "replica\u017f": 3 }])).toEqual({
      _tag: "Read",
      versions: [{ version: "v1.34.0", replicas: 3 }],
    })
    expect(read([{ version: "v1.33.0", Version: "v1.34.0", replicas: 1, Replicas: 2 }])).toEqual({
      _tag: "Read",
      versions: [{ version: "v1.33.0", replicas: 1 }],
    })
    expect(read([{ Version: "v1.34.0", version: "v1.33.0", Replicas: 2, replicas: 1 }])).toEqual({
      _tag: "Read",
      versions: [{ version: "v1.33.0", replicas: 1 }],
    })
  })
  it("refuses an item that does not decode", () => {
    expect(read([{ version: "v1.34.0" }, "v1.34.0"])).toEqual(invalid(".status.versions[1] is not an object"))
    expect(read([["v1.34.0"]])).toEqual(invalid(".status.versions[0] is not an object"))
    expect(read([1])).toEqual(invalid(".status.versions[0] is not an object"))
    for (const version of [1, true, {}, ["v1.34.0"]])
      expect(read([{ version }])).toEqual(invalid(".status.versions[0].version is not a string"))
    for (const replicas of [
      "1",
      1.5,
      2147483648,
      -2147483649,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      {},
    ])
      expect(read([{ version: "v1.34.0" }, { version: "v1.34.0", replicas }])).toEqual(
        invalid(".status.versions[1].replicas is not a 32-bit integer"),
      )
  })
  it("refuses an item whose version does not parse, null and empty ones included", () => {
    expect(read([null])).toEqual(invalid('.status.versions[0].version "" is not a version'))
    expect(read([{}])).toEqual(invalid('.status.versions[0].version "" is not a version'))
    expect(read([{ version: null, replicas: 1 }])).toEqual(
      invalid('.status.versions[0].version "" is not a version'),
    )
    expect(read([{ version: "v1.34.0" }, { version: "latest" }])).toEqual(
      invalid('.status.versions[1].version "latest" is not a version'),
    )
  })
  it("refuses a version below the one before it", () => {
    expect(read([{ version: "v1.34.0" }, { version: "v1.33.9" }])).toEqual(
      invalid('version "v1.34.0" and "v1.33.9" are in the wrong order'),
    )
    expect(read([{ version: "v1.34.0+1" }, { version: "v1.34.0" }])).toEqual(
      invalid('version "v1.34.0+1" and "v1.34.0" are in the wrong order'),
    )
    expect(read([{ version: "v1.33.0" }, { version: "v1.34.0" }, { version: "v1.34.0-rc.1" }])).toEqual(
      invalid('version "v1.34.0" and "v1.34.0-rc.1" are in the wrong order'),
    )
  })
  it("refuses a negative replica count", () => {
    for (const replicas of [-1, -2147483648])
      expect(read([{ version: "v1.33.0" }, { version: "v1.34.0", replicas }])).toEqual(
        invalid(".status.versions[1].replicas must not be negative"),
      )
  })
})
