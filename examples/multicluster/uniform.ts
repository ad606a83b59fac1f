/**
 * A UNIFORM multi-cluster controller (seed 003, Goals 1): the same reconciler on every engaged
 * cluster, reading cluster X and writing cluster X. It stamps every ConfigMap labelled
 * `krtt.dev/stamp=true` with the annotation `krtt.dev/stamped-by: <cluster>`.
 *
 * Run it against a hub whose Secrets (labelled `sigs.k8s.io/multicluster-runtime-kubeconfig:
 * "true"`, key `kubeconfig`) name the clusters:
 *
 *     node examples/multicluster/uniform.ts --kubeconfig hub.kubeconfig \
 *       --provider kubeconfig-secrets --provider-namespace fleet
 *
 * Add `--shard-lease-prefix stamp` to several replicas to split the clusters among them. The
 * `demo` below runs the same controller on in-memory API servers (the examples test runs it).
 *
 * @module
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { type KubeObject, mergePatch, Resources } from "krtt/kube"
import {
  type ClusterNotFound,
  controllerManagedBy,
  done,
  enqueueRequestForObject,
  type MultiClusterController,
  type MultiClusterManager,
  makeCluster,
  makeManager,
  makeMemoryProvider,
  programMain,
  type ReconcileResult,
  type Request,
} from "krtt/multicluster"
import { FakeApiServer, makeMemoryClient } from "krtt/testing"

export const STAMP_LABEL = "krtt.dev/stamp"
export const STAMPED_BY = "krtt.dev/stamped-by"

/**
 * The reconciler: multi-cluster-compatible as the seed describes it, because it takes its client
 * from `manager.getCluster(request.cluster)` instead of a single manager client.
 */
export const reconcileStamp =
  (manager: MultiClusterManager) =>
  (request: Request): Effect.Effect<ReconcileResult, unknown> =>
    Effect.gen(function* () {
      const cluster = yield* manager.getCluster(request.cluster)
      const object = yield* cluster.cache
        .get(Resources.configMaps, request)
        .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
      if (object === undefined) return done() // deleted meanwhile
      if (object.metadata.labels?.[STAMP_LABEL] !== "true") return done()
      if (object.metadata.annotations?.[STAMPED_BY] === cluster.name) return done()
      yield* cluster.client.patch(
        Resources.configMaps,
        request,
        mergePatch({ metadata: { annotations: { [STAMPED_BY]: cluster.name } } }),
      )
      return done()
    })

/** Adds the stamp controller: `Watches` on every engaged cluster, requests in the event's cluster. */
export const addStampController = (
  manager: MultiClusterManager,
): Effect.Effect<MultiClusterController, unknown, Scope.Scope> =>
  controllerManagedBy(manager)
    .named("stamp")
    .watches(Resources.configMaps, enqueueRequestForObject(), {
      predicates: [(e) => e.object.metadata.labels?.[STAMP_LABEL] === "true"],
    })
    .complete(reconcileStamp(manager))

/** Polls (real time) until `check` holds; fails after `timeoutMs`. */
export const waitFor = (what: string, check: Effect.Effect<boolean, unknown>, timeoutMs = 10_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      if (yield* check) return
      yield* Effect.sleep("10 millis")
    }
    return yield* Effect.fail(new Error(`timed out: ${what}`))
  })

const stamp = (name: string, labelled = true): KubeObject => ({
  metadata: { namespace: "default", name, labels: labelled ? { [STAMP_LABEL]: "true" } : {} },
  data: {},
})

/**
 * The controller on in-memory API servers: a hub and clusters `east` and `west`, a ConfigMap
 * added live, `west` removed. Returns what happened, line by line.
 */
export const demo: Effect.Effect<Array<string>, unknown> = Effect.scoped(
  Effect.gen(function* () {
    const log: Array<string> = []
    const hub = yield* makeCluster({ client: yield* makeMemoryClient(yield* FakeApiServer.make()) })
    const provider = yield* makeMemoryProvider({ name: "demo" })
    const east = yield* FakeApiServer.make()
    const west = yield* FakeApiServer.make()
    yield* east.client().create(Resources.configMaps, stamp("web"))
    yield* east.client().create(Resources.configMaps, stamp("plain", false))
    yield* west.client().create(Resources.configMaps, stamp("api"))
    yield* provider.add("east", east)
    yield* provider.add("west", west)
    const manager = yield* makeManager({ hub, provider })
    const controller = yield* addStampController(manager)
    yield* manager.start
    const stampOf = (server: FakeApiServer, name: string) =>
      server
        .client()
        .get(Resources.configMaps, { namespace: "default", name })
        .pipe(
          Effect.map((o) => o.metadata.annotations?.[STAMPED_BY]),
          Effect.catchTag("NotFound", () => Effect.succeed(undefined)),
        )
    yield* waitFor(
      "both clusters stamped",
      Effect.map(
        Effect.all([stampOf(east, "web"), stampOf(west, "api")]),
        ([a, b]) => a === "east" && b === "west",
      ),
    )
    log.push(`east/web stamped by ${yield* stampOf(east, "web")}`)
    log.push(`west/api stamped by ${yield* stampOf(west, "api")}`)
    log.push(`east/plain stamped by ${(yield* stampOf(east, "plain")) ?? "nobody"}`)
    yield* west.client().create(Resources.configMaps, stamp("late"))
    yield* waitFor(
      "late stamped",
      Effect.map(stampOf(west, "late"), (s) => s === "west"),
    )
    log.push(`west/late stamped by ${yield* stampOf(west, "late")}`)
    yield* provider.remove("west")
    yield* waitFor(
      "west disengaged",
      Effect.map(controller.pairs, (ps) => ps.find((p) => p.cluster === "west")?.state === "Absent"),
    )
    const gone = yield* Effect.flip(manager.getCluster("west")) as Effect.Effect<ClusterNotFound>
    log.push(`west removed: ${gone._tag}`)
    yield* west.client().create(Resources.configMaps, stamp("orphan"))
    yield* Effect.sleep("100 millis")
    log.push(`west/orphan stamped by ${(yield* stampOf(west, "orphan")) ?? "nobody"}`)
    return log
  }),
)

if (import.meta.main)
  NodeRuntime.runMain(programMain("uniform", ({ manager }) => Effect.asVoid(addStampController(manager))))
