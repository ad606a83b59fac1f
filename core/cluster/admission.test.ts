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
  it("refuses a topology without a class, naming spec.topology.classRef.name", () => {
    expect(defaultCluster({ metadata: {}, spec: { topology: { version: "v1.34.0" } } })).toEqual({
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
    expect(fields(undefined, t("1.34"), on)).toEqual(["spec.topology.version"])
    expect(fields(undefined, t("v1.34.0", ""), on)).toEqual(["spec.topology.class"])
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
    ])
      expect(isCidr(bad), bad).toBe(false)
  })
})
