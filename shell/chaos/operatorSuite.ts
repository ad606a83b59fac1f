/**
 * The operator suite: the operator of `krtt run` (the ClusterCache, its controller and the Cluster
 * controller, assembled by `shell/manager/operator.ts` exactly as `krtt run` assembles them) in the
 * scenarios of e2e/operator (`scenarios.ts`), on the run's fault-injecting client, with seed 001's
 * deletion-order invariants (`invariants.ts`) and the foreign finalizers' (`foreignFinalizer.ts`).
 *
 * What differs from `krtt run` is data: both controllers at 10 reconciles at a time, the upstream
 * defaults of the Cluster controller's numbers and feature gates, the chaos sync period, and
 * workload clusters reached through the in-memory API servers of the run; and additions: a user
 * of the ClusterCache's `watch()` (`workloadWatch.ts`), a reader through its accessors
 * (`cacheAccessors.ts`), and a user of the work queue and the controller (`queueDrill.ts`).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import { ClusterControllerDefaults } from "../../core/cluster/index.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { ClusterResource, type ConnectionFactory } from "../clustercache/service.ts"
import type { KubeObject } from "../kube/resource.ts"
import { make as makeOperator, type OperatorController } from "../manager/operator.ts"
import { readThroughAccessors } from "./cacheAccessors.ts"
import { GeneratedPrefix } from "./clusterCa.ts"
import { watchForeignFinalizers } from "./foreignFinalizer.ts"
import { watchInvariants } from "./invariants.ts"
import { ChaosDefaults, type ControllerName } from "./perturbations.ts"
import { runQueueDrill } from "./queueDrill.ts"
import { serversOfSecrets } from "./resources.ts"
import { installProviders, NAMESPACE, OperatorScenarios } from "./scenarios.ts"
import type { Suite, SuiteContext } from "./suite.ts"
import { thirdPartyOn } from "./thirdParty.ts"
import { watchWorkloads } from "./workloadWatch.ts"

const isOperatorController = (c: ControllerName): c is OperatorController =>
  c === "clustercache" || c === "cluster"

/** The operator as `krtt run` wires it, in the scope; returns when its controllers have started. */
const startOperator = (ctx: SuiteContext) =>
  Effect.gen(function* () {
    const { client, mutant } = ctx
    const connectionFactory: ConnectionFactory = (kc) =>
      makeMemoryClient(ctx.workload(kc.getCurrentCluster()?.server ?? ""), {}, ctx.clientName)
    const operator = yield* makeOperator(client, {
      connectionFactory,
      clusterCacheConcurrency: 10,
      clusterConcurrency: 10,
      clusterConfig: ClusterControllerDefaults,
      syncPeriod: ChaosDefaults.syncPeriod,
      controllers: ctx.controllers.filter(isOperatorController),
    })
    const extra = mutant?.extra?.(client)
    yield* operator.start
    yield* watchWorkloads(operator.cache)
    yield* readThroughAccessors(operator.cache, ctx.violation)
    yield* Effect.forkScoped(runQueueDrill(ctx.violation))
    if (extra !== undefined) yield* extra
  })

export const OperatorSuite: Suite = {
  name: "operator",
  controllers: ["clustercache", "cluster"],
  scenarios: OperatorScenarios,
  install: installProviders,
  start: (ctx) => Effect.orDie(startOperator(ctx)),
  invariants: (mgmt, _workloads, violations) => {
    const seed = watchInvariants(mgmt, violations)
    const foreign = watchForeignFinalizers(mgmt, violations)
    return () => {
      seed()
      foreign()
    }
  },
  thirdParty: thirdPartyOn(ClusterResource, { fallbackNamespace: NAMESPACE, condition: true, hold: true }),
  // The generated cluster's CA and the kubeconfig signed by it hold random keys.
  maskObject: (resource, o) =>
    resource === "secrets" && (o.metadata.name ?? "").startsWith(GeneratedPrefix)
      ? ({ ...o, data: "<random keys>" } as KubeObject)
      : o,
  // The ClusterCache's accessors: one per Cluster, reaching the server its kubeconfig Secret names.
  engagedServers: (mgmt) => {
    const clusters = new Set(mgmt.objects(ClusterResource).map((c) => `${c.metadata.name}-kubeconfig`))
    return serversOfSecrets(mgmt, NAMESPACE, "value", (s) => clusters.has(s.metadata.name ?? ""))
  },
  snapshotWorkloads: false,
}
