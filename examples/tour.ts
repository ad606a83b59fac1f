/**
 * A tour of krtt's entry points, one step each, as a program that installs krtt would write it:
 * the documented tables (`krtt`), Cluster admission (`krtt/cluster`), an IPAMConfig's validation
 * (`krtt/ipam`), the in-memory API server and the typed client errors (`krtt/testing`,
 * `krtt/kube`), a request for a cluster (`krtt/multicluster`) and the documented numbers of the
 * ClusterCache and the scoped cache (`krtt/clustercache`, `krtt/scopedcache`).
 *
 * Run it: `node examples/tour.ts` from a checkout, or compiled from an install of the package.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import { tables, version } from "krtt"
import { validateCluster } from "krtt/cluster"
import { ClusterCacheDefaults } from "krtt/clustercache"
import { validateIpamConfig } from "krtt/ipam"
import { type KubeError, type KubeObject, Resources } from "krtt/kube"
import { ClusterName, formatRequest, makeRequest } from "krtt/multicluster"
import { ScopedCacheDefaults } from "krtt/scopedcache"
import { FakeApiServer } from "krtt/testing"

/** The lines the tour prints. */
export const tour: Effect.Effect<ReadonlyArray<string>, KubeError> = Effect.gen(function* () {
  const lines: Array<string> = [`krtt ${version}`]
  const rows = tables.reduce((n, t) => n + t.spec.rows.length, 0)
  lines.push(`${tables.length} tables, ${rows} rows`)

  const errors = validateCluster(undefined, { metadata: { name: "Not_Valid-" } }, { clusterTopology: false })
  lines.push(`cluster: ${errors.map((e) => `${e.field} ${e.type}`).join(", ")}`)

  const ipam = validateIpamConfig({ spec: { parentCIDRs: {}, injectionRule: [] } })
  lines.push(`ipam: ${"errors" in ipam ? ipam.errors.map((e) => e.message).join("; ") : "valid"}`)

  const server = yield* FakeApiServer.make()
  const created = yield* server.client().create<KubeObject>(Resources.configMaps, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: "default", name: "hello" },
  })
  lines.push(
    `created ConfigMap ${created.metadata.name} at resourceVersion ${created.metadata.resourceVersion}`,
  )
  const missing = yield* server
    .client()
    .get(Resources.configMaps, { namespace: "default", name: "absent" })
    .pipe(
      Effect.map(() => "found"),
      Effect.catchTag("NotFound", (e) => Effect.succeed(`${e._tag}`)),
    )
  lines.push(`get absent: ${missing}`)

  lines.push(
    `request ${formatRequest(makeRequest({ namespace: "default", name: "hello" }, ClusterName("east")))}`,
  )
  lines.push(`clustercache probes every ${ClusterCacheDefaults.healthProbe.interval} ms`)
  lines.push(`scopedcache stops a forbidden informer within ${ScopedCacheDefaults.stopTimeout}`)
  return lines
})

if (import.meta.main) for (const line of await Effect.runPromise(tour)) console.log(line)
