// krtt run against upstream Cluster API's own CRDs: the Cluster, ClusterClass,
// Machine, MachineSet, MachineDeployment and MachinePool CRDs of the Go module
// sigs.k8s.io/cluster-api (downloaded into the cache by testenv/clusterapi.ts), installed as
// clusterctl would, with upstream's manager arguments. The same checks run on the release krtt is
// tested against and on the previous one it still supports, each on a control plane of its own.
// Every status patch must pass upstream's validation, or it fails with a 422 such as
// "status.conditions[0].message: Required value" and the Cluster gets only its finalizer.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CLUSTER_API_PREVIOUS_VERSION, CLUSTER_API_VERSION } from "../../testenv/clusterapi.ts"
import { type Cluster, type ControlPlane, startControlPlane } from "../../testenv/index.ts"
import { freePorts } from "../../testenv/processes.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import {
  CLUSTER_FINALIZER,
  create,
  createCluster,
  createNamespace,
  endpointOf,
  getObject,
  initializeControlPlane,
  installManagement,
  type KubeObject,
  managerIdentity,
  mergePatch,
  type OperatorProcess,
  paths,
  provisionInfrastructure,
  startOperator,
  waitFor,
  writeServingCertificate,
} from "../fixtures/index.ts"

const shared = sharedControlPlane()

/** A management cluster with a release's CRDs, and krtt serving its webhooks there. */
interface DropIn {
  readonly dir: string
  readonly controlPlane: ControlPlane
  readonly mgmt: Cluster
  readonly op: OperatorProcess
}

/**
 * Starts a control plane of its own with the CRDs of `version`, and krtt with its webhook server;
 * then wires upstream's Cluster admission webhooks and the Cluster CRD's conversion to krtt, as
 * clusterctl wires them to upstream's webhook Service.
 */
const startDropIn = async (version: string): Promise<DropIn> => {
  const dir = await mkdtemp(join(tmpdir(), `krtt-e2e-upstream-crds-${version}-`))
  const controlPlane = await startControlPlane({ clusters: 1 })
  const mgmt = controlPlane.clusters[0] as Cluster
  await installManagement(mgmt, { crds: "upstream", version })
  const identity = await managerIdentity(mgmt, dir)
  // The webhook's serving certificate, as cert-manager would write it.
  const certDir = join(dir, "serving-certs")
  const ca = await writeServingCertificate(certDir, ["127.0.0.1", "localhost"])
  const webhookPort = (await freePorts(1))[0] as number
  const op = await startOperator({
    kubeconfigPath: identity.kubeconfigPath,
    dir,
    args: [
      `--webhook-port=${webhookPort}`,
      `--webhook-cert-dir=${certDir}`,
      "--feature-gates=ClusterTopology=true",
    ],
  })
  await wireWebhooks(mgmt, `https://127.0.0.1:${webhookPort}`, Buffer.from(ca).toString("base64"))
  return { dir, controlPlane, mgmt, op }
}

/** Upstream's Cluster admission webhooks and the Cluster CRD's conversion, pointed at krtt's server. */
const wireWebhooks = async (mgmt: Cluster, server: string, caBundle: string): Promise<void> => {
  const hook = (path: string) => ({
    admissionReviewVersions: ["v1"],
    sideEffects: "None",
    failurePolicy: "Fail",
    matchPolicy: "Equivalent",
    clientConfig: { url: `${server}${path}`, caBundle },
    rules: [
      {
        apiGroups: ["cluster.x-k8s.io"],
        apiVersions: ["v1beta2"],
        operations: ["CREATE", "UPDATE"],
        resources: ["clusters"],
      },
    ],
  })
  await create(mgmt, "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "MutatingWebhookConfiguration",
    metadata: { name: "krtt-e2e-mutating" },
    webhooks: [
      { name: "default.cluster.cluster.x-k8s.io", ...hook("/mutate-cluster-x-k8s-io-v1beta2-cluster") },
    ],
  })
  await create(mgmt, "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: "krtt-e2e-validating" },
    webhooks: [
      { name: "validation.cluster.cluster.x-k8s.io", ...hook("/validate-cluster-x-k8s-io-v1beta2-cluster") },
    ],
  })
  await mergePatch(
    mgmt,
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusters.cluster.x-k8s.io",
    {
      spec: {
        conversion: {
          strategy: "Webhook",
          webhook: {
            conversionReviewVersions: ["v1"],
            clientConfig: { url: `${server}/convert`, caBundle },
          },
        },
      },
    },
  )
}

type Condition = { type: string; status: string; reason: string; message?: string }
const conditions = (c: KubeObject | undefined): ReadonlyArray<Condition> =>
  (c?.status?.conditions as ReadonlyArray<Condition> | undefined) ?? []

describe.each([CLUSTER_API_VERSION, CLUSTER_API_PREVIOUS_VERSION])(
  "krtt run on upstream Cluster API %s's CRDs",
  (version) => {
    let dir: string
    let controlPlane: ControlPlane
    let mgmt: Cluster
    let op: OperatorProcess

    beforeAll(async () => {
      ;({ dir, controlPlane, mgmt, op } = await startDropIn(version))
    }, 900_000)

    afterAll(async () => {
      await op?.kill()
      await controlPlane?.stop()
      if (dir !== undefined) await rm(dir, { recursive: true, force: true })
    })

    it("serves v1beta2 as storage and v1beta1 as a deprecated version, as clusterctl installs them", async () => {
      const crd = await getObject(
        mgmt,
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusters.cluster.x-k8s.io",
      )
      const versions =
        (crd?.spec?.versions as ReadonlyArray<{ name: string; storage: boolean; deprecated?: boolean }>) ?? []
      expect(versions.map((v) => [v.name, v.storage, v.deprecated === true])).toEqual([
        ["v1beta1", false, true],
        ["v1beta2", true, false],
      ])
    })

    it("writes the status upstream's schema accepts: phase, initialization, every condition with a message, the workload cluster connected", async () => {
      const w = shared.clusters[1]
      if (w === undefined) throw new Error("the shared control plane has no cluster 1")
      const ns = await createNamespace(mgmt, `e2e-upstream-${Date.now().toString(36)}`)
      const endpoint = endpointOf(w.server)
      const c = await createCluster(mgmt, {
        namespace: ns,
        name: "upstream",
        kubeconfig: w.admin.kubeconfig,
        endpoint,
        provisioned: false,
      })
      const path = paths.cluster(ns, c.name)
      const pending = await waitFor(
        "the finalizer and a first status",
        async () => {
          const cluster = await getObject(mgmt, path)
          return cluster?.metadata.finalizers?.includes(CLUSTER_FINALIZER) &&
            cluster.status?.phase === "Provisioning"
            ? cluster
            : undefined
        },
        { context: () => op.tail(30) },
      )
      for (const cond of conditions(pending)) expect(typeof cond.message, cond.type).toBe("string")

      await provisionInfrastructure(mgmt, ns, c.infra)
      await initializeControlPlane(mgmt, ns, c.controlPlane)
      const connected = await waitFor(
        "Provisioned, initialized, and RemoteConnectionProbe True",
        async () => {
          const cluster = await getObject(mgmt, path)
          const probe = conditions(cluster).find((x) => x.type === "RemoteConnectionProbe")
          return cluster?.status?.phase === "Provisioned" &&
            cluster.status.initialization?.controlPlaneInitialized === true &&
            probe?.status === "True"
            ? cluster
            : undefined
        },
        { context: () => op.tail(30), timeoutMs: 120_000 },
      )
      expect(conditions(connected).find((x) => x.type === "InfrastructureReady")?.status).toBe("True")
      expect(connected.status.failureDomains).toEqual([
        { name: "fd-a", controlPlane: true, attributes: { zone: "a" } },
        { name: "fd-b", controlPlane: false },
      ])
      // No status patch was refused along the way.
      const refused = op.logs().filter((l) => String(l.msg).includes("an action failed"))
      expect(refused.map((l) => JSON.stringify(l))).toEqual([])
    }, 240_000)

    it("converts Clusters between v1beta1 and v1beta2 when kube-apiserver calls krtt's /convert", async () => {
      const ns = await createNamespace(mgmt, `e2e-convert-${Date.now().toString(36)}`)
      const v1 = (name = "") =>
        `/apis/cluster.x-k8s.io/v1beta1/namespaces/${ns}/clusters${name && `/${name}`}`
      // A v1beta1 manifest, as older tooling writes it: the ref with its apiVersion.
      const created = await waitFor(
        "a v1beta1 Cluster accepted through the conversion webhook",
        async () => {
          const r = await mgmt.request("POST", v1(), {
            body: {
              apiVersion: "cluster.x-k8s.io/v1beta1",
              kind: "Cluster",
              metadata: { name: "old", namespace: ns },
              spec: {
                infrastructureRef: {
                  apiVersion: "infrastructure.e2e.krtt.dev/v1alpha1",
                  kind: "E2EInfraCluster",
                  name: "old",
                  namespace: ns,
                },
              },
            },
          })
          return r.status === 201 ? r : undefined
        },
        { context: () => op.tail(30) },
      )
      expect(created.status).toBe(201)
      const asV1beta2 = await getObject(mgmt, paths.cluster(ns, "old"))
      expect(asV1beta2?.spec?.infrastructureRef).toEqual({
        apiGroup: "infrastructure.e2e.krtt.dev",
        kind: "E2EInfraCluster",
        name: "old",
      })
      // The operator writes v1beta2 status; a v1beta1 reader sees it converted.
      const asV1beta1 = await waitFor(
        "the finalizer and a status read through v1beta1",
        async () => {
          const c = await getObject(mgmt, v1("old"))
          return c?.metadata.finalizers?.includes(CLUSTER_FINALIZER) && c.status?.phase === "Provisioning"
            ? c
            : undefined
        },
        { context: () => op.tail(30) },
      )
      expect(asV1beta1.apiVersion).toBe("cluster.x-k8s.io/v1beta1")
      expect(asV1beta1.spec.infrastructureRef).toEqual({
        apiVersion: "infrastructure.e2e.krtt.dev/v1alpha1",
        kind: "E2EInfraCluster",
        name: "old",
        namespace: ns,
      })
      expect(asV1beta1.status.infrastructureReady).toBe(false)
      expect(
        (asV1beta1.status.v1beta2?.conditions as ReadonlyArray<{ type: string }> | undefined)?.some(
          (c) => c.type === "InfrastructureReady",
        ),
      ).toBe(true)
    }, 240_000)

    it("defaults and validates Clusters when kube-apiserver calls krtt's admission webhooks, each refusal naming its field", async () => {
      const ns = await createNamespace(mgmt, `e2e-admission-${Date.now().toString(36)}`)
      const post = (name: string, spec: Record<string, unknown>) =>
        mgmt.request("POST", paths.cluster(ns), {
          body: {
            apiVersion: "cluster.x-k8s.io/v1beta2",
            kind: "Cluster",
            metadata: { name, namespace: ns },
            spec,
          },
        })
      const infra = { apiGroup: "infrastructure.e2e.krtt.dev", kind: "E2EInfraCluster", name: "x" }
      const empty = await waitFor(
        "the validating webhook answering",
        async () => {
          const r = await post("no-refs", { paused: true })
          return r.status === 422 ? r : undefined
        },
        { context: () => op.tail(30) },
      )
      expect(JSON.stringify(empty.body)).toContain(
        "one of spec.controlPlaneRef, spec.infrastructureRef or spec.topology must be set",
      )
      const cidr = await post("bad-cidr", {
        infrastructureRef: infra,
        clusterNetwork: { pods: { cidrBlocks: ["10.0.0.0/33"] } },
      })
      expect(cidr.status).toBe(422)
      expect(JSON.stringify(cidr.body)).toContain("spec.clusterNetwork.pods.cidrBlocks[0]")
      // Defaulting: the topology version gets its v.
      const topo = await post("topo", {
        infrastructureRef: infra,
        controlPlaneRef: { apiGroup: "controlplane.e2e.krtt.dev", kind: "E2EControlPlane", name: "x" },
        topology: { classRef: { name: "quick" }, version: "1.34.0" },
      })
      expect(topo.status, JSON.stringify(topo.body)).toBe(201)
      expect((await getObject(mgmt, paths.cluster(ns, "topo")))?.spec?.topology?.version).toBe("v1.34.0")
      // Refs cannot be removed.
      const ok = await post("refs", { infrastructureRef: infra })
      expect(ok.status).toBe(201)
      const removed = await mgmt.request("PATCH", paths.cluster(ns, "refs"), {
        body: JSON.stringify({ spec: { infrastructureRef: null, controlPlaneRef: infra } }),
        headers: { "content-type": "application/merge-patch+json" },
      })
      expect(removed.status).toBe(422)
      expect(JSON.stringify(removed.body)).toContain("spec.infrastructureRef: Forbidden: cannot be removed")
    }, 120_000)
  },
)
