/**
 * The multi-cluster engagement suite: the multi-cluster manager (shell/multicluster, seed 003)
 * with the kubeconfig-secrets provider over in-memory workload servers, and a small uniform
 * controller as in examples/multicluster/uniform.ts (it stamps every labelled ConfigMap with the
 * name of the cluster it was reconciled in) and, added once the manager runs, a census of them
 * per namespace through a field index (`census.ts`), in the situations of e2e/multicluster/providers:
 * clusters engaged and disengaged live (a kubeconfig Secret deleted, a kubeconfig rotated to
 * another server, a workload API server outage past the failure threshold).
 *
 * Every engagement is an epoch (recorded by a gate in front of the manager: `ManagerOptions.gate`);
 * it ends when the provider closes its engage scope or disengages it. Safety (seed 003, Proposal:
 * "the engage scope cancelled when the cluster leaves": never a disengaged cluster
 * reconciled), on every reconcile:
 * - the request carries a cluster name (never the hub's `""` here: the controller watches only
 *   the provider's clusters);
 * - the cluster the manager hands the reconcile is of an epoch still engaged, under that name.
 *
 * The operator's clients of the workload clusters carry the run's perturbations (crash after a
 * write, dropped and expired watches, transient errors, a third-party writer before a write).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import type { FakeApiServer } from "../apiserver/server.ts"
import { informerCacheFactory } from "../cache/informerCache.ts"
import type { CacheFactory } from "../cache/types.ts"
import { done } from "../controller/result.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import {
  type Aware,
  type BuilderError,
  type Cluster,
  controllerManagedBy,
  enqueueRequestForObject,
  type MultiClusterManager,
  makeCluster,
  makeManager,
} from "../multicluster/index.ts"
import { makeKubeconfigSecretsProvider } from "../multicluster/providers/kubeconfigSecrets.ts"
import type { Request } from "../workqueue/request.ts"
import { addCensus } from "./census.ts"
import { startHubCensus } from "./hubCensus.ts"
import { startHubSecrets } from "./hubSecrets.ts"
import { hubSecretWatchesBack, hubSecretWatchesRefused, hubWatchesEnd, hubWatchesFail } from "./hubSteps.ts"
import { ChaosDefaults } from "./perturbations.ts"
import { serversOfSecrets } from "./resources.ts"
import { kubeconfig, patchStep, type Scenario, type Stage, type Step } from "./scenarios.ts"
import type { Suite, SuiteContext } from "./suite.ts"
import { thirdPartyOn } from "./thirdParty.ts"
import { addLateWitness, witness } from "./witness.ts"

export const FLEET = "fleet"
const WORKLOAD_NS = "default"
export const STAMP_LABEL = "krtt.dev/stamp"
export const STAMPED_BY = "krtt.dev/stamped-by"
const SECRET_LABEL = "sigs.k8s.io/multicluster-runtime-kubeconfig"

export const urlOf = (server: string) => `https://${server}.fleet.example:6443`

/** Creates the labelled Secret of cluster `name` in the fleet namespace, with `data`. */
const createFleetSecret = (mgmt: FakeApiServer, name: string, data: Readonly<Record<string, string>>) =>
  Effect.asVoid(
    mgmt.client().create(Resources.secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { namespace: FLEET, name, labels: { [SECRET_LABEL]: "true" } },
      data,
    }),
  )

/** A kubeconfig Secret naming cluster `name`, reached at workload server `server`. */
export const addCluster = (name: string, server: string, settleMillis = 20_000): Step => ({
  name: `kubeconfig Secret ${name} (server ${server}) added`,
  settleMillis,
  run: ({ mgmt }) =>
    createFleetSecret(mgmt, name, { kubeconfig: kubeconfig(urlOf(server), `${name}-token`) }),
})

/** A labelled Secret without a kubeconfig: the provider cannot build its cluster. */
export const addBrokenCluster = (name: string): Step => ({
  name: `kubeconfig Secret ${name} added without a kubeconfig`,
  settleMillis: 20_000,
  run: ({ mgmt }) => createFleetSecret(mgmt, name, {}),
})

export const removeCluster = (name: string): Step => ({
  name: `kubeconfig Secret ${name} deleted`,
  settleMillis: 20_000,
  run: ({ mgmt }) => Effect.asVoid(mgmt.client().delete(Resources.secrets, { namespace: FLEET, name })),
})

export const rotateCluster = (name: string, server: string): Step =>
  patchStep(
    `kubeconfig of ${name} rotated to server ${server}`,
    30_000,
    Resources.secrets,
    { namespace: FLEET, name },
    {
      data: { kubeconfig: kubeconfig(urlOf(server), `${name}-token-2`) },
    },
  )

export const outage = (server: string, up: boolean, settleMillis: number): Step => ({
  name: up ? `workload API server ${server} back` : `workload API server ${server} down`,
  settleMillis,
  run: ({ workload }: Stage) =>
    Effect.sync(() => {
      const w = workload(urlOf(server))
      if (up) w.start()
      else w.stop()
    }),
})

const stampable = (name: string): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { namespace: WORKLOAD_NS, name, labels: { [STAMP_LABEL]: "true" } },
  data: {},
})

/** ConfigMaps to stamp in the workload servers (the users' objects there). */
const seed = (
  objects: ReadonlyArray<readonly [server: string, name: string]>,
  settleMillis = 1_000,
): Step => ({
  name: `ConfigMaps ${objects.map(([s, n]) => `${s}/${n}`).join(", ")} in the workload clusters`,
  settleMillis,
  run: ({ workload }) =>
    Effect.forEach(
      objects,
      ([s, n]) => workload(urlOf(s)).client().create(Resources.configMaps, stampable(n)),
      {
        discard: true,
      },
    ),
})

const MulticlusterScenarios: ReadonlyArray<Scenario> = [
  {
    name: "mc-engage",
    description:
      "two clusters engaged live, one added later, one removed live, one added without a kubeconfig and given one",
    source:
      "e2e/multicluster/providers.test.ts: each provider engages clusters added live and disengages clusters removed live",
    steps: [
      seed([
        ["east", "web"],
        ["west", "api"],
        ["north", "db"],
        ["south", "db"],
      ]),
      addCluster("east", "east"),
      addCluster("west", "west"),
      seed([["east", "late"]], 10_000),
      removeCluster("west"),
      addCluster("north", "north"),
      addBrokenCluster("south"),
      rotateCluster("south", "south"),
    ],
  },
  {
    name: "mc-rotate",
    description:
      "a cluster's kubeconfig rotated to another server: the old engagement ends, the new one is reconciled",
    source:
      "e2e/multicluster/providers.test.ts: rotated credentials re-engage with the new ones, without a restart",
    steps: [
      seed([
        ["blue", "web"],
        ["green", "web"],
      ]),
      addCluster("app", "blue"),
      rotateCluster("app", "green"),
      seed([["green", "after"]], 15_000),
    ],
  },
  {
    name: "mc-outage",
    description:
      "a workload API server down past the probe threshold (disengaged), then back (engaged again)",
    source:
      "e2e/multicluster/providers.test.ts: a cluster whose probes fail is disengaged; once reachable, engaged again",
    steps: [
      seed([
        ["solo", "web"],
        ["other", "api"],
      ]),
      addCluster("solo", "solo"),
      addCluster("other", "other"),
      outage("solo", false, 80_000),
      seed([["other", "meanwhile"]], 5_000),
      outage("solo", true, 60_000),
      seed([["solo", "after"]], 15_000),
    ],
  },
  {
    name: "mc-hub-watches",
    description:
      "the hub's watches end, break with an ERROR frame and are refused while a cluster's Secret is deleted; a kubeconfig removed in place; access to the Secrets revoked",
    source:
      "e2e/multicluster/providers.test.ts: the provider follows its Secrets through hub API server restarts and compactions",
    steps: [
      seed([
        ["east", "web"],
        ["west", "api"],
        ["north", "db"],
      ]),
      addCluster("east", "east"),
      addCluster("west", "west"),
      addBrokenCluster("south"),
      hubWatchesEnd(1_000),
      hubWatchesEnd(50_000),
      hubSecretWatchesRefused("Unreachable", 20_000, { namespace: FLEET, name: "east" }),
      hubSecretWatchesBack(20_000),
      patchStep(
        "kubeconfig of west removed",
        20_000,
        Resources.secrets,
        { namespace: FLEET, name: "west" },
        {
          data: { kubeconfig: null },
        },
      ),
      hubWatchesFail(20_000),
      removeCluster("west"),
      hubSecretWatchesRefused("Gone", 10_000),
      hubSecretWatchesBack(1_000),
      addCluster("north", "north"),
      hubSecretWatchesRefused("Forbidden", 10_000),
      // Long enough for a bookmark to reach every watch (their backoff starts over).
      hubSecretWatchesBack(70_000),
    ],
  },
]

/** One engagement of a cluster. */
interface Epoch {
  readonly n: number
  readonly name: string
  open: boolean
}

/**
 * A gate in front of the manager that numbers the engagements and notes when each ends. With
 * `leak` (the `engage-scope-leak` variant), the manager is engaged in a scope forked from it,
 * which the cluster's leaving never closes.
 */
const epochGate =
  (epochs: WeakMap<Cluster, Epoch>, counter: { n: number }, leak: Scope.Scope | undefined) =>
  (aware: Aware) =>
    Effect.succeed<Aware>({
      engage: (cluster, scope) =>
        Effect.gen(function* () {
          const epoch: Epoch = { n: ++counter.n, name: cluster.name, open: true }
          epochs.set(cluster, epoch)
          // Added before the manager's own finalizer, so it runs after it (finalizers run in reverse).
          yield* Scope.addFinalizer(
            scope,
            Effect.sync(() => {
              epoch.open = false
            }),
          )
          yield* aware.engage(cluster, leak === undefined ? scope : yield* Scope.fork(leak))
        }),
      disengage: (cluster) =>
        Effect.andThen(
          aware.disengage(cluster),
          Effect.sync(() => {
            const epoch = epochs.get(cluster)
            if (epoch !== undefined) epoch.open = false
          }),
        ),
    })

/**
 * The stamp reconciler: the cluster from the manager (`remember-clusters`, the broken variant,
 * keeps the first one it got per name and never asks again), checked against its epoch, then the
 * ConfigMap stamped with the cluster's name.
 */
const reconcile = (
  manager: MultiClusterManager,
  epochs: WeakMap<Cluster, Epoch>,
  ctx: SuiteContext,
  remembered: Map<string, Cluster> | undefined,
) => {
  /** Each violation once per run (a retried reconcile would repeat it). */
  const seen = new Set<string>()
  const report = (message: string) => {
    if (seen.has(message)) return
    seen.add(message)
    ctx.violation(message)
  }
  return (request: Request) =>
    Effect.gen(function* () {
      if (request.cluster === "") {
        report(`a request without a cluster name: ${request.namespace}/${request.name}`)
        return done()
      }
      const known = remembered?.get(request.cluster)
      const cluster = known ?? (yield* manager.getCluster(request.cluster))
      remembered?.set(request.cluster, cluster)
      const epoch = epochs.get(cluster)
      if (epoch === undefined || !epoch.open || epoch.name !== request.cluster)
        report(
          `cluster ${request.cluster} reconciled (${request.namespace}/${request.name}) on engagement ${epoch === undefined ? "(unknown)" : `${epoch.n} of ${epoch.name}`} after it was disengaged`,
        )
      const object = yield* cluster.cache
        .get(Resources.configMaps, request)
        .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
      if (object === undefined || object.metadata.labels?.[STAMP_LABEL] !== "true") return done()
      if (object.metadata.annotations?.[STAMPED_BY] === cluster.name) return done()
      yield* cluster.client.patch(
        Resources.configMaps,
        request,
        mergePatch({ metadata: { annotations: { [STAMPED_BY]: cluster.name } } }),
      )
      return done()
    })
}

/** The servers of the clusters the provider engages: those its kubeconfig Secrets name now. */
export const fleetServers = (mgmt: FakeApiServer): ReadonlyArray<string> =>
  serversOfSecrets(mgmt, FLEET, "kubeconfig")

/** The engagement machinery of `krtt propagate` and the examples: kubeconfig-secrets provider, manager. */
export const startManager = <A, E>(
  ctx: SuiteContext,
  add: (manager: MultiClusterManager) => Effect.Effect<A, E, Scope.Scope>,
  options: {
    readonly epochs?: WeakMap<Cluster, Epoch> | undefined
    readonly cacheFactory?: CacheFactory | undefined
    /** What is added to the manager once it has started. */
    readonly late?:
      | ((manager: MultiClusterManager) => Effect.Effect<void, BuilderError, Scope.Scope>)
      | undefined
    /** Also run the hub census, a manager without a provider (`hubCensus.ts`), and a plain reflector (`hubSecrets.ts`). */
    readonly hubCensus?: boolean | undefined
  } = {},
) =>
  Effect.gen(function* () {
    // The engage-scope-leak variant: engagements and caches outlive the cluster, in the process's scope.
    const leak = ctx.mutant?.variant === "engage-scope-leak" ? yield* Effect.scope : undefined
    const base = options.cacheFactory ?? informerCacheFactory
    const cacheFactory: CacheFactory =
      leak === undefined
        ? base
        : (client, o) =>
            Effect.map(Scope.provide(base(client, o), leak), (cache) => ({
              ...cache,
              start: Scope.provide(cache.start, leak),
            }))
    const provider = yield* makeKubeconfigSecretsProvider(ctx.client, {
      namespace: FLEET,
      clientFactory: (kc) => ctx.perturbed(ctx.workload(kc.getCurrentCluster()?.server ?? "")),
      cacheFactory,
    })
    const counter = { n: 0 }
    const manager = yield* makeManager({
      hub: yield* makeCluster({ client: ctx.client }),
      provider,
      ...(options.epochs === undefined && leak === undefined
        ? {}
        : { gate: epochGate(options.epochs ?? new WeakMap(), counter, leak) }),
    })
    yield* add(manager)
    yield* manager.start
    if (options.late !== undefined) yield* options.late(manager)
    if (options.hubCensus === true) {
      yield* startHubCensus(ctx.client)
      yield* startHubSecrets(ctx.client, FLEET, ctx.violation)
    }
  })

export const MulticlusterSuite: Suite = {
  name: "multicluster",
  controllers: ["multicluster"],
  scenarios: MulticlusterScenarios,
  install: (mgmt) =>
    Effect.asVoid(
      mgmt
        .client()
        .create(Resources.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: FLEET } }),
    ),
  start: (ctx) =>
    Effect.gen(function* () {
      const epochs = new WeakMap<Cluster, Epoch>()
      const remembered = ctx.mutant?.variant === "remember-clusters" ? new Map<string, Cluster>() : undefined
      yield* startManager(
        ctx,
        (manager) =>
          Effect.andThen(
            manager.add(witness),
            controllerManagedBy(manager)
              .named("chaos-stamp")
              .watches(Resources.configMaps, enqueueRequestForObject(), {
                predicates: [(e) => e.object.metadata.labels?.[STAMP_LABEL] === "true"],
              })
              .complete(reconcile(manager, epochs, ctx, remembered)),
          ),
        {
          epochs,
          late: (manager) => Effect.andThen(addLateWitness(manager), addCensus(manager, STAMP_LABEL)),
          hubCensus: true,
        },
      )
    }).pipe(Effect.catch(() => ctx.exit)),
  invariants: () => () => undefined,
  thirdParty: thirdPartyOn(Resources.configMaps, { condition: false, hold: false }),
  engagedServers: fleetServers,
  fastPoints: ChaosDefaults.fastPointsLater,
  snapshotWorkloads: true,
}
