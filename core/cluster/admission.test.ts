import { describe, expect, it } from "vitest"
import { defaultCluster, invalidMessage, isCidr, validateCluster } from "./admission.ts"

const refs = {
  infrastructureRef: { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "DockerCluster", name: "c" },
  controlPlaneRef: { apiGroup: "controlplane.cluster.x-k8s.io", kind: "KubeadmControlPlane", name: "c" },
}
const on = { clusterTopology: true }
const off = { clusterTopology: false }

describe("defaultCluster", () => {
  it("prefixes a topology version with v, as upstream's Cluster webhook", () => {
    expect(
      defaultCluster({ metadata: {}, spec: { topology: { classRef: { name: "q" }, version: "1.34.0" } } }),
    ).toEqual({
      patch: [{ op: "replace", path: "/spec/topology/version", value: "v1.34.0" }],
    })
    expect(
      defaultCluster({ metadata: {}, spec: { topology: { classRef: { name: "q" }, version: "v1.34.0" } } }),
    ).toEqual({ patch: [] })
    expect(defaultCluster({ metadata: {}, spec: refs })).toEqual({ patch: [] })
  })
  it("adds a version that is absent and replaces one that is empty, both with v", () => {
    expect(defaultCluster({ metadata: {}, spec: { topology: { classRef: { name: "q" } } } })).toEqual({
      patch: [{ op: "add", path: "/spec/topology/version", value: "v" }],
    })
    expect(
      defaultCluster({ metadata: {}, spec: { topology: { classRef: { name: "q" }, version: "" } } }),
    ).toEqual({
      patch: [{ op: "replace", path: "/spec/topology/version", value: "v" }],
    })
    expect(defaultCluster({ metadata: {} })).toEqual({ patch: [] })
  })
  it("refuses a topology without a class, naming spec.topology.classRef.name", () => {
    expect(defaultCluster({ metadata: {}, spec: { topology: { version: "v1.34.0" } } })).toEqual({
      errors: [{ field: "spec.topology.classRef.name", type: "Required value", detail: "cannot be empty" }],
    })
    expect(
      defaultCluster({ metadata: {}, spec: { topology: { classRef: { name: "" }, version: "1" } } }),
    ).toEqual({
      errors: [{ field: "spec.topology.classRef.name", type: "Required value", detail: "cannot be empty" }],
    })
  })
})

describe("validateCluster", () => {
  const fields = (
    old: Parameters<typeof validateCluster>[0],
    c: Parameters<typeof validateCluster>[1],
    gates = off,
  ) => validateCluster(old, c, gates).map((e) => e.field)

  it("accepts a Cluster with refs, valid CIDRs and a label-valued name", () => {
    expect(
      fields(undefined, {
        metadata: { name: "prod-eu.1" },
        spec: {
          ...refs,
          clusterNetwork: {
            pods: { cidrBlocks: ["192.168.0.0/16", "fd00::/64"] },
            services: { cidrBlocks: ["10.96.0.0/12"] },
          },
        },
      }),
    ).toEqual([])
  })
  it("requires refs or a topology, and keeps refs and topology from being removed", () => {
    expect(fields(undefined, { metadata: { name: "c" }, spec: {} })).toEqual(["spec"])
    expect(
      fields(
        { metadata: { name: "c" }, spec: refs },
        { metadata: { name: "c" }, spec: { controlPlaneRef: refs.controlPlaneRef } },
      ),
    ).toEqual(["spec.infrastructureRef"])
    expect(
      fields(
        { metadata: { name: "c" }, spec: refs },
        { metadata: { name: "c" }, spec: { infrastructureRef: refs.infrastructureRef } },
      ),
    ).toEqual(["spec.controlPlaneRef"])
    const topology = { classRef: { name: "q" }, version: "v1.34.0" }
    expect(
      fields(
        { metadata: { name: "c" }, spec: { ...refs, topology } },
        { metadata: { name: "c" }, spec: refs },
        on,
      ),
    ).toEqual(["spec.topology"])
  })
  it("names each bad CIDR block and a name that is no label value", () => {
    expect(
      fields(undefined, {
        metadata: { name: "-bad" },
        spec: {
          ...refs,
          clusterNetwork: {
            pods: { cidrBlocks: ["10.0.0.0/8", "10.0.0.0/33"] },
            services: { cidrBlocks: ["nope"] },
          },
        },
      }),
    ).toEqual([
      "metadata.name",
      "spec.clusterNetwork.pods.cidrBlocks[1]",
      "spec.clusterNetwork.services.cidrBlocks[0]",
    ])
    expect(fields(undefined, { metadata: { name: "x".repeat(64) }, spec: refs })).toEqual(["metadata.name"])
  })
  it("checks a topology: the ClusterTopology gate, the class, a semantic version with v", () => {
    const t = (version: string, name = "q") => ({
      metadata: { name: "c" },
      spec: { topology: { classRef: { name }, version } },
    })
    expect(fields(undefined, t("v1.34.0"), off)).toEqual(["spec.topology"])
    expect(fields(undefined, t("v1.34.0"), on)).toEqual([])
    // v1.14.2: a missing `v` has its own error, beside the strict semver check after the `v`.
    expect(fields(undefined, t("1.34"), on)).toEqual(["spec.topology.version", "spec.topology.version"])
    expect(fields(undefined, t("1.34.0"), on)).toEqual(["spec.topology.version"])
    expect(fields(undefined, t("v1.34"), on)).toEqual(["spec.topology.version"])
    expect(fields(undefined, t("v01.34.0"), on)).toEqual(["spec.topology.version"])
    expect(fields(undefined, t("v1.34.0-rc.1+build.7"), on)).toEqual([])
    expect(fields(undefined, t("v1.34.0", ""), on)).toEqual(["spec.topology.class"])
  })
  it("words each error as upstream's webhook: field, type, value and detail", () => {
    const bad = "10.0.0.0/33"
    expect(
      validateCluster(
        undefined,
        { metadata: { name: "-bad" }, spec: { clusterNetwork: { services: { cidrBlocks: [bad] } } } },
        off,
      ),
    ).toEqual([
      {
        field: "metadata.name",
        type: "Invalid value",
        value: "-bad",
        detail:
          "must be a valid label value: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
      },
      {
        field: "spec",
        type: "Forbidden",
        detail: "one of spec.controlPlaneRef, spec.infrastructureRef or spec.topology must be set",
      },
      {
        field: "spec.clusterNetwork.services.cidrBlocks[0]",
        type: "Invalid value",
        value: bad,
        detail: `invalid CIDR address: ${bad}`,
      },
    ])
    const long = "x".repeat(64)
    expect(validateCluster(undefined, { metadata: { name: long }, spec: refs }, off)).toEqual([
      {
        field: "metadata.name",
        type: "Invalid value",
        value: long,
        detail: "must be a valid label value: must be no more than 63 characters",
      },
    ])
    expect(validateCluster(undefined, { metadata: { name: "x".repeat(63) }, spec: refs }, off)).toEqual([])
    expect(validateCluster(undefined, { metadata: {}, spec: refs }, off)).toEqual([])
    const old = {
      metadata: { name: "c" },
      spec: { ...refs, topology: { classRef: { name: "q" }, version: "v1.34.0" } },
    }
    expect(
      validateCluster(old, { metadata: { name: "c" }, spec: { topology: old.spec.topology } }, on),
    ).toEqual([
      { field: "spec.infrastructureRef", type: "Forbidden", detail: "cannot be removed" },
      { field: "spec.controlPlaneRef", type: "Forbidden", detail: "cannot be removed" },
    ])
    expect(validateCluster(old, { metadata: { name: "c" }, spec: refs }, on)).toEqual([
      { field: "spec.topology", type: "Forbidden", detail: "cannot be removed from an existing Cluster" },
    ])
  })
  it("words the topology's errors, and reads a topology without class or version", () => {
    const c = (topology: object) => ({ metadata: { name: "c" }, spec: { topology } })
    expect(validateCluster(undefined, c({ classRef: { name: "q" }, version: "v1.34.0" }), off)).toEqual([
      {
        field: "spec.topology",
        type: "Forbidden",
        detail: "can be set only if the ClusterTopology feature flag is enabled",
      },
    ])
    expect(validateCluster(undefined, c({ version: "v1.34.0" }), on)).toEqual([
      { field: "spec.topology.class", type: "Required value", detail: "classRef.name cannot be empty" },
    ])
    expect(validateCluster(undefined, c({ classRef: { name: "q" } }), on)).toEqual([
      { field: "spec.topology.version", type: "Invalid value", value: "", detail: "must start with v" },
      {
        field: "spec.topology.version",
        type: "Invalid value",
        value: "",
        detail: "version must be a valid semantic version",
      },
    ])
    expect(validateCluster(undefined, c({ classRef: { name: "q" }, version: "v1.34" }), on)).toEqual([
      {
        field: "spec.topology.version",
        type: "Invalid value",
        value: "v1.34",
        detail: "version must be a valid semantic version",
      },
    ])
  })
  it("an update that keeps what it had, or never had it, is fine", () => {
    const cp = { controlPlaneRef: refs.controlPlaneRef }
    const infra = { infrastructureRef: refs.infrastructureRef }
    expect(
      validateCluster({ metadata: { name: "c" }, spec: cp }, { metadata: { name: "c" }, spec: cp }, off),
    ).toEqual([])
    expect(
      validateCluster(
        { metadata: { name: "c" }, spec: infra },
        { metadata: { name: "c" }, spec: infra },
        off,
      ),
    ).toEqual([])
    expect(
      validateCluster({ metadata: { name: "c" } }, { metadata: { name: "c" }, spec: refs }, off),
    ).toEqual([])
    const topology = { classRef: { name: "q" }, version: "v1.34.0" }
    expect(
      validateCluster(
        { metadata: { name: "c" }, spec: { topology } },
        { metadata: { name: "c" }, spec: { topology: { ...topology, version: "v1.35.0" } } },
        on,
      ),
    ).toEqual([])
  })
  it("renders the errors as the API server does", () => {
    const errors = validateCluster(
      undefined,
      { metadata: { name: "c" }, spec: { ...refs, clusterNetwork: { pods: { cidrBlocks: ["x"] } } } },
      off,
    )
    expect(invalidMessage("c", errors)).toBe(
      'Cluster.cluster.x-k8s.io "c" is invalid: spec.clusterNetwork.pods.cidrBlocks[0]: Invalid value: "x": invalid CIDR address: x',
    )
    expect(
      invalidMessage("d", [
        { field: "spec", type: "Forbidden", detail: "one of them must be set" },
        { field: "metadata.name", type: "Invalid value", value: 'a"b', detail: "bad" },
        { field: "spec.x", type: "Invalid value", detail: "no value" },
      ]),
    ).toBe(
      'Cluster.cluster.x-k8s.io "d" is invalid: [spec: Forbidden: one of them must be set, metadata.name: Invalid value: "a\\"b": bad, spec.x: Invalid value: "": no value]',
    )
  })
})

describe("isCidr", () => {
  it("reads IPv4 and IPv6 CIDR blocks", () => {
    for (const ok of [
      "0.0.0.0/0",
      "10.96.0.0/12",
      "::/0",
      "fd00::/64",
      "2001:db8::1/128",
      "1:2:3:4:5:6:7:8/64",
      "1:2:3:4:5:6:7::/64",
      "FD00:AbC::/48",
      "fd00::/128",
      "255.255.255.255/32",
      "10.0.0.0/32",
      "100.64.0.0/10",
      "::ffff:10.0.0.1/128",
      "1:2:3:4:5:6:1.2.3.4/96",
    ])
      expect(isCidr(ok), ok).toBe(true)
    for (const bad of [
      "10.0.0.0",
      "10.0.0.256/8",
      "10.0.0.0/33",
      "01.0.0.0/8",
      "::1::/64",
      "fd00::/129",
      "x/8",
      "1:2:3:4:5:6:7/64",
      "fd00::/8x",
      "fd00::/x8",
      "fd00::/",
      "/8",
      "10.0.0.0.5/8",
      "1.10.0.0.0/8",
      "1.2.3/8",
      "10.0.0.00/8",
      "12345::/64",
      "g::/64",
      "1:2:3:4:5:6:7:8::/64",
      "1::2::3:4:5:6:7:8/64",
      "1:2:3:4:5:6:7:8:9/64",
      "::ffff:10.0.0.256/128",
      "1.2.3.4::/64",
      "1:2:3:4:5:6:7:1.2.3.4/96",
      "::1.2.3.4:5/128",
    ])
      expect(isCidr(bad), bad).toBe(false)
  })
})
