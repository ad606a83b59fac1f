/**
 * `krtt why`'s ClusterCache part: the ClusterCache Reconciler table (core/clustercache) run for
 * a Cluster with what can be seen from outside the manager. The manager's accessor is not
 * visible, so the run starts as a new manager's would (no accessor). Connecting needs the
 * `<cluster>-kubeconfig` Secret, present and parsing, and the workload API server's answer to
 * one `GET /`, which only `--probe` asks for; the health probe is that same answer. Without
 * `--probe` the diagnosis stops where the answer is needed and says so. The Secret's data is
 * never printed.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { ProbeOutcome } from "../../core/clustercache/health.ts"
import { ClusterCacheDefaults, runReconcile } from "../../core/clustercache/index.ts"
import { reconcilerTransition } from "../../core/clustercache/reconciler.ts"
import { findRow, type RowId } from "../../core/krtt/index.ts"
import { kubeconfigFromSecret, kubeconfigSecretName, parseKubeconfig } from "../clustercache/kubeconfig.ts"
import { bindingOf } from "../krtt/registry.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { makeRestClient } from "../kube/restClient.ts"
import type { DecidingRow } from "./diagnose.ts"

/** What was observed for the ClusterCache: the Secret, and the probe when asked for. */
interface CacheWorld {
  readonly secret: "found" | "missing" | "invalid"
  readonly probe: ProbeOutcome | undefined
}

const probeWorkload = (secret: KubeObject, name: string): Effect.Effect<ProbeOutcome | "invalid"> =>
  Effect.scoped(
    Effect.gen(function* () {
      const text = yield* kubeconfigFromSecret(secret as { data?: Record<string, string> }, name)
      const kc = yield* parseKubeconfig(text, name)
      const workload = yield* makeRestClient(kc, { userAgent: "krtt-why" })
      return yield* workload.probe({ timeout: ClusterCacheDefaults.healthProbe.timeout }).pipe(
        Effect.as<ProbeOutcome>("success"),
        Effect.catch((e) =>
          Effect.succeed<ProbeOutcome>(e._tag === "Unauthorized" ? "unauthorized" : "failure"),
        ),
      )
    }),
  ).pipe(Effect.catch(() => Effect.succeed("invalid" as const)))

const observeCache = (
  client: KubeClientShape,
  cluster: KubeObject,
  probe: boolean,
): Effect.Effect<CacheWorld> =>
  Effect.gen(function* () {
    const name = kubeconfigSecretName(cluster.metadata.name ?? "")
    const got = yield* client
      .get(Resources.secrets, { namespace: cluster.metadata.namespace ?? "", name })
      .pipe(
        Effect.map((s): KubeObject | undefined => s),
        Effect.catch(() => Effect.succeed(undefined)),
      )
    if (got === undefined) return { secret: "missing", probe: undefined }
    if (!probe) return { secret: "found", probe: undefined }
    const outcome = yield* probeWorkload(got, name)
    return outcome === "invalid"
      ? { secret: "invalid", probe: undefined }
      : { secret: "found", probe: outcome }
  })

/** Why a run stopped: the probe was needed but not asked for. */
class ProbeNotRun extends Error {}

/** The ClusterCache Reconciler's deciding row for `cluster`. */
export const clusterCacheRow = (
  client: KubeClientShape,
  cluster: KubeObject,
  options: { readonly probe: boolean; readonly now: number },
): Effect.Effect<DecidingRow> =>
  Effect.map(observeCache(client, cluster, options.probe), (world) => {
    const status = (cluster as { status?: { initialization?: { infrastructureProvisioned?: boolean } } })
      .status
    const desired = {
      cluster: {
        _tag: "Found" as const,
        infrastructureProvisioned: status?.initialization?.infrastructureProvisioned === true,
        deleting: cluster.metadata.deletionTimestamp !== undefined,
      },
      sources: [{ name: "cluster", probeFailureDurations: [] }],
    }
    const rows: Array<RowId> = []
    let waitingOn: string | undefined
    try {
      runReconcile(
        undefined,
        desired,
        options.now,
        {
          connect: () => {
            if (world.secret !== "found")
              return { ok: false, step: "createConnection", error: `kubeconfig Secret is ${world.secret}` }
            if (world.probe === undefined) throw new ProbeNotRun()
            return world.probe === "success"
              ? { ok: true }
              : {
                  ok: false,
                  step: "createConnection",
                  error: `the workload API server's answer: ${world.probe}`,
                }
          },
          probe: () => {
            if (world.probe === undefined) throw new ProbeNotRun()
            return world.probe
          },
        },
        ClusterCacheDefaults,
        (input, config) => {
          const r = reconcilerTransition(input, config)
          rows.push(r.row)
          return r
        },
      )
    } catch (e) {
      if (!(e instanceof ProbeNotRun)) throw e
      waitingOn =
        "the workload API server's answer to connecting and to the health probe (GET /): give --probe to make it"
    }
    const namespace = cluster.metadata.namespace ?? ""
    const secretName = kubeconfigSecretName(cluster.metadata.name ?? "")
    if (!desired.cluster.infrastructureProvisioned)
      waitingOn = `Cluster ${namespace}/${cluster.metadata.name ?? ""} status.initialization.infrastructureProvisioned is not true`
    else if (world.secret !== "found") waitingOn = `Secret ${namespace}/${secretName} is ${world.secret}`
    // The row that decides: the last one before the closing PhasesComplete (row 12), past creating the accessor (row 1).
    const meaningful = rows.filter((r) => !r.endsWith("#1") && !r.endsWith("#12"))
    const row = meaningful[meaningful.length - 1] ?? rows[rows.length - 1] ?? "clustercache.reconciler#1"
    const spec = bindingOf("clustercache.reconciler")?.spec
    const r = spec === undefined ? undefined : findRow(spec, row)
    const text = Object.entries(r?.cells ?? {})
      .map(([c, t]) => `${c}: ${t}`)
      .join(" | ")
    return { table: "clustercache.reconciler", row, text, ...(waitingOn === undefined ? {} : { waitingOn }) }
  })
