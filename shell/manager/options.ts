/**
 * The manager's options: controller-runtime's flags and defaults, Cluster API's concurrency and
 * client limits. Durations are milliseconds.
 *
 * @module
 */
import type { FeatureGates } from "../../core/cluster/types.ts"
import { LeaderElectionDefaults } from "./leaderelection.ts"

export interface ManagerOptions {
  /** Path of a kubeconfig; else `KUBECONFIG`, in-cluster, `~/.kube/config`. */
  readonly kubeconfig?: string | undefined
  /** `/metrics`; `"0"` turns it off. Default `:8080`. */
  readonly metricsBindAddress: string
  /** `/healthz` and `/readyz`; `"0"` turns it off. Default `:8081`. */
  readonly healthProbeBindAddress: string
  readonly leaderElect: boolean
  readonly leaderElectNamespace: string
  readonly leaderElectId: string
  /** Default 15 s. */
  readonly leaseDuration: number
  /** Default 10 s. */
  readonly renewDeadline: number
  /** Default 2 s. */
  readonly retryPeriod: number
  /** Cluster controller reconciles at a time. Default 50 (Cluster API's manager). */
  readonly clusterConcurrency: number
  /** ClusterCache reconciles at a time. Default 100 (Cluster API's manager). */
  readonly clusterCacheConcurrency: number
  /** Management cluster client. Defaults QPS 100, burst 200 (Cluster API's manager). */
  readonly kubeApiQps: number
  readonly kubeApiBurst: number
  /** Workload cluster clients (seed 000 ClientOptions). Defaults QPS 20, burst 30, timeout 10 s. */
  readonly clusterCacheClientQps: number
  readonly clusterCacheClientBurst: number
  readonly clusterCacheClientTimeout: number
  /** How long a stop may take before the process exits anyway. Default 30 s. */
  readonly gracefulShutdownTimeout: number
  /** Cluster API feature gates the Cluster controller honours. */
  readonly featureGates: FeatureGates
}

export const ManagerDefaults: Omit<ManagerOptions, "kubeconfig" | "leaderElectNamespace"> = {
  metricsBindAddress: ":8080",
  healthProbeBindAddress: ":8081",
  leaderElect: false,
  leaderElectId: "krtt-manager-leader-election",
  ...LeaderElectionDefaults,
  clusterConcurrency: 50,
  clusterCacheConcurrency: 100,
  kubeApiQps: 100,
  kubeApiBurst: 200,
  clusterCacheClientQps: 20,
  clusterCacheClientBurst: 30,
  clusterCacheClientTimeout: 10_000,
  gracefulShutdownTimeout: 30_000,
  featureGates: { runtimeSDK: false, clusterTopology: false, machinePool: true },
}

/** Parses `--feature-gates`: `ClusterTopology=true,RuntimeSDK=false,MachinePool=true`. */
export const parseFeatureGates = (value: string, defaults: FeatureGates): FeatureGates => {
  const names: Record<string, keyof FeatureGates> = {
    ClusterTopology: "clusterTopology",
    RuntimeSDK: "runtimeSDK",
    MachinePool: "machinePool",
  }
  const gates = { ...defaults }
  for (const item of value.split(",").filter((x) => x.trim() !== "")) {
    const [name, setting] = item.split("=").map((x) => x.trim())
    const key = names[name ?? ""]
    if (key === undefined || (setting !== "true" && setting !== "false")) {
      throw new Error(
        `--feature-gates: "${item}" is not one of ${Object.keys(names)
          .map((n) => `${n}=true|false`)
          .join(", ")}`,
      )
    }
    gates[key] = setting === "true"
  }
  return gates
}

/** Parses a duration flag: `500ms`, `10s`, `5m`, `1h` (or a combination such as `1m30s`). */
export const parseDuration = (flag: string, value: string): number => {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)]
  const total = parts.reduce(
    (ms, [, n, unit]) => ms + Number(n) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[unit as "ms"],
    0,
  )
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== value) {
    throw new Error(`--${flag}: "${value}" is not a duration (e.g. 500ms, 10s, 5m, 1h30m)`)
  }
  return total
}
