/**
 * `krtt run`: the operator. Connects to the management cluster, serves metrics and probes,
 * optionally waits to lead, then runs the ClusterCache and the Cluster controller until SIGTERM.
 *
 * Expected flow: resolve the kubeconfig → check the Cluster CRD → (in the background) warn once
 * about objects of Cluster API kinds krtt does not reconcile → start the probe and metrics
 * servers and (with a certificate) the conversion webhooks → (leader election) → assemble the
 * operator from the flags (`operator.ts`: the Cluster reflector, the ClusterCache and its
 * controller, the Cluster controller) and the extra runnables, then start their controllers →
 * `/readyz` turns ready once the Cluster reflector has synced → on SIGTERM stop
 * taking work, let in-flight reconciles finish (at most the graceful shutdown timeout), release the
 * Lease, exit 0. A lost Lease ends the process with an error, as in controller-runtime, so that
 * two leaders never act at once.
 *
 * @module
 */

import { existsSync } from "node:fs"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import { clusterControllerConfig } from "../../core/cluster/config.ts"
import { WatchFilterLabel } from "../../core/cluster/contract.ts"
import { clusterCacheConfig } from "../../core/clustercache/index.ts"
import { contractResource } from "../cluster/contract.ts"
import { ClusterResource } from "../clustercache/service.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { CustomResourceDefinition } from "../kube/discovery.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { makeRestClient } from "../kube/restClient.ts"
import { make as makeReflector, type Reflector } from "../reflector/reflector.ts"
import { certificatePaths, serveWebhooks } from "../webhook/server.ts"
import { parseBindAddress } from "./http.ts"
import type { ResolvedKubeconfig } from "./kubeconfig.ts"
import { make as makeOperator, type OperatorOptions } from "./operator.ts"
import { type ManagerOptions, UpstreamManagerDefaults } from "./options.ts"
import { lead, serveMetricsAndHealth } from "./serve.ts"
import { warnUnreconciled } from "./unreconciled.ts"

/** What a controller needs from the manager to run. */
export interface ManagerContext {
  readonly options: ManagerOptions
  readonly client: KubeClientShape
  readonly clusters: Reflector<KubeObject>
}

/** A controller the manager runs while it leads: `make` builds it, the effect it returns starts it. */
export interface Runnable {
  readonly name: string
  readonly make: (
    ctx: ManagerContext,
  ) => Effect.Effect<Effect.Effect<void, never, Scope.Scope>, never, Scope.Scope>
}

/** What `krtt run`'s flags make of the operator (`operator.ts`). */
const operatorOptions = (options: ManagerOptions): OperatorOptions => ({
  // --namespace and --watch-filter narrow what the manager sees, as upstream's cache options do.
  namespace: options.watchNamespace,
  clusterSelector:
    options.watchFilter === undefined ? undefined : `${WatchFilterLabel}=${options.watchFilter}`,
  clusterCacheConfig: clusterCacheConfig({
    client: {
      qps: options.clusterCacheClientQps,
      burst: options.clusterCacheClientBurst,
      timeout: options.clusterCacheClientTimeout,
      userAgent: "krtt-clustercache",
    },
  }),
  clusterCacheConcurrency: options.clusterCacheConcurrency,
  clusterConcurrency: options.clusterConcurrency,
  featureGates: options.featureGates,
  clusterConfig: clusterControllerConfig(
    options.remoteConnectionGracePeriod === undefined
      ? {}
      : { remoteConnectionGracePeriod: options.remoteConnectionGracePeriod },
  ),
  syncPeriod: options.syncPeriod,
})

/** Fails, saying how to fix it, when the Cluster CRD is not installed: without it nothing can work. */
const requireClusterCrd = (
  client: KubeClientShape,
  resolved: ResolvedKubeconfig,
): Effect.Effect<void, Error> =>
  Effect.gen(function* () {
    const crd = `${ClusterResource.resource}.${ClusterResource.group}`
    const installed = yield* client.get(Resources.customResourceDefinitions, { name: crd }).pipe(
      Effect.as(true),
      Effect.catchTag("NotFound", () => Effect.succeed(false)),
      Effect.mapError(
        (e) => new Error(`cannot read CustomResourceDefinition ${crd}: ${e._tag}: ${e.message}`),
      ),
    )
    if (!installed) {
      return yield* Effect.fail(
        new Error(
          `the CustomResourceDefinition ${crd} is not installed in ${resolved.kubeconfig.getCurrentCluster()?.server ?? "the cluster"}: install it with kubectl apply -k config/crd`,
        ),
      )
    }
  })

/**
 * The webhook server (conversion of Clusters between v1beta1 and v1beta2), as upstream's manager
 * serves it on every replica, leader or not, when the serving certificate is in --webhook-cert-dir.
 */
const serveConversionWebhooks = (
  client: KubeClientShape,
  options: ManagerOptions,
): Effect.Effect<void, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const webhookOptions = {
      port: options.webhookPort ?? UpstreamManagerDefaults.webhookPort,
      certDir: options.webhookCertDir ?? UpstreamManagerDefaults.webhookCertDir,
      certName: options.webhookCertName ?? UpstreamManagerDefaults.webhookCertName,
      keyName: options.webhookKeyName ?? UpstreamManagerDefaults.webhookKeyName,
      tls: {
        minVersion: options.tlsMinVersion ?? "TLSv1.2",
        ciphers: options.tlsCipherSuites ?? [],
        curves: options.tlsCurvePreferences ?? [],
      },
    }
    const certPath = certificatePaths(webhookOptions)
    if (!existsSync(certPath.cert) || !existsSync(certPath.key)) {
      return yield* Effect.logInfo(
        "no webhook certificate: the webhook server (Cluster conversion) is not started",
      ).pipe(Effect.annotateLogs({ certificate: certPath.cert }))
    }
    const crds = yield* makeReflector<CustomResourceDefinition>(client, {
      resource: Resources.customResourceDefinitions,
      name: "webhook-crds",
    })
    const resolve = (apiGroup: string, kind: string) => {
      const resource = contractResource(crds.store.list(), { apiGroup, kind })
      return Result.isSuccess(resource) ? resource.success.version : undefined
    }
    const layer = yield* Effect.try({
      try: () =>
        serveWebhooks(webhookOptions, resolve, { clusterTopology: options.featureGates.clusterTopology }),
      catch: (e) => new Error(`webhook server: ${(e as Error).message}`),
    })
    yield* Layer.build(layer).pipe(Effect.mapError((e) => new Error(`webhook server: ${String(e)}`)))
    yield* Effect.logInfo("serving webhooks").pipe(
      Effect.annotateLogs({ port: webhookOptions.port, certificate: certPath.cert }),
    )
  })

/** Runs the manager until interrupted. */
export const runManager = (
  options: ManagerOptions,
  resolved: ResolvedKubeconfig,
  extra: ReadonlyArray<Runnable> = [],
): Effect.Effect<void, Error, Scope.Scope> =>
  Effect.gen(function* () {
    const metricsAddress = parseBindAddress("metrics-bind-address", options.metricsBindAddress)
    const healthAddress = parseBindAddress("health-probe-bind-address", options.healthProbeBindAddress)
    const client = yield* makeRestClient(resolved.kubeconfig, {
      qps: options.kubeApiQps,
      burst: options.kubeApiBurst,
      userAgent: "krtt-manager",
    })
    yield* Effect.logInfo("starting the manager").pipe(
      Effect.annotateLogs({
        kubeconfig: resolved.source,
        server: resolved.kubeconfig.getCurrentCluster()?.server ?? "",
      }),
    )
    yield* requireClusterCrd(client, resolved)
    for (const notice of options.notices ?? []) yield* Effect.logWarning(notice)
    // Objects of the Cluster API kinds krtt does not reconcile need upstream's manager: one
    // warning that counts them, forked so that readiness does not wait for the counting.
    yield* Effect.forkScoped(warnUnreconciled(client, { namespace: options.watchNamespace }))
    const ready = yield* Ref.make<Effect.Effect<boolean>>(Effect.succeed(false))
    yield* serveMetricsAndHealth(
      client,
      {
        metricsAddress,
        healthAddress,
        metricsSecure: options.metricsSecure,
        tlsMinVersion: options.tlsMinVersion,
        tlsCipherSuites: options.tlsCipherSuites,
        tlsCurvePreferences: options.tlsCurvePreferences,
      },
      Effect.flatten(Ref.get(ready)),
    )
    yield* serveConversionWebhooks(client, options)

    const lost = yield* lead(client, options)

    const operator = yield* makeOperator(client, operatorOptions(options))
    const ctx: ManagerContext = { options, client, clusters: operator.clusters }
    const extraStarts = yield* Effect.forEach(extra, (r) => r.make(ctx))
    // Each start forks its workers into this scope; they stop when it closes (SIGTERM).
    yield* operator.start
    yield* Effect.forEach(extraStarts, (start) => start, { discard: true })
    yield* Ref.set(ready, operator.clusters.hasSynced)
    yield* Effect.logInfo("manager started").pipe(
      Effect.annotateLogs({
        controllers: [...operator.controllers, ...extra.map((r) => r.name)].join(","),
      }),
    )
    yield* lost
  })
