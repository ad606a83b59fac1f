// config/ as kustomize reads it: every kustomization builds with the kubectl of testenv, every
// manifest of config/ belongs to one, config/default is the manager's folders, an overlay that
// sets the image (what `kustomize edit set image` writes) sets it in every Deployment, and each
// controller's build passes a server-side dry run with strict field validation on the test
// control plane, with cert-manager's and prometheus-operator's CRDs from their Go modules.
import { execFile } from "node:child_process"
import { readdirSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseAllDocuments } from "yaml"
import { ensureAssets } from "../../testenv/assets.ts"
import { CERT_MANAGER_CRDS, goModuleFile, PROMETHEUS_OPERATOR_CRDS } from "../../testenv/gomodules.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import {
  apply,
  type KubeObject,
  operatorManifests,
  readManifests,
  repoRoot,
  waitForCrd,
} from "../fixtures/index.ts"

const run = promisify(execFile)
const cluster = sharedControlPlane().clusters[1]
if (cluster === undefined) throw new Error("the shared control plane has no cluster 1")

let kubectl: string
let dir: string

/** The objects `kubectl kustomize` builds from a folder. */
const build = async (folder: string): Promise<ReadonlyArray<KubeObject>> => {
  const { stdout } = await run(kubectl, ["kustomize", folder], { maxBuffer: 64 * 1024 * 1024 })
  return parseAllDocuments(stdout).flatMap((d) => {
    const o = d.toJS() as KubeObject | null
    return o === null ? [] : [o]
  })
}

const describeObject = (o: KubeObject) =>
  `${o.kind} ${o.metadata.namespace === undefined ? "" : `${o.metadata.namespace}/`}${o.metadata.name}`

/** Every file under config/, relative to the repository, with its folder's kustomization or not. */
const configFiles = (): ReadonlyArray<string> => {
  const files: Array<string> = []
  const walk = (folder: string) => {
    for (const e of readdirSync(join(repoRoot, folder), { withFileTypes: true })) {
      const rel = join(folder, e.name)
      if (e.isDirectory()) walk(rel)
      else files.push(rel)
    }
  }
  walk("config")
  return files.sort()
}

const kustomizations = () =>
  configFiles()
    .filter((f) => f.endsWith("/kustomization.yaml"))
    .map((f) => f.slice(0, -"/kustomization.yaml".length))

/** Server-side dry runs of `objects`: namespaces first, for real (namespaced objects need them). */
const dryRun = async (objects: ReadonlyArray<KubeObject>): Promise<void> => {
  for (const o of objects.filter((x) => x.kind === "Namespace")) await apply(cluster, o)
  for (const o of objects.filter((x) => x.kind !== "Namespace")) {
    const r = await apply(cluster, o, { dryRun: true })
    expect(r.headers.warning, describeObject(o)).toBeUndefined()
    expect((r.body as KubeObject).metadata.name, describeObject(o)).toBe(o.metadata.name)
  }
}

/** A kustomization in a folder of its own over `base`, with `extra` fields. */
const overlay = async (name: string, base: string, extra: string): Promise<string> => {
  const folder = join(dir, name)
  await run("mkdir", ["-p", folder])
  const resource = relative(folder, join(repoRoot, base))
  await writeFile(
    join(folder, "kustomization.yaml"),
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ${resource}\n${extra}`,
  )
  return folder
}

beforeAll(async () => {
  kubectl = (await ensureAssets()).kubectl
  dir = await mkdtemp(join(tmpdir(), "krtt-e2e-kustomize-"))
  const crds = [
    await goModuleFile(CERT_MANAGER_CRDS("issuers")),
    await goModuleFile(CERT_MANAGER_CRDS("certificates")),
    await goModuleFile(PROMETHEUS_OPERATOR_CRDS("servicemonitors")),
  ]
  for (const file of crds)
    for (const crd of readManifests(file)) {
      await apply(cluster, crd)
      await waitForCrd(cluster, crd.metadata.name)
    }
}, 600_000)

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

describe("config/ with kustomize", () => {
  it("every kustomization builds, and every manifest of config/ is in one of them", async () => {
    const folders = kustomizations()
    expect(folders).toEqual(
      expect.arrayContaining([
        "config/default",
        "config/propagate",
        "config/inventory",
        "config/ipam",
        "config/prometheus",
        "config/grafana",
      ]),
    )
    const built = new Set<string>()
    for (const folder of folders) {
      const objects = await build(join(repoRoot, folder))
      expect(objects.length, folder).toBeGreaterThan(0)
      for (const o of objects) built.add(describeObject(o))
    }
    const manifests = configFiles().filter((f) => f.endsWith(".yaml") && !f.endsWith("/kustomization.yaml"))
    for (const file of manifests)
      for (const o of readManifests(join(repoRoot, file)))
        expect(built.has(describeObject(o)), `${describeObject(o)} of ${file}`).toBe(true)
  })

  it("config/default is the manager's folders: the same objects", async () => {
    const files = operatorManifests().flatMap((m) => m.objects.map(describeObject))
    expect((await build(join(repoRoot, "config/default"))).map(describeObject).sort()).toEqual(files.sort())
  })

  it("an overlay that sets the image sets it in the manager's Deployment", async () => {
    const folder = await overlay(
      "image",
      "config/default",
      "images:\n  - name: ghcr.io/krtt/krtt\n    newName: registry.example/krtt\n    newTag: 9.9.9\n",
    )
    const deployment = (await build(folder)).find((o) => o.kind === "Deployment")
    const template = deployment?.spec?.template as
      | { spec: { containers: Array<{ image: string }> } }
      | undefined
    const containers = template?.spec.containers ?? []
    expect(containers.map((c) => c.image)).toEqual(["registry.example/krtt:9.9.9"])
  })

  it("config/default, config/prometheus and config/grafana pass a strict server-side dry run", async () => {
    const objects = [
      ...(await build(join(repoRoot, "config/default"))),
      ...(await build(join(repoRoot, "config/prometheus"))),
      ...(await build(join(repoRoot, "config/grafana"))),
    ]
    expect(objects.map((o) => o.kind)).toEqual(
      expect.arrayContaining([
        "Certificate",
        "Issuer",
        "ServiceMonitor",
        "ConfigMap",
        "Deployment",
        "CustomResourceDefinition",
      ]),
    )
    await dryRun(objects)
  }, 120_000)

  it("config/propagate and config/inventory, hub and workload, and config/ipam pass a strict server-side dry run", async () => {
    const workload = await overlay(
      "propagate-workload",
      "config/propagate/workload",
      "namespace: e2e-propagate-team\n",
    )
    await apply(cluster, { apiVersion: "v1", kind: "Namespace", metadata: { name: "e2e-propagate-team" } })
    const objects = [
      ...(await build(join(repoRoot, "config/propagate"))),
      ...(await build(workload)),
      ...(await build(join(repoRoot, "config/inventory"))),
      ...(await build(join(repoRoot, "config/inventory/workload"))),
      ...(await build(join(repoRoot, "config/ipam"))),
    ]
    expect(
      objects
        .filter((o) => o.metadata.namespace === "e2e-propagate-team")
        .map((o) => o.kind)
        .sort(),
    ).toEqual(["Role", "RoleBinding"])
    await dryRun(objects)
  }, 120_000)
})
