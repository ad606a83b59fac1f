/**
 * Cluster conversion v1beta1 ⇄ v1beta2 field by field, as upstream Cluster API v1.13's conversion
 * webhook maps them: whole objects both ways (the round-trip properties in
 * property-tests/cluster/conversion.test.ts cannot see a wrong mapping, since the annotation
 * gives the source back), the annotation's content, which fields a changed copy takes from the
 * annotation and which from the conversion, and every error's message.
 */
import { describe, expect, it } from "vitest"
import { ConversionDataAnnotation } from "./contract.ts"
import {
  type ClusterObject,
  ConversionError,
  convertCluster,
  jsonEqual,
  type VersionResolver,
} from "./conversion.ts"

const resolve: VersionResolver = (group, kind) =>
  group === "infrastructure.cluster.x-k8s.io" && kind === "DockerCluster"
    ? "v1beta2"
    : group === "" && kind === "ConfigMap"
      ? "v1"
      : group === "controlplane.cluster.x-k8s.io"
        ? "v1beta1"
        : undefined

const condV2 = { type: "Available", status: "True", reason: "Available", message: "" }
const condV1 = { type: "Ready", status: "False", severity: "Info", reason: "Waiting" }

const v1beta1Cluster: ClusterObject = {
  apiVersion: "cluster.x-k8s.io/v1beta1",
  kind: "Cluster",
  metadata: { name: "c", namespace: "n", labels: { team: "a" } },
  spec: {
    paused: true,
    clusterNetwork: { pods: { cidrBlocks: ["192.168.0.0/16"] } },
    controlPlaneEndpoint: { host: "10.0.0.1", port: 6443 },
    infrastructureRef: {
      apiVersion: "infrastructure.cluster.x-k8s.io/v1beta1",
      kind: "DockerCluster",
      name: "c-infra",
      namespace: "n",
      uid: "0000-1",
    },
    controlPlaneRef: { apiVersion: "v1", kind: "ConfigMap", name: "cp" },
    topology: {
      class: "quick",
      classNamespace: "classes",
      version: "v1.34.0",
      rolloutAfter: "2026-02-01T00:00:00Z",
      workers: { machineDeployments: [{ class: "md", name: "md-0" }] },
    },
    availabilityGates: [{ conditionType: "A" }],
  },
  status: {
    phase: "Provisioned",
    observedGeneration: 3,
    infrastructureReady: true,
    controlPlaneReady: false,
    failureDomains: { b: { controlPlane: true }, a: { attributes: { zone: "z1" } } },
    conditions: [condV1],
    failureReason: "CreateError",
    failureMessage: "quota",
    v1beta2: { conditions: [condV2], controlPlane: { replicas: 3 }, workers: { replicas: 2 } },
  },
}

const v1beta2Cluster: ClusterObject = {
  apiVersion: "cluster.x-k8s.io/v1beta2",
  kind: "Cluster",
  metadata: { name: "c", namespace: "n" },
  spec: {
    paused: false,
    infrastructureRef: {
      apiGroup: "infrastructure.cluster.x-k8s.io",
      kind: "DockerCluster",
      name: "c-infra",
    },
    controlPlaneRef: { apiGroup: "", kind: "ConfigMap", name: "cp" },
    topology: { classRef: { name: "quick" }, version: "v1.34.0" },
  },
  status: {
    phase: "Provisioning",
    initialization: { controlPlaneInitialized: true },
    conditions: [condV2],
    controlPlane: { replicas: 1 },
    workers: { readyReplicas: 0 },
    failureDomains: [{ name: "z2" }, { name: "z1", controlPlane: true }],
    deprecated: { v1beta1: { conditions: [condV1], failureReason: "UpdateError", failureMessage: "boom" } },
  },
}

const stored = (c: ClusterObject): unknown =>
  JSON.parse(c.metadata.annotations?.[ConversionDataAnnotation] ?? "null")

describe("convertCluster: v1beta1 → v1beta2", () => {
  it("maps every field whose shape changed and carries the rest as it is", () => {
    const up = convertCluster(v1beta1Cluster, "v1beta2", resolve)
    expect(up.apiVersion).toBe("cluster.x-k8s.io/v1beta2")
    expect(up.kind).toBe("Cluster")
    expect(up.spec).toEqual({
      paused: true,
      clusterNetwork: { pods: { cidrBlocks: ["192.168.0.0/16"] } },
      controlPlaneEndpoint: { host: "10.0.0.1", port: 6443 },
      infrastructureRef: {
        apiGroup: "infrastructure.cluster.x-k8s.io",
        kind: "DockerCluster",
        name: "c-infra",
      },
      controlPlaneRef: { apiGroup: "", kind: "ConfigMap", name: "cp" },
      topology: {
        classRef: { name: "quick", namespace: "classes" },
        version: "v1.34.0",
        workers: { machineDeployments: [{ class: "md", name: "md-0" }] },
      },
      availabilityGates: [{ conditionType: "A" }],
    })
    expect(up.status).toEqual({
      phase: "Provisioned",
      observedGeneration: 3,
      conditions: [condV2],
      controlPlane: { replicas: 3 },
      workers: { replicas: 2 },
      initialization: { infrastructureProvisioned: true },
      failureDomains: [
        { name: "a", attributes: { zone: "z1" } },
        { name: "b", controlPlane: true },
      ],
      deprecated: {
        v1beta1: { conditions: [condV1], failureReason: "CreateError", failureMessage: "quota" },
      },
    })
  })

  it("keeps the source's spec and status in the annotation, and the rest of the metadata as it is", () => {
    const up = convertCluster(v1beta1Cluster, "v1beta2", resolve)
    expect(Object.keys(up.metadata.annotations ?? {})).toEqual([ConversionDataAnnotation])
    expect(up.metadata.name).toBe("c")
    expect(up.metadata.labels).toEqual({ team: "a" })
    expect(stored(up)).toEqual({
      spec: v1beta1Cluster.spec,
      status: v1beta1Cluster.status,
      noAnnotations: true,
    })
    const annotated = convertCluster(
      { ...v1beta1Cluster, metadata: { ...v1beta1Cluster.metadata, annotations: { "a.example/x": "1" } } },
      "v1beta2",
      resolve,
    )
    expect(annotated.metadata.annotations?.["a.example/x"]).toBe("1")
    expect(stored(annotated)).toEqual({ spec: v1beta1Cluster.spec, status: v1beta1Cluster.status })
  })

  it("leaves out what is false, empty or absent", () => {
    const up = convertCluster(
      {
        apiVersion: "cluster.x-k8s.io/v1beta1",
        kind: "Cluster",
        metadata: { name: "c" },
        spec: { topology: { class: "quick", version: "v1.34.0" } },
        status: { infrastructureReady: false, controlPlaneReady: true, failureDomains: {}, phase: "Pending" },
      },
      "v1beta2",
      resolve,
    )
    expect(up.spec).toEqual({ topology: { classRef: { name: "quick" }, version: "v1.34.0" } })
    expect(up.status).toEqual({ phase: "Pending", initialization: { controlPlaneInitialized: true } })
    const bare = convertCluster(
      {
        apiVersion: "cluster.x-k8s.io/v1beta1",
        kind: "Cluster",
        metadata: { name: "c" },
        status: { infrastructureReady: false, controlPlaneReady: false },
      },
      "v1beta2",
      resolve,
    )
    expect(bare.spec).toEqual({})
    expect(bare.status).toEqual({})
    const { status: _s, ...noStatus } = v1beta1Cluster
    expect("status" in convertCluster(noStatus, "v1beta2", resolve)).toBe(false)
  })
})

describe("convertCluster: v1beta2 → v1beta1", () => {
  it("maps every field whose shape changed, the refs' versions through the resolver", () => {
    const down = convertCluster(v1beta2Cluster, "v1beta1", resolve)
    expect(down.apiVersion).toBe("cluster.x-k8s.io/v1beta1")
    expect(down.spec).toEqual({
      paused: false,
      infrastructureRef: {
        apiVersion: "infrastructure.cluster.x-k8s.io/v1beta2",
        kind: "DockerCluster",
        name: "c-infra",
      },
      controlPlaneRef: { apiVersion: "v1", kind: "ConfigMap", name: "cp" },
      topology: { class: "quick", version: "v1.34.0" },
    })
    expect(down.status).toEqual({
      phase: "Provisioning",
      conditions: [condV1],
      failureReason: "UpdateError",
      failureMessage: "boom",
      infrastructureReady: false,
      controlPlaneReady: true,
      failureDomains: { z1: { controlPlane: true }, z2: {} },
      v1beta2: { conditions: [condV2], controlPlane: { replicas: 1 }, workers: { readyReplicas: 0 } },
    })
    expect(stored(down)).toEqual({
      spec: v1beta2Cluster.spec,
      status: v1beta2Cluster.status,
      noAnnotations: true,
    })
  })

  it("writes readiness as booleans and leaves out what is absent", () => {
    const down = convertCluster(
      {
        apiVersion: "cluster.x-k8s.io/v1beta2",
        kind: "Cluster",
        metadata: { name: "c" },
        spec: { topology: { version: "v1.34.0", classRef: { namespace: "classes" } } },
        status: { initialization: { infrastructureProvisioned: true }, failureDomains: [] },
      },
      "v1beta1",
      resolve,
    )
    expect(down.spec).toEqual({ topology: { class: "", classNamespace: "classes", version: "v1.34.0" } })
    expect(down.status).toEqual({ infrastructureReady: true, controlPlaneReady: false })
    const noRef = convertCluster(
      { ...v1beta2Cluster, spec: { topology: { version: "v1.34.0" } }, status: { deprecated: "x" } },
      "v1beta1",
      resolve,
    )
    expect(noRef.spec).toEqual({ topology: { class: "", version: "v1.34.0" } })
    expect(noRef.status).toEqual({ infrastructureReady: false, controlPlaneReady: false })
  })
})

describe("convertCluster: the way back", () => {
  it("gives an unchanged Cluster back exactly, metadata included", () => {
    for (const c of [v1beta1Cluster, v1beta2Cluster]) {
      const other = c === v1beta1Cluster ? "v1beta2" : "v1beta1"
      const there = convertCluster(c, other, resolve)
      expect(convertCluster(there, c === v1beta1Cluster ? "v1beta1" : "v1beta2", resolve)).toEqual(c)
    }
    const empty = { ...v1beta2Cluster, metadata: { name: "c", annotations: {} } }
    expect(convertCluster(convertCluster(empty, "v1beta1", resolve), "v1beta2", resolve).metadata).toEqual({
      name: "c",
      annotations: {},
    })
  })

  it("takes a field changed in the other version from the conversion, the others from the annotation", () => {
    const down = convertCluster(v1beta2Cluster, "v1beta1", resolve)
    const edited: ClusterObject = {
      ...down,
      spec: { ...down.spec, paused: true },
      status: { ...down.status, controlPlaneReady: false, phase: "Provisioned" },
    }
    const up = convertCluster(edited, "v1beta2", resolve)
    expect(up.spec).toEqual({ ...v1beta2Cluster.spec, paused: true })
    // initialization changed (controlPlaneReady went false): converted, so it is absent now
    const { initialization: _i, ...status } = v1beta2Cluster.status ?? {}
    expect(up.status).toEqual({ ...status, phase: "Provisioned" })
    // the annotation now holds the edited source, not the older copy
    expect(stored(up)).toEqual({ spec: edited.spec, status: edited.status })
  })

  it("a field added or removed in the other version counts as changed", () => {
    const down = convertCluster(v1beta2Cluster, "v1beta1", resolve)
    const { paused: _p, ...spec } = down.spec ?? {}
    const up = convertCluster({ ...down, spec }, "v1beta2", resolve)
    expect(up.spec).toEqual({ ...spec, ...v1beta2Cluster.spec, paused: undefined })
    expect("paused" in (up.spec ?? {})).toBe(false)
    const { status: _st, ...noStatus } = down
    const dropped = convertCluster(noStatus, "v1beta2", resolve)
    expect(dropped.status).toBeUndefined()
  })

  it("gives back the source's own unreadable annotation when nothing changed", () => {
    const odd = {
      ...v1beta2Cluster,
      metadata: { name: "c", annotations: { [ConversionDataAnnotation]: "not json", other: "o" } },
    }
    const down = convertCluster(odd, "v1beta1", resolve)
    expect(stored(down)).toEqual({ spec: odd.spec, status: odd.status, annotation: "not json" })
    expect(down.metadata.annotations?.other).toBe("o")
    expect(convertCluster(down, "v1beta2", resolve)).toEqual(odd)
    // an annotation that is JSON but no object is no stored copy either
    const list = {
      ...v1beta2Cluster,
      metadata: { name: "c", annotations: { [ConversionDataAnnotation]: "[1]" } },
    }
    expect(stored(convertCluster(list, "v1beta1", resolve))).toEqual({
      spec: list.spec,
      status: list.status,
      annotation: "[1]",
    })
  })

  it("a stored spec whose refs no longer resolve counts as changed, not as an error", () => {
    const down = convertCluster(v1beta2Cluster, "v1beta1", resolve)
    const upAgain = convertCluster(down, "v1beta2", () => undefined)
    expect(upAgain.spec).toEqual({
      ...v1beta2Cluster.spec,
    })
  })
})

describe("convertCluster: errors name the field", () => {
  it("returns a Cluster of the version asked for as it is", () => {
    expect(convertCluster(v1beta2Cluster, "v1beta2", resolve)).toBe(v1beta2Cluster)
  })
  it("refuses other kinds and versions", () => {
    expect(() => convertCluster({ ...v1beta1Cluster, kind: "Machine" }, "v1beta2", resolve)).toThrow(
      new ConversionError("apiVersion: cannot convert Machine of cluster.x-k8s.io/v1beta1"),
    )
    expect(() =>
      convertCluster({ ...v1beta1Cluster, apiVersion: "cluster.x-k8s.io/v1alpha4" }, "v1beta2", resolve),
    ).toThrow("apiVersion: cannot convert Cluster of cluster.x-k8s.io/v1alpha4")
    const e = (() => {
      try {
        convertCluster({ ...v1beta1Cluster, kind: "Machine" }, "v1beta2", resolve)
      } catch (x) {
        return x
      }
    })()
    expect(e).toBeInstanceOf(ConversionError)
    expect((e as Error).name).toBe("ConversionError")
  })
  it("refuses a v1beta1 ref without apiVersion, kind or name", () => {
    for (const ref of [
      { kind: "K", name: "n" },
      { apiVersion: "g/v1", name: "n" },
      { apiVersion: "g/v1", kind: "K" },
      "g/v1",
    ]) {
      expect(() =>
        convertCluster({ ...v1beta1Cluster, spec: { infrastructureRef: ref } }, "v1beta2", resolve),
      ).toThrow(new ConversionError("spec.infrastructureRef: apiVersion, kind and name are required"))
      expect(() =>
        convertCluster({ ...v1beta1Cluster, spec: { controlPlaneRef: ref } }, "v1beta2", resolve),
      ).toThrow(new ConversionError("spec.controlPlaneRef: apiVersion, kind and name are required"))
    }
  })
  it("refuses a v1beta2 ref without apiGroup, kind or name, or whose version no CRD names", () => {
    for (const ref of [
      { kind: "K", name: "n" },
      { apiGroup: "g", name: "n" },
      { apiGroup: "g", kind: "K" },
      null,
    ]) {
      expect(() =>
        convertCluster({ ...v1beta2Cluster, spec: { infrastructureRef: ref } }, "v1beta1", resolve),
      ).toThrow(new ConversionError("spec.infrastructureRef: apiGroup, kind and name are required"))
      expect(() =>
        convertCluster({ ...v1beta2Cluster, spec: { controlPlaneRef: ref } }, "v1beta1", resolve),
      ).toThrow(new ConversionError("spec.controlPlaneRef: apiGroup, kind and name are required"))
    }
    expect(() =>
      convertCluster(
        {
          ...v1beta2Cluster,
          spec: { infrastructureRef: { apiGroup: "infra.example", kind: "X", name: "n" } },
        },
        "v1beta1",
        resolve,
      ),
    ).toThrow(
      new ConversionError(
        "spec.infrastructureRef: no served version of X in group infra.example is named by its CRD's cluster.x-k8s.io/v1beta2 or v1beta1 label",
      ),
    )
  })
})

describe("jsonEqual", () => {
  it("ignores key order and keys whose value is undefined", () => {
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true)
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true)
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true)
  })
  it("tells values apart", () => {
    expect(jsonEqual({ a: 1 }, { a: 2 })).toBe(false)
    expect(jsonEqual({ a: 1 }, { b: 1 })).toBe(false)
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false)
    expect(jsonEqual([1, 2], [1, 2, 3])).toBe(false)
    expect(jsonEqual([1, 2], [2, 1])).toBe(false)
    expect(jsonEqual([1], { 0: 1 })).toBe(false)
    expect(jsonEqual({ 0: 1 }, [1])).toBe(false)
    expect(jsonEqual(null, {})).toBe(false)
    expect(jsonEqual({}, null)).toBe(false)
    expect(jsonEqual("1", 1)).toBe(false)
    expect(jsonEqual([], [])).toBe(true)
    expect(jsonEqual(null, null)).toBe(true)
  })
})
