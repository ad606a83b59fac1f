// krtt as Cluster API's core provider through upstream's clusterctl v1.14.2 (built from its
// module by `npm run testenv -- install`): the release artefacts of `npm run release:artifacts`
// in a local provider repository, `clusterctl generate provider --core` reading them through a
// `providers:` override with a file:// URL, its variables, image override and target namespace
// applied, and its output passing a strict server-side dry run on the test control plane.
import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseAllDocuments } from "yaml"
import { metadata, writeArtifacts } from "../../scripts/release-artifacts.ts"
import { ensureAssets } from "../../testenv/assets.ts"
import { ensureClusterctl } from "../../testenv/capiBuild.ts"
import { CERT_MANAGER_CRDS, goModuleFile } from "../../testenv/gomodules.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import { apply, type KubeObject, readManifests, repoRoot, waitForCrd } from "../fixtures/index.ts"

const run = promisify(execFile)
const cluster = sharedControlPlane().clusters[1]
if (cluster === undefined) throw new Error("the shared control plane has no cluster 1")

const VERSION = (JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as { version: string })
  .version
let dir: string
let clusterctl: string
let components: string

/** `clusterctl generate provider --core cluster-api:v<version>` with a configuration of the test's. */
const generate = async (config: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}) => {
  const configPath = join(dir, `clusterctl-${Date.now()}.yaml`)
  await writeFile(configPath, config)
  const { stdout } = await run(
    clusterctl,
    ["generate", "provider", "--core", `cluster-api:v${VERSION}`, "--config", configPath, ...args],
    // A HOME of its own: clusterctl keeps its overrides and caches there.
    { env: { ...process.env, HOME: dir, ...env }, maxBuffer: 64 * 1024 * 1024 },
  )
  return stdout
}

const objectsOf = (text: string): ReadonlyArray<KubeObject> =>
  parseAllDocuments(text).flatMap((d) => {
    const o = d.toJS() as KubeObject | null
    return o === null ? [] : [o]
  })

const providers = () =>
  `providers:\n  - name: cluster-api\n    type: CoreProvider\n    url: ${pathToFileURL(components).href}\n`

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "krtt-e2e-clusterctl-"))
  clusterctl = await ensureClusterctl((line) => console.log(line))
  components = writeArtifacts(join(dir, "repository"), (await ensureAssets()).kubectl)
  for (const name of ["issuers", "certificates"])
    for (const crd of readManifests(await goModuleFile(CERT_MANAGER_CRDS(name)))) {
      await apply(cluster, crd)
      await waitForCrd(cluster, crd.metadata.name)
    }
}, 1_800_000)

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

describe("krtt's provider repository with clusterctl", () => {
  it("holds metadata.yaml with the release series and the contract", async () => {
    const text = await readFile(join(components, "..", "metadata.yaml"), "utf8")
    expect(text).toBe(metadata(VERSION))
    const [major, minor] = VERSION.split(".").map(Number)
    expect(objectsOf(text)[0]).toMatchObject({
      kind: "Metadata",
      releaseSeries: [{ major, minor, contract: "v1beta2" }],
    })
  })

  it("clusterctl lists the components' variables, upstream's names", async () => {
    const described = await generate(providers(), ["--describe"])
    for (const v of [
      "CAPI_DIAGNOSTICS_ADDRESS",
      "CAPI_INSECURE_DIAGNOSTICS",
      "EXP_MACHINE_POOL",
      "CLUSTER_TOPOLOGY",
    ])
      expect(described).toContain(`- ${v}`)
    expect(described).toContain(`- ghcr.io/krtt/krtt:${VERSION}`)
  })

  it("generates the components with the variables, image override and target namespace given", async () => {
    const text = await generate(
      `${providers()}images:\n  cluster-api:\n    repository: registry.example/krtt\n`,
      ["--target-namespace", "capi-system"],
      { CLUSTER_TOPOLOGY: "true", CAPI_DIAGNOSTICS_ADDRESS: ":9443" },
    )
    const objects = objectsOf(text)
    const deployment = objects.find((o) => o.kind === "Deployment")
    const container = (
      deployment?.spec?.template as
        | { spec: { containers: Array<{ image: string; args: Array<string> }> } }
        | undefined
    )?.spec.containers[0]
    expect(container?.image).toBe(`registry.example/krtt/krtt:${VERSION}`)
    expect(container?.args).toContain("--diagnostics-address=:9443")
    expect(container?.args.find((a) => a.startsWith("--feature-gates="))).toContain("ClusterTopology=true")
    expect(text).not.toContain("${")
    const namespaced = objects.filter((o) => o.metadata.namespace !== undefined)
    expect(new Set(namespaced.map((o) => o.metadata.namespace))).toEqual(new Set(["capi-system"]))
    for (const o of objects)
      expect(o.metadata.labels?.["cluster.x-k8s.io/provider"], o.kind).toBe("cluster-api")
  })

  it("its output passes a strict server-side dry run", async () => {
    const objects = objectsOf(await generate(providers(), ["--target-namespace", "e2e-clusterctl"]))
    for (const o of objects.filter((x) => x.kind === "Namespace")) await apply(cluster, o)
    expect(objects.filter((o) => o.kind === "Namespace").map((o) => o.metadata.name)).toEqual([
      "e2e-clusterctl",
    ])
    for (const o of objects.filter((x) => x.kind !== "Namespace")) {
      const r = await apply(cluster, o, { dryRun: true })
      expect(r.headers.warning, `${o.kind} ${o.metadata.name}`).toBeUndefined()
    }
  }, 120_000)
})
