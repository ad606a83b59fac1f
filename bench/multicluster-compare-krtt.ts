/**
 * krtt's side of `bench/multicluster-compare.ts`: the uniform controller that
 * multicluster-runtime's kubeconfig example runs, written with krtt's public entry points only
 * (`krtt/multicluster`, `krtt/kube`), as a program of its own so that the bench measures it as a
 * process, the same way as the Go binary.
 *
 * What it does, as upstream's example: clusters come from the hub's kubeconfig Secrets
 * (`--provider kubeconfig-secrets --provider-namespace NS`: label
 * `sigs.k8s.io/multicluster-runtime-kubeconfig=true`, key `kubeconfig`, one cluster per Secret,
 * named by it); one controller, `multicluster-configmaps`, watches every ConfigMap of every
 * engaged cluster; its reconcile logs "Reconciling ConfigMap", reads the ConfigMap from that
 * cluster's cache (not found: done) and logs "ConfigMap found" with its namespace, name and
 * cluster. Logs are zap's JSON on stderr (`programMain`); the bench reads "cluster engaged" and
 * "ConfigMap found" from them.
 *
 * Run with the sources: `node --conditions=krtt-source bench/multicluster-compare-krtt.ts
 * --kubeconfig hub.kubeconfig --provider kubeconfig-secrets --provider-namespace default`.
 *
 * @module
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import { Resources } from "krtt/kube"
import {
  controllerManagedBy,
  done,
  enqueueRequestForObject,
  type MultiClusterManager,
  programMain,
  type Request,
} from "krtt/multicluster"

/** The reconcile: log, read the ConfigMap from its cluster's cache, log what was found. */
const reconcile = (manager: MultiClusterManager) => (request: Request) =>
  Effect.gen(function* () {
    yield* Effect.logInfo("Reconciling ConfigMap").pipe(Effect.annotateLogs({ cluster: request.cluster }))
    const cluster = yield* manager.getCluster(request.cluster)
    const found = yield* cluster.cache
      .get(Resources.configMaps, request)
      .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
    if (found === undefined) return done()
    yield* Effect.logInfo("ConfigMap found").pipe(
      Effect.annotateLogs({
        cluster: request.cluster,
        namespace: found.metadata.namespace,
        name: found.metadata.name,
      }),
    )
    return done()
  })

if (import.meta.main)
  NodeRuntime.runMain(
    programMain("multicluster-configmaps", ({ manager }) =>
      Effect.asVoid(
        controllerManagedBy(manager)
          .named("multicluster-configmaps")
          .watches(Resources.configMaps, enqueueRequestForObject())
          .complete(reconcile(manager)),
      ),
    ),
  )
