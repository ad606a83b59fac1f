/**
 * What every fleet process (`krtt propagate`, `krtt inventory`) starts before its controllers:
 * the hub client with the manager's QPS and burst, the start-up log line, metrics (or the
 * authenticated diagnostics endpoint) with `/healthz` and `/readyz`, and leader election.
 *
 * Expected flow: `startFleetProcess` → the caller builds its provider, manager and controllers
 * with `client` → `Ref.set(ready, true)` turns `/readyz` ready → `yield* lost` waits until the
 * Lease is lost (an error) or the scope closes.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import type { KubeClientShape } from "../kube/client.ts"
import { makeRestClient } from "../kube/restClient.ts"
import { parseBindAddress } from "../manager/http.ts"
import type { ResolvedKubeconfig } from "../manager/kubeconfig.ts"
import type { ManagerOptions } from "../manager/options.ts"
import { lead, serveMetricsAndHealth } from "../manager/serve.ts"

/** A started fleet process: its hub client, its readiness and the wait for a lost Lease. */
export interface FleetProcess {
  readonly client: KubeClientShape
  readonly ready: Ref.Ref<boolean>
  readonly lost: Effect.Effect<never, Error>
}

/** Starts the servers and leader election of a fleet process named `command` (`propagate`, `inventory`). */
export const startFleetProcess = (
  command: string,
  m: ManagerOptions,
  resolved: ResolvedKubeconfig,
  logAnnotations: Readonly<Record<string, string>>,
): Effect.Effect<FleetProcess, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const metricsAddress = parseBindAddress(
      m.metricsSecure === true ? "diagnostics-address" : "metrics-bind-address",
      m.metricsBindAddress,
    )
    const healthAddress = parseBindAddress("health-addr", m.healthProbeBindAddress)
    const client = yield* makeRestClient(resolved.kubeconfig, {
      qps: m.kubeApiQps,
      burst: m.kubeApiBurst,
      userAgent: `krtt-${command}`,
    })
    yield* Effect.logInfo(`starting krtt ${command}`).pipe(
      Effect.annotateLogs({
        kubeconfig: resolved.source,
        server: resolved.kubeconfig.getCurrentCluster()?.server ?? "",
        ...logAnnotations,
      }),
    )
    const ready = yield* Ref.make(false)
    const servers = {
      metricsAddress,
      healthAddress,
      metricsSecure: m.metricsSecure,
      tlsMinVersion: m.tlsMinVersion,
      tlsCipherSuites: m.tlsCipherSuites,
    }
    yield* serveMetricsAndHealth(client, servers, Ref.get(ready))
    const lost = yield* lead(client, m)
    return { client, ready, lost }
  })
