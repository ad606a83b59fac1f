/**
 * `krtt run`: the operator. Connects to the management cluster, serves metrics and probes,
 * optionally waits to lead, then runs the ClusterCache and the Cluster controller until SIGTERM.
 *
 * Expected flow: resolve the kubeconfig → check the Cluster CRD → (in the background) warn once
 * about objects of Cluster API kinds krtt does not reconcile → start the probe and metrics
 * servers → (leader election) → start the Cluster reflector, the ClusterCache controller and the
 * Cluster controller → `/readyz` turns ready once the reflectors have synced → on SIGTERM stop
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
import type * as Scope from "effect/Scope"
import { clusterControllerConfig } from "../../core/cluster/config.ts"
import { ClusterNameLabel } from "../../core/cluster/contract.ts"
import { clusterCacheConfig } from "../../core/clustercache/index.ts"
import { resolveContract } from "../cluster/contract.ts"
import { makeClusterController } from "../cluster/controller.ts"
import { makeClusterCacheController } from "../clustercache/controller.ts"
import { ClusterResource, make as makeClusterCache } from "../clustercache/service.ts"
import { KubeClient, type KubeClientShape } from "../kube/client.ts"
import type { CustomResourceDefinition } from "../kube/discovery.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { makeRestClient } from "../kube/restClient.ts"
import { make as makeReflector, type Reflector } from "../reflector/reflector.ts"
import { certificatePaths, serveWebhooks } from "../webhook/server.ts"
import { parseBindAddress } from "./http.ts"
import type { ResolvedKubeconfig } from "./kubeconfig.ts"
import { type ManagerOptions, UpstreamManagerDefaults, WatchFilterLabel } from "./options.ts"
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
    // Without the Cluster CRD nothing can work: say so and how to fix it, rather than retrying.
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

    // The webhook server (conversion of Clusters between v1beta1 and v1beta2), as upstream's
    // manager serves it on every replica, leader or not, when the serving certificate is in
    // --webhook-cert-dir.
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
    if (existsSync(certPath.cert) && existsSync(certPath.key)) {
      const crds = yield* makeReflector<CustomResourceDefinition>(client, {
        resource: Resources.customResourceDefinitions,
        name: "webhook-crds",
      })
      const resolve = (apiGroup: string, kind: string) => {
        const r = resolveContract(crds.store.list(), { apiGroup, kind })
        return "error" in r ? undefined : r.version
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
    } else {
      yield* Effect.logInfo(
        "no webhook certificate: the webhook server (Cluster conversion) is not started",
      ).pipe(Effect.annotateLogs({ certificate: certPath.cert }))
    }

    const lost = yield* lead(client, options)

    // --namespace and --watch-filter narrow what the manager sees, as upstream's cache options do.
    const clusters = yield* makeReflector(client, {
      resource: ClusterResource,
      name: "clusters",
      namespace: options.watchNamespace,
      labelSelector:
        options.watchFilter === undefined ? undefined : `${WatchFilterLabel}=${options.watchFilter}`,
    })
    // The Clusters' Secrets (kubeconfig, CA), label-selected as upstream's secret cache: read
    // without a request per reconcile, and a rotated kubeconfig is noticed from its events.
    const secrets = yield* makeReflector(client, {
      resource: Resources.secrets,
      name: "secrets",
      namespace: options.watchNamespace,
      labelSelector: ClusterNameLabel,
    })
    yield* secrets.waitForSync
    const config = clusterCacheConfig({
      client: {
        qps: options.clusterCacheClientQps,
        burst: options.clusterCacheClientBurst,
        timeout: options.clusterCacheClientTimeout,
        userAgent: "krtt-clustercache",
      },
    })
    const cache = yield* makeClusterCache({ config, clusters: clusters.store, secrets: secrets.store }).pipe(
      Effect.provideService(KubeClient, client),
    )
    const ccController = yield* makeClusterCacheController(cache, clusters, {
      concurrency: options.clusterCacheConcurrency,
      secrets,
    })
    const clusterController = yield* makeClusterController(
      { client, clusters, cache },
      {
        concurrency: options.clusterConcurrency,
        featureGates: options.featureGates,
        config: clusterControllerConfig(
          options.remoteConnectionGracePeriod === undefined
            ? {}
            : { remoteConnectionGracePeriod: options.remoteConnectionGracePeriod },
        ),
        syncPeriod: options.syncPeriod,
        secrets: secrets.store,
      },
    )
    const ctx: ManagerContext = { options, client, clusters }
    const starts = [
      ccController.start,
      clusterController.start,
      ...(yield* Effect.forEach(extra, (r) => r.make(ctx))),
    ]
    // Each start forks its workers into this scope; they stop when it closes (SIGTERM).
    yield* Effect.forEach(starts, (start) => start, { discard: true })
    yield* Ref.set(ready, clusters.hasSynced)
    yield* Effect.logInfo("manager started").pipe(
      Effect.annotateLogs({
        controllers: ["clustercache", "cluster", ...extra.map((r) => r.name)].join(","),
      }),
    )
    yield* lost
  })
