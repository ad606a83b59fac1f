/**
 * The release artefacts of a Cluster API provider repository, as clusterctl reads them, built
 * from `config/default` (`kubectl kustomize`): `cluster-api/v<version>/core-components.yaml`, krtt
 * as the core provider, and `metadata.yaml`, the release series with the Cluster API contract.
 * The manager's arguments carry clusterctl's variables with the defaults upstream's core
 * components have (`${CAPI_DIAGNOSTICS_ADDRESS:=:8443}`, the feature gates' `${EXP_…:=…}`); the
 * image is `ghcr.io/krtt/krtt:<version>`, which clusterctl's `images:` configuration overrides as
 * for any provider, and clusterctl puts the components in the namespace `--target-namespace`
 * names.
 *
 *   npm run release:artifacts -- [--out DIR] [--kubectl PATH]
 *
 * writes into DIR (default `out/release`) and prints the `providers:` entry of a clusterctl
 * configuration that points at it (docs/operator.md, "clusterctl").
 *
 * @module
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import { parseAllDocuments, stringify } from "yaml"

const root = fileURLToPath(new URL("..", import.meta.url))

/** The Cluster API contract krtt's Cluster controller implements (v1beta2, as v1.14's). */
export const CONTRACT = "v1beta2"
/** clusterctl's name of the core provider. */
export const CORE_PROVIDER = "cluster-api"
/** The image krtt publishes, as config/ names it. */
const IMAGE = "ghcr.io/krtt/krtt"

/** Upstream's feature gates with the variable and default its core components give each. */
const FEATURE_GATES: ReadonlyArray<readonly [gate: string, variable: string, value: string]> = [
  ["MachinePool", "EXP_MACHINE_POOL", "true"],
  ["ClusterTopology", "CLUSTER_TOPOLOGY", "false"],
  ["RuntimeSDK", "EXP_RUNTIME_SDK", "false"],
  ["MachineSetPreflightChecks", "EXP_MACHINE_SET_PREFLIGHT_CHECKS", "true"],
  [
    "MachineWaitForVolumeDetachConsiderVolumeAttachments",
    "EXP_MACHINE_WAITFORVOLUMEDETACH_CONSIDER_VOLUMEATTACHMENTS",
    "true",
  ],
  ["PriorityQueue", "EXP_PRIORITY_QUEUE", "true"],
  ["ReconcilerRateLimiting", "EXP_RECONCILER_RATE_LIMITING", "true"],
  ["InPlaceUpdates", "EXP_IN_PLACE_UPDATES", "false"],
  ["MachineTaintPropagation", "EXP_MACHINE_TAINT_PROPAGATION", "false"],
]

/** clusterctl's variable with its default: `${NAME:=default}`. */
const variable = (name: string, value: string): string => `$${"{"}${name}:=${value}}`

/** The manager's arguments with clusterctl's variables in place of the values config/ gives. */
export const withVariables = (args: ReadonlyArray<string>): ReadonlyArray<string> =>
  args.map((a) => {
    if (a.startsWith("--diagnostics-address="))
      return `--diagnostics-address=${variable("CAPI_DIAGNOSTICS_ADDRESS", ":8443")}`
    if (a.startsWith("--insecure-diagnostics="))
      return `--insecure-diagnostics=${variable("CAPI_INSECURE_DIAGNOSTICS", "false")}`
    if (a.startsWith("--feature-gates="))
      return `--feature-gates=${FEATURE_GATES.map(([g, v, d]) => `${g}=${variable(v, d)}`).join(",")}`
    return a
  })

type Manifest = {
  readonly kind: string
  readonly metadata: { readonly name: string; labels?: Record<string, string> }
  readonly spec?: { template?: { spec?: { containers?: Array<{ image: string; args?: Array<string> }> } } }
}

/** The components: config/default's objects with the provider label and the manager's args as variables. */
export const coreComponents = (built: string, version: string): string => {
  const objects = parseAllDocuments(built).flatMap((d) => {
    const o = d.toJS() as Manifest | null
    return o === null ? [] : [o]
  })
  for (const o of objects) {
    o.metadata.labels = { ...o.metadata.labels, "cluster.x-k8s.io/provider": CORE_PROVIDER }
    for (const c of o.spec?.template?.spec?.containers ?? []) {
      if (c.image === `${IMAGE}:${version}` && c.args !== undefined) c.args = [...withVariables(c.args)]
    }
  }
  return objects.map((o) => stringify(o, { lineWidth: 0 })).join("---\n")
}

/** metadata.yaml: the release series of this version and the contract it implements. */
export const metadata = (version: string): string => {
  const [major, minor] = version.split(".").map(Number)
  return stringify({
    apiVersion: "clusterctl.cluster.x-k8s.io/v1alpha3",
    kind: "Metadata",
    releaseSeries: [{ major, minor, contract: CONTRACT }],
  })
}

/** Writes both files under `out/cluster-api/v<version>/`; returns the components file. */
export const writeArtifacts = (out: string, kubectl: string): string => {
  const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string })
    .version
  const built = execFileSync(kubectl, ["kustomize", join(root, "config", "default")], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
  const folder = join(out, CORE_PROVIDER, `v${version}`)
  mkdirSync(folder, { recursive: true })
  const components = join(folder, "core-components.yaml")
  writeFileSync(components, coreComponents(built, version))
  writeFileSync(join(folder, "metadata.yaml"), metadata(version))
  return components
}

const main = async (): Promise<void> => {
  const { values } = parseArgs({ options: { out: { type: "string" }, kubectl: { type: "string" } } })
  const kubectl: string =
    values.kubectl ?? (await (await import("../testenv/assets.ts")).ensureAssets()).kubectl
  const components = writeArtifacts(resolve(values.out ?? join(root, "out", "release")), kubectl)
  process.stdout.write(
    `wrote ${components} and metadata.yaml beside it; in clusterctl's configuration:\n` +
      `providers:\n  - name: ${CORE_PROVIDER}\n    type: CoreProvider\n    url: ${pathToFileURL(components).href}\n`,
  )
}

if (import.meta.main) await main()
