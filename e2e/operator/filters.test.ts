// Upstream's --namespace and --watch-filter (label cluster.x-k8s.io/watch-filter): a manager
// started with them reconciles only the Clusters of that namespace carrying that label value
// (the migration guide's step 2, docs/operator.md). And config/crd on a cluster whose Cluster CRD once stored v1beta1.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Cluster, type ControlPlane, startControlPlane } from "../../testenv/index.ts"
import {
  apply,
  CLUSTER_FINALIZER,
  create,
  createNamespace,
  expectStatus,
  getObject,
  installManagement,
  type KubeObject,
  managerIdentity,
  type OperatorProcess,
  operatorManifests,
  paths,
  startOperator,
  waitFor,
} from "../fixtures/index.ts"

let dir: string
let controlPlane: ControlPlane
let mgmt: Cluster
let op: OperatorProcess
let watched: string
let other: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "krtt-e2e-filters-"))
  controlPlane = await startControlPlane({ clusters: 1 })
  mgmt = controlPlane.clusters[0] as Cluster
  await installManagement(mgmt)
  const identity = await managerIdentity(mgmt, dir)
  watched = await createNamespace(mgmt, "e2e-watched")
  other = await createNamespace(mgmt, "e2e-other")
  op = await startOperator({
    kubeconfigPath: identity.kubeconfigPath,
    dir,
    args: [`--namespace=${watched}`, "--watch-filter=blue"],
  })
}, 300_000)

afterAll(async () => {
  await op?.kill()
  await controlPlane?.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

const cluster = (namespace: string, name: string, labels: Record<string, string>) =>
  create(mgmt, paths.cluster(namespace), {
    apiVersion: "cluster.x-k8s.io/v1beta2",
    kind: "Cluster",
    metadata: { name, namespace, labels },
    spec: { controlPlaneEndpoint: { host: "10.0.0.1", port: 6443 } },
  })

describe("krtt run --namespace --watch-filter", () => {
  it("reconciles only the Clusters of its namespace labelled cluster.x-k8s.io/watch-filter=<value>", async () => {
    // Created first, so that the manager has seen them before the one it reconciles.
    await cluster(watched, "unlabelled", {})
    await cluster(watched, "green", { "cluster.x-k8s.io/watch-filter": "green" })
    await cluster(other, "elsewhere", { "cluster.x-k8s.io/watch-filter": "blue" })
    await cluster(watched, "blue", { "cluster.x-k8s.io/watch-filter": "blue" })
    await waitFor(
      "the blue Cluster of the watched namespace reconciled",
      async () => {
        const c = await getObject(mgmt, paths.cluster(watched, "blue"))
        return c?.metadata.finalizers?.includes(CLUSTER_FINALIZER) && c.status?.phase !== undefined
          ? c
          : undefined
      },
      { context: () => op.tail(30) },
    )
    for (const [ns, name] of [
      [watched, "unlabelled"],
      [watched, "green"],
      [other, "elsewhere"],
    ] as const) {
      const c = await getObject(mgmt, paths.cluster(ns, name))
      expect(c?.metadata.finalizers ?? [], `${ns}/${name}`).toEqual([])
      expect(c?.status, `${ns}/${name}`).toBeUndefined()
    }
  }, 120_000)

  it("config/crd applies where the Cluster CRD's storedVersions still holds v1beta1 (a cluster upgraded from v1beta1)", async () => {
    const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusters.cluster.x-k8s.io"
    const crd = operatorManifests()
      .flatMap((m) => m.objects)
      .find((o) => o.kind === "CustomResourceDefinition") as KubeObject
    await expectStatus(
      mgmt.request("PATCH", `${crdPath}/status`, {
        body: JSON.stringify({ status: { storedVersions: ["v1beta1", "v1beta2"] } }),
        headers: { "content-type": "application/merge-patch+json" },
      }),
      [200],
      "storedVersions with v1beta1",
    )
    const r = await apply(mgmt, crd)
    expect(r.status).toBe(200)
    // Without v1beta1 the API server refuses it: what the issue saw with a v1beta2-only CRD.
    const versions = ((crd.spec?.versions ?? []) as ReadonlyArray<{ name: string }>).filter(
      (v) => v.name !== "v1beta1",
    )
    const { conversion: _c, ...spec } = crd.spec as Record<string, unknown>
    const refused = await mgmt.request("PUT", crdPath, {
      body: {
        ...crd,
        metadata: { ...crd.metadata, resourceVersion: (r.body as KubeObject).metadata.resourceVersion },
        spec: { ...spec, versions },
      },
    })
    expect(refused.status).toBe(422)
    expect(refused.text).toContain("storedVersions")
  }, 60_000)
})
