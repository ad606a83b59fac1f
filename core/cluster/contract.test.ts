/**
 * The provider-contract readers one by one: what counts as a valid endpoint, provisioned,
 * initialized, deleting; failure domains in either form; an apiVersion's group; which owner
 * references name the Cluster.
 */
import { describe, expect, it } from "vitest"
import {
  ClusterApiVersion,
  clusterOwnerReference,
  failureDomainsOf,
  groupOf,
  hasExactOwnerReference,
  isDeleting,
  isInitialized,
  isProvisioned,
  isValidEndpoint,
  refersToCluster,
} from "./contract.ts"

const infra = (status?: object) => ({ metadata: { name: "i" }, ...(status === undefined ? {} : { status }) })

describe("provider contract readers", () => {
  it("isValidEndpoint: a host and a port, neither empty nor zero", () => {
    expect(isValidEndpoint({ host: "h", port: 6443 })).toBe(true)
    expect(isValidEndpoint(undefined)).toBe(false)
    expect(isValidEndpoint({ port: 6443 })).toBe(false)
    expect(isValidEndpoint({ host: "", port: 6443 })).toBe(false)
    expect(isValidEndpoint({ host: "h" })).toBe(false)
    expect(isValidEndpoint({ host: "h", port: 0 })).toBe(false)
  })

  it("isProvisioned and isInitialized: the v1beta2 field first, then the v1beta1 one, else false", () => {
    expect(isProvisioned(infra())).toBe(false)
    expect(isProvisioned(infra({}))).toBe(false)
    expect(isProvisioned(infra({ ready: true }))).toBe(true)
    expect(isProvisioned(infra({ initialization: {}, ready: true }))).toBe(true)
    expect(isProvisioned(infra({ initialization: { provisioned: false }, ready: true }))).toBe(false)
    expect(isProvisioned(infra({ initialization: { provisioned: true } }))).toBe(true)
    expect(isInitialized(infra())).toBe(false)
    expect(isInitialized(infra({ initialized: true }))).toBe(true)
    expect(
      isInitialized(infra({ initialization: { controlPlaneInitialized: false }, initialized: true })),
    ).toBe(false)
    expect(isInitialized(infra({ initialization: { controlPlaneInitialized: true } }))).toBe(true)
  })

  it("failureDomainsOf: a v1beta2 list or a v1beta1 map, sorted by name", () => {
    expect(failureDomainsOf(infra())).toBeUndefined()
    expect(failureDomainsOf(infra({}))).toBeUndefined()
    expect(
      failureDomainsOf(
        infra({ failureDomains: [{ name: "b" }, { name: "c", controlPlane: true }, { name: "a" }] }),
      ),
    ).toEqual([{ name: "a" }, { name: "b" }, { name: "c", controlPlane: true }])
    expect(
      failureDomainsOf(infra({ failureDomains: [{ name: "a" }, { name: "a", controlPlane: true }] })),
    ).toEqual([{ name: "a" }, { name: "a", controlPlane: true }])
    expect(failureDomainsOf(infra({ failureDomains: { z: {}, a: { controlPlane: true } } }))).toEqual([
      { name: "a", controlPlane: true },
      { name: "z" },
    ])
  })

  it("isDeleting: a deletionTimestamp that is set and not empty", () => {
    expect(isDeleting({ name: "c" })).toBe(false)
    expect(isDeleting({ name: "c", deletionTimestamp: "" })).toBe(false)
    expect(isDeleting({ name: "c", deletionTimestamp: "2026-01-01T00:00:00Z" })).toBe(true)
  })

  it("groupOf: group/version, the core group for a bare version, undefined for malformed ones", () => {
    expect(groupOf("cluster.x-k8s.io/v1beta2")).toBe("cluster.x-k8s.io")
    expect(groupOf("v1")).toBe("")
    for (const bad of ["", "/v1", "g/", "a/b/c", "/"]) expect(groupOf(bad), bad).toBeUndefined()
  })

  it("refersToCluster: kind Cluster of cluster.x-k8s.io (any version), the name, and the uid when both have one", () => {
    const ref = { apiVersion: "cluster.x-k8s.io/v1beta1", kind: "Cluster", name: "c", uid: "u" }
    expect(refersToCluster(ref, "c", "u")).toBe(true)
    expect(refersToCluster(ref, "c", undefined)).toBe(true)
    expect(refersToCluster({ ...ref, uid: undefined } as never, "c", "u")).toBe(true)
    expect(refersToCluster(ref, "c", "other")).toBe(false)
    expect(refersToCluster(ref, "d", "u")).toBe(false)
    expect(refersToCluster({ ...ref, kind: "Machine" }, "c", "u")).toBe(false)
    expect(refersToCluster({ ...ref, apiVersion: "example.com/v1" }, "c", "u")).toBe(false)
    expect(refersToCluster({ ...ref, apiVersion: "v1" }, "c", "u")).toBe(false)
  })

  it("clusterOwnerReference: v1beta2, with the uid only when known", () => {
    expect(clusterOwnerReference("c", "u")).toStrictEqual({
      apiVersion: ClusterApiVersion,
      kind: "Cluster",
      name: "c",
      uid: "u",
    })
    expect(clusterOwnerReference("c", undefined)).toStrictEqual({
      apiVersion: "cluster.x-k8s.io/v1beta2",
      kind: "Cluster",
      name: "c",
    })
  })

  it("clusterOwnerReference: a topology Cluster's is the controller reference, blocking deletion", () => {
    expect(clusterOwnerReference("c", "u", true)).toStrictEqual({
      apiVersion: ClusterApiVersion,
      kind: "Cluster",
      name: "c",
      uid: "u",
      controller: true,
      blockOwnerDeletion: true,
    })
    expect(clusterOwnerReference("c", "u", false)).not.toHaveProperty("controller")
  })

  it("hasExactOwnerReference: apiVersion, kind, name, uid and the controller flag all match", () => {
    const plain = clusterOwnerReference("c", "u")
    const controller = clusterOwnerReference("c", "u", true)
    expect(hasExactOwnerReference([plain], plain)).toBe(true)
    expect(hasExactOwnerReference([{ ...plain, controller: false }], plain)).toBe(true)
    expect(hasExactOwnerReference([controller], controller)).toBe(true)
    expect(hasExactOwnerReference([{ ...controller, blockOwnerDeletion: false }], controller)).toBe(true)
    expect(hasExactOwnerReference([plain], controller)).toBe(false)
    expect(hasExactOwnerReference([controller], plain)).toBe(false)
    expect(hasExactOwnerReference([{ ...plain, apiVersion: "cluster.x-k8s.io/v1beta1" }], plain)).toBe(false)
    expect(hasExactOwnerReference([{ ...plain, uid: "v" }], plain)).toBe(false)
    expect(hasExactOwnerReference([{ ...plain, name: "d" }], plain)).toBe(false)
    expect(hasExactOwnerReference([{ ...plain, kind: "Machine" }], plain)).toBe(false)
    expect(hasExactOwnerReference([], plain)).toBe(false)
  })
})
