import * as Result from "effect/Result"
import { describe, expect, it } from "vitest"
import type { CustomResourceDefinition } from "../kube/discovery.ts"
import { ContractError, contractResource as resolve } from "./contract.ts"

const crd = (
  labels: Record<string, string> | undefined,
  versions: Array<[string, boolean]>,
): CustomResourceDefinition => ({
  metadata: {
    name: "dockerclusters.infrastructure.cluster.x-k8s.io",
    ...(labels === undefined ? {} : { labels }),
  },
  spec: {
    group: "infrastructure.cluster.x-k8s.io",
    scope: "Namespaced",
    names: { plural: "dockerclusters", kind: "DockerCluster" },
    versions: versions.map(([name, served], i) => ({ name, served, storage: i === 0 })),
  },
})
const ref = { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "DockerCluster" }

/** The resource a reference resolves to (`undefined` when it does not). */
const resolveContract = (...args: Parameters<typeof resolve>) => Result.getOrUndefined(resolve(...args))
/** Why a reference does not resolve, a ContractError's message. */
const why = (...args: Parameters<typeof resolve>) => {
  const r = resolve(...args)
  expect(Result.isFailure(r) && r.failure instanceof ContractError).toBe(true)
  return Result.isFailure(r) ? r.failure.message : ""
}

describe("contractResource", () => {
  it("takes the last served version that the cluster.x-k8s.io/v1beta2 label names", () => {
    const r = resolveContract(
      [
        crd({ "cluster.x-k8s.io/v1beta2": "v1beta1_v1beta2" }, [
          ["v1beta1", true],
          ["v1beta2", true],
        ]),
      ],
      ref,
    )
    expect(r).toEqual({
      group: ref.apiGroup,
      version: "v1beta2",
      resource: "dockerclusters",
      kind: "DockerCluster",
      namespaced: true,
    })
    const unserved = resolveContract(
      [
        crd({ "cluster.x-k8s.io/v1beta2": "v1beta1_v1beta2" }, [
          ["v1beta1", true],
          ["v1beta2", false],
        ]),
      ],
      ref,
    )
    expect(unserved).toMatchObject({ version: "v1beta1" })
  })
  it("resolves a provider of the v1beta1 contract through its cluster.x-k8s.io/v1beta1 label", () => {
    expect(
      resolveContract(
        [
          crd({ "cluster.x-k8s.io/v1beta1": "v1alpha4_v1beta1" }, [
            ["v1alpha4", true],
            ["v1beta1", true],
          ]),
        ],
        ref,
      ),
    ).toMatchObject({ version: "v1beta1", resource: "dockerclusters" })
    // Both contracts: the newer one's label decides.
    expect(
      resolveContract(
        [
          crd({ "cluster.x-k8s.io/v1beta1": "v1beta1", "cluster.x-k8s.io/v1beta2": "v1beta2" }, [
            ["v1beta1", true],
            ["v1beta2", true],
          ]),
        ],
        ref,
      ),
    ).toMatchObject({ version: "v1beta2" })
  })

  it("says why a reference cannot be resolved", () => {
    expect(why([], ref)).toEqual(
      "no CustomResourceDefinition defines kind DockerCluster in group infrastructure.cluster.x-k8s.io",
    )
    expect(why([crd(undefined, [["v1beta2", true]])], ref)).toEqual(
      expect.stringContaining("has no label cluster.x-k8s.io/v1beta2"),
    )
    expect(why([crd({ "cluster.x-k8s.io/v1beta2": "v9" }, [["v1beta2", true]])], ref)).toEqual(
      expect.stringContaining("serves none of the versions v9"),
    )
  })
})
