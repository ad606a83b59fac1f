/**
 * An add-on controller on a Cluster API fleet, built on the ClusterCache (docs/clustercache.md).
 * For every workload Cluster of the management cluster it keeps the ConfigMap
 * `kube-system/fleet-addon` in that cluster: it reads through the ClusterCache's cached client
 * (`getClient`: reads from the cluster's cache, writes to its API server), watches the add-on's
 * ConfigMaps in each workload cluster (`watch`, which returns at once), and is told when a
 * cluster connects (`clusterSource`).
 *
 * The story runs on in-memory API servers (one management cluster, two workload clusters): the
 * add-on is installed in both; someone deletes it in `beta` and the watch puts it back; `alpha`'s
 * kubeconfig Secret is rotated (new token, same server) and the ClusterCache takes the new
 * credentials without reconnecting, so the informers and watches go on.
 *
 * Run it: `node examples/clustercache/addon-controller.ts`
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import {
  type ClusterCacheShape,
  type ClusterKey,
  ClusterResource,
  type ConnectionFactory,
  makeClusterCache,
  makeClusterCacheController,
} from "krtt/clustercache"
import { KubeClient, type KubeClientShape, makeReflector, Resources } from "krtt/kube"
import { FakeApiServer, makeMemoryClient } from "krtt/testing"

const configMaps = Resources.configMaps
const ADDON = { namespace: "kube-system", name: "fleet-addon" }
const ADDON_DATA = { version: "1.2.0" }

/** The add-on's reconcile of one workload cluster: the ConfigMap exists with the add-on's data. */
export const reconcileAddon = (
  cc: ClusterCacheShape,
  cluster: ClusterKey,
  enqueue: (c: ClusterKey) => Effect.Effect<void>,
) =>
  Effect.gen(function* () {
    // Once per connection (later calls change nothing): events of the add-on's ConfigMap
    // reconcile its cluster again. Returns at once; the informer syncs on its own fiber.
    yield* cc.watch(cluster, {
      name: "addon-configmaps",
      resource: configMaps,
      namespace: ADDON.namespace,
      onEvent: (e) => (e.object.metadata.name === ADDON.name ? enqueue(cluster) : Effect.void),
    })
    const client = yield* cc.getClient(cluster)
    const current = yield* client
      .get(configMaps, ADDON)
      .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
    if (current === undefined) {
      yield* client
        .create(configMaps, { apiVersion: "v1", kind: "ConfigMap", metadata: ADDON, data: ADDON_DATA })
        .pipe(Effect.catchTag("AlreadyExists", () => Effect.void))
      return "installed"
    }
    if (JSON.stringify(current.data) === JSON.stringify(ADDON_DATA)) return "up to date"
    yield* client.update(configMaps, { ...current, data: ADDON_DATA })
    return "updated"
  })

const kubeconfig = (server: string, token: string) =>
  Buffer.from(
    `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}"}}]
users: [{name: u, user: {token: "${token}"}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`,
  ).toString("base64")

/** Waits until `check` holds (60 s at most, for a loaded machine: a story must not hang). */
const until = (what: string, check: Effect.Effect<boolean>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 3_000; i++) {
      if (yield* check) return
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`never: ${what}`))
  })

/** The scripted story on in-memory API servers; returns the log. */
export const story = Effect.scoped(
  Effect.gen(function* () {
    const lines: Array<string> = []
    const log = (line: string) => Effect.sync(() => void lines.push(line))
    const management = yield* FakeApiServer.make()
    management.register(ClusterResource)
    const hub = yield* makeMemoryClient(management)
    const fleet = new Map<string, FakeApiServer>()
    const connects = new Map<string, number>()
    for (const name of ["alpha", "beta"]) {
      const server = `https://${name}.fleet.example`
      fleet.set(server, yield* FakeApiServer.make())
      yield* hub.create(ClusterResource, {
        apiVersion: "cluster.x-k8s.io/v1beta2",
        kind: "Cluster",
        metadata: { namespace: "fleet", name },
      })
      yield* hub.patchStatus(
        ClusterResource,
        { namespace: "fleet", name },
        {
          type: "merge",
          body: { status: { initialization: { infrastructureProvisioned: true } } },
        },
      )
      yield* hub.create(Resources.secrets, {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { namespace: "fleet", name: `${name}-kubeconfig` },
        data: { value: kubeconfig(server, `${name}-token-1`) },
      })
    }
    // Each kubeconfig names an in-memory workload server; a real fleet uses the default factory.
    const connectionFactory: ConnectionFactory = (kc) => {
      const server = kc.getCurrentCluster()?.server ?? ""
      connects.set(server, (connects.get(server) ?? 0) + 1)
      const fake = fleet.get(server)
      return fake === undefined ? Effect.die(new Error(`no cluster at ${server}`)) : makeMemoryClient(fake)
    }
    const workload = (name: string): KubeClientShape =>
      (fleet.get(`https://${name}.fleet.example`) as FakeApiServer).client()

    // The ClusterCache and its controller, on the management cluster's Clusters and Secrets.
    const clusters = yield* makeReflector(hub, { resource: ClusterResource, name: "clusters" })
    const secrets = yield* makeReflector(hub, { resource: Resources.secrets, name: "secrets" })
    const cc = yield* makeClusterCache({
      connectionFactory,
      clusters: clusters.store,
      secrets: secrets.store,
    }).pipe(Effect.provideService(KubeClient, hub))
    const connected = yield* cc.clusterSource("fleet-addon")
    const controller = yield* makeClusterCacheController(cc, clusters, { concurrency: 10, secrets })

    // The add-on's work queue: a cluster that connects, or whose add-on changed, is reconciled.
    const queue = yield* Queue.unbounded<ClusterKey>()
    const enqueue = (c: ClusterKey) => Effect.asVoid(Queue.offer(queue, c))
    yield* Effect.forkScoped(Stream.runForEach(connected, enqueue))
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function* () {
          const cluster = yield* Queue.take(queue)
          const outcome = yield* reconcileAddon(cc, cluster, enqueue).pipe(
            Effect.catchTag("ClusterNotConnectedError", () =>
              Effect.succeed("not connected: waiting for the connect event"),
            ),
            Effect.catch((e) => Effect.succeed(`failed: ${e._tag}`)),
          )
          if (outcome !== "up to date") yield* log(`${cluster.name}: ${outcome}`)
        }),
      ),
    )
    yield* controller.start

    const addonIn = (name: string) =>
      workload(name)
        .get(configMaps, ADDON)
        .pipe(
          Effect.as(true),
          Effect.catch(() => Effect.succeed(false)),
        )
    yield* until("the add-on in alpha", addonIn("alpha"))
    yield* until("the add-on in beta", addonIn("beta"))
    yield* log("-- someone deletes the add-on in beta")
    yield* workload("beta").delete(configMaps, ADDON)
    yield* until("the add-on back in beta", addonIn("beta"))

    yield* log("-- alpha's kubeconfig Secret is rotated: new token, same server")
    const alpha = { namespace: "fleet", name: "alpha" }
    const clientBefore = yield* cc.getClient(alpha)
    yield* hub.patch(
      Resources.secrets,
      { namespace: "fleet", name: "alpha-kubeconfig" },
      {
        type: "merge",
        body: { data: { value: kubeconfig("https://alpha.fleet.example", "alpha-token-2") } },
      },
    )
    yield* until(
      "the new credentials taken",
      Effect.map(
        Effect.sync(() => connects.get("https://alpha.fleet.example") ?? 0),
        (n) => n >= 4,
      ),
    )
    const clientAfter = yield* cc.getClient(alpha)
    yield* log(`alpha: ${clientAfter === clientBefore ? "same connection, informers kept" : "reconnected"}`)
    yield* workload("alpha").delete(configMaps, ADDON)
    yield* until("the add-on back in alpha", addonIn("alpha"))
    const accessors = yield* cc.accessors()
    yield* log(
      `connected: ${accessors
        .filter((a) => a.connected)
        .map((a) => a.cluster.name)
        .sort()
        .join(", ")}`,
    )
    return lines
  }),
)

if (import.meta.url === `file://${process.argv[1]}`)
  Effect.runPromise(story).then((lines) => {
    for (const line of lines) console.log(line)
  })
