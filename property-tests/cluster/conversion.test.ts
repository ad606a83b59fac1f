/**
 * Cluster conversion between cluster.x-k8s.io/v1beta1 and v1beta2: lossless
 * round trips both ways on generated Clusters, edits made in one version visible in the other,
 * the field mapping of upstream v1.13, and errors that name the field.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ConversionDataAnnotation } from "../../core/cluster/contract.ts"
import {
  type ClusterObject,
  ConversionError,
  convertCluster,
  jsonEqual,
  type VersionResolver,
} from "../../core/cluster/conversion.ts"

const VERSIONS: Readonly<Record<string, string>> = {
  "infrastructure.cluster.x-k8s.io": "v1beta2",
  "controlplane.cluster.x-k8s.io": "v1beta2",
  "infrastructure.example.com": "v1alpha1",
}
const resolve: VersionResolver = (group) => VERSIONS[group]

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/)
const condition = fc.record({
  type: fc.constantFrom("Available", "InfrastructureReady", "TopologyReconciled", "Custom"),
  status: fc.constantFrom("True", "False", "Unknown"),
  reason: fc.constantFrom("Ready", "NotReady", "Waiting"),
  message: fc.string({ maxLength: 20 }),
  lastTransitionTime: fc.constant("2026-01-01T00:00:00Z"),
})
const replicas = fc.record(
  { replicas: fc.nat(9), readyReplicas: fc.nat(9), desiredReplicas: fc.nat(9) },
  { requiredKeys: [] },
)
const network = fc.record(
  {
    apiServerPort: fc.integer({ min: 1, max: 65_535 }),
    services: fc.record({ cidrBlocks: fc.constant(["10.96.0.0/12"]) }),
    pods: fc.record({ cidrBlocks: fc.constant(["192.168.0.0/16"]) }),
    serviceDomain: fc.constant("cluster.local"),
  },
  { requiredKeys: [] },
)
const group = fc.constantFrom(...Object.keys(VERSIONS))
const gates = fc.array(
  fc.record({
    conditionType: fc.constantFrom("A", "B", "C"),
    polarity: fc.constantFrom("Positive", "Negative"),
  }),
  { maxLength: 2 },
)

const meta = fc.record(
  {
    name,
    namespace: name,
    annotations: fc.dictionary(fc.constantFrom("a.example/x", "b.example/y"), fc.string({ maxLength: 5 })),
    labels: fc.dictionary(fc.constantFrom("team"), name),
  },
  { requiredKeys: ["name", "namespace"] },
)

/** v1beta2 Clusters. */
const v1beta2: fc.Arbitrary<ClusterObject> = fc
  .record({
    metadata: meta,
    spec: fc.record(
      {
        paused: fc.boolean(),
        clusterNetwork: network,
        controlPlaneEndpoint: fc.record({
          host: fc.constantFrom("10.0.0.1", "api.example"),
          port: fc.constant(6443),
        }),
        infrastructureRef: fc.record({
          apiGroup: group,
          kind: fc.constantFrom("DockerCluster", "AWSCluster"),
          name,
        }),
        controlPlaneRef: fc.record({ apiGroup: group, kind: fc.constant("KubeadmControlPlane"), name }),
        topology: fc.record(
          {
            classRef: fc.record({ name, namespace: name }, { requiredKeys: ["name"] }),
            version: fc.constantFrom("v1.34.0", "v1.33.2"),
            workers: fc.record({ machineDeployments: fc.constant([{ class: "md", name: "md-0" }]) }),
            variables: fc.constant([{ name: "region", value: "eu" }]),
          },
          { requiredKeys: ["classRef", "version"] },
        ),
        availabilityGates: gates,
      },
      { requiredKeys: [] },
    ),
    status: fc.option(
      fc.record(
        {
          conditions: fc.array(condition, { maxLength: 3 }),
          initialization: fc.record(
            { infrastructureProvisioned: fc.boolean(), controlPlaneInitialized: fc.boolean() },
            { requiredKeys: [] },
          ),
          controlPlane: replicas,
          workers: replicas,
          failureDomains: fc.uniqueArray(
            fc.record({ name, controlPlane: fc.boolean() }, { requiredKeys: ["name"] }),
            { minLength: 1, maxLength: 3, selector: (d) => d.name },
          ),
          phase: fc.constantFrom("Pending", "Provisioning", "Provisioned"),
          observedGeneration: fc.integer({ min: 1, max: 9 }),
          deprecated: fc.record({
            v1beta1: fc.record(
              {
                conditions: fc.array(
                  fc.record({
                    type: fc.constant("Ready"),
                    status: fc.constant("False"),
                    severity: fc.constant("Info"),
                  }),
                  { maxLength: 1 },
                ),
                failureReason: fc.constant("CreateError"),
                failureMessage: fc.constant("quota"),
              },
              { requiredKeys: [] },
            ),
          }),
        },
        { requiredKeys: [] },
      ),
      { nil: undefined },
    ),
  })
  .map(({ metadata, spec, status }) => ({
    apiVersion: "cluster.x-k8s.io/v1beta2",
    kind: "Cluster",
    metadata,
    spec,
    ...(status === undefined ? {} : { status }),
  }))

/** v1beta1 Clusters. */
const v1beta1: fc.Arbitrary<ClusterObject> = fc
  .record({
    metadata: meta,
    spec: fc.record(
      {
        paused: fc.boolean(),
        clusterNetwork: network,
        controlPlaneEndpoint: fc.record({ host: fc.constant("10.0.0.1"), port: fc.constant(6443) }),
        infrastructureRef: fc.record(
          {
            apiVersion: fc.constantFrom(
              "infrastructure.cluster.x-k8s.io/v1beta1",
              "infrastructure.example.com/v1alpha1",
            ),
            kind: fc.constant("DockerCluster"),
            name,
            namespace: name,
            uid: fc.uuid(),
          },
          { requiredKeys: ["apiVersion", "kind", "name"] },
        ),
        topology: fc.record(
          {
            class: name,
            classNamespace: name,
            version: fc.constant("v1.34.0"),
            rolloutAfter: fc.constant("2026-02-01T00:00:00Z"),
          },
          { requiredKeys: ["class", "version"] },
        ),
        availabilityGates: gates,
      },
      { requiredKeys: [] },
    ),
    status: fc.option(
      fc.record(
        {
          infrastructureReady: fc.boolean(),
          controlPlaneReady: fc.boolean(),
          phase: fc.constantFrom("Pending", "Provisioned"),
          failureDomains: fc.dictionary(name, fc.record({ controlPlane: fc.boolean() }), { maxKeys: 3 }),
          conditions: fc.array(fc.record({ type: fc.constant("Ready"), status: fc.constant("True") }), {
            maxLength: 1,
          }),
          failureReason: fc.constant("UpdateError"),
          failureMessage: fc.constant("boom"),
          v1beta2: fc.record({ conditions: fc.array(condition, { maxLength: 2 }) }),
        },
        { requiredKeys: ["infrastructureReady", "controlPlaneReady"] },
      ),
      { nil: undefined },
    ),
  })
  .map(({ metadata, spec, status }) => ({
    apiVersion: "cluster.x-k8s.io/v1beta1",
    kind: "Cluster",
    metadata,
    spec,
    ...(status === undefined ? {} : { status }),
  }))

describe("Cluster conversion v1beta1 ⇄ v1beta2", () => {
  it("v1beta2 → v1beta1 → v1beta2 gives the Cluster back exactly", () => {
    fc.assert(
      fc.property(v1beta2, (c) => {
        const down = convertCluster(c, "v1beta1", resolve)
        expect(down.apiVersion).toBe("cluster.x-k8s.io/v1beta1")
        expect(jsonEqual(convertCluster(down, "v1beta2", resolve), c)).toBe(true)
      }),
    )
  })

  it("v1beta1 → v1beta2 → v1beta1 gives the Cluster back exactly", () => {
    fc.assert(
      fc.property(v1beta1, (c) => {
        const up = convertCluster(c, "v1beta2", resolve)
        expect(up.apiVersion).toBe("cluster.x-k8s.io/v1beta2")
        expect(jsonEqual(convertCluster(up, "v1beta1", resolve), c)).toBe(true)
      }),
    )
  })

  it("an edit made in v1beta1 shows in v1beta2; the fields v1beta1 cannot hold are kept", () => {
    fc.assert(
      fc.property(v1beta2, fc.constantFrom("10.9.9.9", "edited.example"), (c, host) => {
        const down = convertCluster(c, "v1beta1", resolve)
        const edited = { ...down, spec: { ...down.spec, controlPlaneEndpoint: { host, port: 7443 } } }
        const up = convertCluster(edited, "v1beta2", resolve)
        expect(up.spec?.controlPlaneEndpoint).toEqual({ host, port: 7443 })
        for (const k of Object.keys(c.spec ?? {}))
          if (k !== "controlPlaneEndpoint") expect(jsonEqual(up.spec?.[k], c.spec?.[k]), k).toBe(true)
        expect(jsonEqual(up.status, c.status)).toBe(true)
      }),
    )
  })

  it("an edit of a field that the other version names otherwise (readiness, conditions, topology class, failure domains) shows on the way back; every other field comes back as it was", () => {
    type Edit = (o: ClusterObject) => ClusterObject
    const st = (o: ClusterObject, patch: Record<string, unknown>): ClusterObject => ({
      ...o,
      status: { ...o.status, ...patch },
    })
    const inV1beta1: ReadonlyArray<Edit> = [
      (o) => st(o, { infrastructureReady: o.status?.infrastructureReady !== true }),
      (o) => st(o, { controlPlaneReady: o.status?.controlPlaneReady !== true }),
      (o) => st(o, { v1beta2: { conditions: [{ type: "Edited", status: "True" }] } }),
      (o) => st(o, { failureDomains: { edited: { controlPlane: true } } }),
      (o) => st(o, { conditions: [{ type: "Ready", status: "Unknown" }], failureMessage: "edited" }),
      (o) => ({ ...o, spec: { ...o.spec, topology: { ...(o.spec?.topology as object), class: "edited" } } }),
    ]
    const inV1beta2: ReadonlyArray<Edit> = [
      (o) => st(o, { initialization: { infrastructureProvisioned: true } }),
      (o) => st(o, { conditions: [{ type: "Edited", status: "True" }] }),
      (o) => st(o, { failureDomains: [{ name: "edited" }] }),
      (o) => st(o, { deprecated: { v1beta1: { failureReason: "Edited" } } }),
      (o) => ({ ...o, spec: { ...o.spec, topology: { version: "v1.34.0", classRef: { name: "edited" } } } }),
    ]
    const strip = (o: ClusterObject): ClusterObject => ({ ...o, metadata: { name: o.metadata.name } })
    const check = (c: ClusterObject, via: "v1beta1" | "v1beta2", edit: Edit) => {
      const back = via === "v1beta1" ? "v1beta2" : "v1beta1"
      const there = convertCluster(c, via, resolve)
      const edited = edit(there)
      const out = convertCluster(edited, back, resolve)
      // what the edit changed is what a conversion without the annotation changes
      const fresh = convertCluster(strip(edited), back, resolve)
      const was = convertCluster(strip(there), back, resolve)
      for (const part of ["spec", "status"] as const)
        for (const k of new Set([...Object.keys(fresh[part] ?? {}), ...Object.keys(c[part] ?? {})])) {
          const touched = !jsonEqual(fresh[part]?.[k], was[part]?.[k])
          expect(out[part]?.[k], `${part}.${k} (${touched ? "edited" : "not edited"})`).toEqual(
            touched ? fresh[part]?.[k] : c[part]?.[k],
          )
        }
    }
    fc.assert(
      fc.property(v1beta2, fc.nat(inV1beta1.length - 1), (c, e) => check(c, "v1beta1", inV1beta1[e] as Edit)),
    )
    fc.assert(
      fc.property(v1beta1, fc.nat(inV1beta2.length - 1), (c, e) => check(c, "v1beta2", inV1beta2[e] as Edit)),
    )
  })

  it("maps the fields as upstream: refs through the contract label, topology class, status", () => {
    const v1 = convertCluster(
      {
        apiVersion: "cluster.x-k8s.io/v1beta2",
        kind: "Cluster",
        metadata: { name: "c", namespace: "n" },
        spec: {
          infrastructureRef: { apiGroup: "infrastructure.example.com", kind: "AWSCluster", name: "c" },
          topology: { classRef: { name: "quick", namespace: "classes" }, version: "v1.34.0" },
        },
        status: {
          initialization: { infrastructureProvisioned: true },
          failureDomains: [{ name: "b" }, { name: "a", controlPlane: true }],
          conditions: [{ type: "Available", status: "True", reason: "Available", message: "" }],
          deprecated: { v1beta1: { failureReason: "CreateError" } },
        },
      },
      "v1beta1",
      resolve,
    )
    expect(v1.spec).toEqual({
      infrastructureRef: { apiVersion: "infrastructure.example.com/v1alpha1", kind: "AWSCluster", name: "c" },
      topology: { class: "quick", classNamespace: "classes", version: "v1.34.0" },
    })
    expect(v1.status).toEqual({
      infrastructureReady: true,
      controlPlaneReady: false,
      failureDomains: { a: { controlPlane: true }, b: {} },
      failureReason: "CreateError",
      v1beta2: { conditions: [{ type: "Available", status: "True", reason: "Available", message: "" }] },
    })
    expect(v1.metadata.annotations?.[ConversionDataAnnotation]).toBeDefined()
  })

  it("refuses a ref whose version no CRD label names, naming the field", () => {
    const c: ClusterObject = {
      apiVersion: "cluster.x-k8s.io/v1beta2",
      kind: "Cluster",
      metadata: { name: "c", namespace: "n" },
      spec: { controlPlaneRef: { apiGroup: "controlplane.unknown.io", kind: "X", name: "c" } },
    }
    expect(() => convertCluster(c, "v1beta1", resolve)).toThrow(ConversionError)
    expect(() => convertCluster(c, "v1beta1", resolve)).toThrow(/^spec\.controlPlaneRef: /)
  })
})
