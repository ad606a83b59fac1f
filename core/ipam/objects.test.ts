import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import {
  CIDR_FINALIZER,
  CLUSTER_KIND,
  CLUSTERS_API_VERSION,
  ENVIRONMENT_LABEL,
  MANAGED_BY_LABEL,
  MANAGED_PURPOSE_LABEL,
} from "./constants.ts"
import {
  AppliedRulesError,
  type ClusterConfigView,
  clusterConfigFor,
  clusterConfigLabels,
  clusterConfigName,
  formatAppliedRules,
  isManaged,
  isManagedFor,
  nameHash,
  type OwnerReference,
  owningCluster,
  parseAppliedRules,
  sortPatches,
} from "./objects.ts"

describe("clusterConfigName()", () => {
  it("is <cluster>--ipam--<rule id> when that fits in 63 characters", () => {
    expect(clusterConfigName("c1", "mcp")).toBe("c1--ipam--mcp")
  })
  it("replaces the tail of a longer name by --<8 base32 characters>, deterministically", () => {
    const n = clusterConfigName("a".repeat(60), "rule")
    expect(n).toHaveLength(63)
    expect(n).toMatch(/^a{53}--[a-z2-7]{8}$/)
    expect(clusterConfigName("a".repeat(60), "rule")).toBe(n)
    expect(clusterConfigName("a".repeat(60), "rule2")).not.toBe(n)
    expect(nameHash("x")).toMatch(/^[a-z2-7]{8}$/)
  })
  it("takes the length from the defaults", () => {
    expect(
      clusterConfigName("abcdefgh", "r", { maxNameLength: 15, nameHashLength: 8, stateRefreshCycle: 0 }),
    ).toHaveLength(15)
  })
})

describe("the applied-rules annotation", () => {
  it("reads {rule: {path: cidr}} and writes it with sorted keys, as Go's encoding/json does", () => {
    const text = '{"b":{"/z":"10.0.0.0/24","/a":"10.0.1.0/24"},"a":{}}'
    const r = parseAppliedRules(text)
    expect(!(r instanceof AppliedRulesError) && formatAppliedRules(r)).toBe(
      '{"a":{},"b":{"/a":"10.0.1.0/24","/z":"10.0.0.0/24"}}',
    )
  })
  it("refuses what is not that shape, saying why", () => {
    expect(parseAppliedRules("{x")).toBeInstanceOf(AppliedRulesError)
    expect(parseAppliedRules('{"r":["10.0.0.0/24"]}')).toMatchObject({
      _tag: "AppliedRulesError",
      message: expect.stringContaining('"r"'),
    })
    expect(parseAppliedRules('{"r":{"/p":42}}')).toBeInstanceOf(AppliedRulesError)
    expect(parseAppliedRules(undefined)).toEqual({})
  })
  it("reads null as no rules and a null rule as no paths; an array or a scalar is not a map of rule ids", () => {
    expect(parseAppliedRules("null")).toEqual({})
    expect(parseAppliedRules('{"r":null}')).toEqual({ r: {} })
    for (const text of ["[]", "42", '"x"'])
      expect(parseAppliedRules(text), text).toMatchObject({
        _tag: "AppliedRulesError",
        message: "not a JSON object of rule ids",
      })
    expect(parseAppliedRules('{"r":42}')).toMatchObject({
      _tag: "AppliedRulesError",
      message: 'rule "r" does not map paths to CIDRs',
    })
    expect(parseAppliedRules('{"r":["10.0.0.0/24"]}')).toMatchObject({
      _tag: "AppliedRulesError",
      message: 'rule "r" does not map paths to CIDRs',
    })
    expect(parseAppliedRules('{"r":{"/p":42}}')).toMatchObject({
      _tag: "AppliedRulesError",
      message: 'rule "r" path "/p" is not a CIDR string',
    })
  })
})

describe("nameHash() against an independent base32 of SHAKE128", () => {
  const model = (text: string, length: number) => {
    const bytes = createHash("shake128", { outputLength: Math.ceil((length * 5) / 8) })
      .update(text)
      .digest()
    const bitText = [...bytes].map((b) => b.toString(2).padStart(8, "0")).join("")
    const padded = bitText.padEnd(Math.ceil(bitText.length / 5) * 5, "0")
    let out = ""
    for (let i = 0; i < padded.length; i += 5)
      out += "abcdefghijklmnopqrstuvwxyz234567"[Number.parseInt(padded.slice(i, i + 5), 2)]
    return out.slice(0, length)
  }
  it("gives the first `length` characters, for every length from 1 to 13 (each leftover of bits)", () => {
    for (let length = 1; length <= 13; length++)
      for (const text of ["x", "cluster--ipam--rule", "a".repeat(70)])
        expect(nameHash(text, length), `${text} ${length}`).toBe(model(text, length))
  })
})

describe("clusterConfigName() at the length limit", () => {
  it("keeps a name of exactly 63 characters, shortens one of 64", () => {
    const fits = clusterConfigName("a".repeat(63 - "--ipam--r".length), "r")
    expect(fits).toBe(`${"a".repeat(54)}--ipam--r`)
    const over = clusterConfigName("a".repeat(64 - "--ipam--r".length), "r")
    expect(over).toHaveLength(63)
    expect(over).toMatch(/--[a-z2-7]{8}$/)
  })
})

describe("ownership of ClusterConfigs", () => {
  const who = { managedBy: "ipam", environment: "dev" }
  const cc = (
    labels: Record<string, string>,
    ownerReferences: ReadonlyArray<OwnerReference> = [],
  ): ClusterConfigView => ({
    namespace: "ns",
    name: "c--ipam--r",
    labels,
    annotations: {},
    finalizers: [],
    ownerReferences,
    patches: [],
  })
  const mine = clusterConfigLabels(who, "c", "r")

  it("is this controller's only with all three identity labels; for a Cluster also by namespace and cluster label", () => {
    expect(isManaged(cc(mine), who)).toBe(true)
    for (const label of [MANAGED_BY_LABEL, MANAGED_PURPOSE_LABEL, ENVIRONMENT_LABEL])
      expect(isManaged(cc({ ...mine, [label]: "other" }), who), label).toBe(false)
    expect(isManagedFor(cc(mine), who, { namespace: "ns", name: "c" })).toBe(true)
    expect(isManagedFor(cc(mine), who, { namespace: "other", name: "c" })).toBe(false)
    expect(isManagedFor(cc(mine), who, { namespace: "ns", name: "d" })).toBe(false)
    expect(
      isManagedFor(cc({ ...mine, [ENVIRONMENT_LABEL]: "prod" }), who, { namespace: "ns", name: "c" }),
    ).toBe(false)
  })

  it("is owned by the Cluster of its controller reference of kind Cluster in the clusters group", () => {
    const ref = { apiVersion: CLUSTERS_API_VERSION, kind: CLUSTER_KIND, name: "c", controller: true }
    expect(owningCluster(cc(mine, [ref]))).toEqual({ namespace: "ns", name: "c" })
    expect(
      owningCluster(cc(mine, [{ ...ref, apiVersion: `${CLUSTERS_API_VERSION.split("/")[0]}/v9` }])),
    ).toEqual({
      namespace: "ns",
      name: "c",
    })
    expect(owningCluster(cc(mine, [{ ...ref, controller: false }]))).toBeUndefined()
    expect(owningCluster(cc(mine, [{ ...ref, controller: undefined }]))).toBeUndefined()
    expect(owningCluster(cc(mine, [{ ...ref, kind: "Machine" }]))).toBeUndefined()
    expect(owningCluster(cc(mine, [{ ...ref, apiVersion: "cluster.x-k8s.io/v1beta2" }]))).toBeUndefined()
  })
})

describe("clusterConfigFor()", () => {
  const who = { managedBy: "ipam", environment: "dev" }
  it("owns the ClusterConfig by its Cluster (uid when known, never blocking its deletion), creates missing paths, sorts patches", () => {
    const o = clusterConfigFor(who, { namespace: "ns", name: "c", uid: "u-1" }, "r", {
      "/b": "10.0.0.0/24",
      "/a": "10.1.0.0/24",
      "/big": "10.2.0.0/16",
    })
    expect(o.metadata.ownerReferences).toEqual([
      {
        apiVersion: CLUSTERS_API_VERSION,
        kind: CLUSTER_KIND,
        name: "c",
        uid: "u-1",
        controller: true,
        blockOwnerDeletion: false,
      },
    ])
    expect(
      clusterConfigFor(who, { namespace: "ns", name: "c" }, "r", {}).metadata.ownerReferences[0],
    ).not.toHaveProperty("uid")
    expect(o.spec.patchOptions).toEqual({ createMissingOnAdd: true })
    expect(o.metadata.finalizers).toEqual([CIDR_FINALIZER])
    expect(o.spec.patches.map((p) => p.path)).toEqual(["/big", "/a", "/b"])
  })
})

describe("sortPatches()", () => {
  it("puts large blocks first, equal sizes by path; values that are not CIDRs stay where they are", () => {
    const p = (path: string, value: unknown) => ({ op: "add", path, value })
    expect(
      sortPatches([
        p("/c", "10.0.0.0/26"),
        p("/b", "10.0.0.0/24"),
        p("/a", "10.0.1.0/24"),
        p("/d", "fd00::/64"),
      ]).map((x) => x.path),
    ).toEqual(["/a", "/b", "/c", "/d"])
    expect(sortPatches([p("/z", "10.0.0.0/8"), p("/y", "10.0.0.0/8")]).map((x) => x.path)).toEqual([
      "/y",
      "/z",
    ])
    const same = ["/d", "/b", "/e", "/a", "/c"].map((path) => p(path, "10.0.0.0/8"))
    expect(sortPatches(same).map((x) => x.path)).toEqual(["/a", "/b", "/c", "/d", "/e"])
    // a CIDR beside a value that is not one: neither moves
    expect(sortPatches([p("/b", "10.0.0.0/24"), p("/a", 42)]).map((x) => x.path)).toEqual(["/b", "/a"])
    expect(sortPatches([p("/a", 42), p("/b", "10.0.0.0/24")]).map((x) => x.path)).toEqual(["/a", "/b"])
    // /0 is a CIDR (the largest block), not a value to leave in place
    expect(sortPatches([p("/b", "10.0.0.0/24"), p("/a", "0.0.0.0/0")]).map((x) => x.path)).toEqual([
      "/a",
      "/b",
    ])
    expect(sortPatches([p("/x", 42), p("/w", "no-slash"), p("/v", "10.0.0.0/x")]).map((x) => x.path)).toEqual(
      ["/x", "/w", "/v"],
    )
  })
})

describe("parseAppliedRules() errors", () => {
  it("says what is not JSON", () => {
    expect(parseAppliedRules("{x")).toMatchObject({
      _tag: "AppliedRulesError",
      message: expect.stringMatching(/^not JSON: /),
    })
  })
})
