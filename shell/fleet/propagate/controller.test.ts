import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import {
  PropagatedFromLabel,
  PropagatedToAnnotation,
  PropagateFinalizer,
} from "../../../core/propagate/index.ts"
import { makeMemoryClient } from "../../apiserver/memoryClient.ts"
import { FakeApiServer } from "../../apiserver/server.ts"
import { mergePatch } from "../../kube/patch.ts"
import { type KubeObject, type ResourceRef, Resources } from "../../kube/resource.ts"
import { makeCluster, makeManager, makeMemoryProvider } from "../../multicluster/index.ts"
import { makeNamespacesProvider } from "../../multicluster/providers/index.ts"
import { scopedCacheFactory } from "../../scopedcache/index.ts"
import { addToManager } from "./controller.ts"

/** Polls (real time) until `check` holds; fails naming `what` after `ms`. */
const waitFor = (what: string, check: Effect.Effect<boolean, unknown>, ms = 15_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + ms
    while (Date.now() < deadline) {
      if (yield* check) return
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.fail(new Error(`timed out: ${what}`))
  })

type Obj = KubeObject & { readonly data?: Record<string, string>; readonly type?: string }
const get = (
  server: FakeApiServer,
  resource: ResourceRef = Resources.configMaps,
  namespace = "team-a",
  name = "settings",
): Effect.Effect<Obj | undefined, unknown> =>
  server
    .client()
    .get<Obj>(resource, { namespace, name })
    .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))

const source = (extra: Partial<KubeObject["metadata"]> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: {
    namespace: "team-a",
    name: "settings",
    labels: { "krtt.io/propagate": "true", app: "web" },
    annotations: { note: "kept" },
    ...extra,
  },
  data: { color: "blue" },
})

const fleet = (names: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const hubServer = yield* FakeApiServer.make()
    const hubClient = yield* makeMemoryClient(hubServer)
    yield* hubServer.client().create(Resources.namespaces, { metadata: { name: "team-a" } })
    yield* hubServer.client().create(Resources.namespaces, { metadata: { name: "krtt-system" } })
    const provider = yield* makeMemoryProvider({ name: "test", cacheFactory: scopedCacheFactory })
    const servers = new Map<string, FakeApiServer>()
    for (const n of names) {
      const s = yield* FakeApiServer.make()
      servers.set(n, s)
      yield* provider.add(n, s)
    }
    const manager = yield* makeManager({ hub: yield* makeCluster({ client: hubClient }), provider })
    yield* addToManager(manager, hubClient, {
      pendingNamespace: "krtt-system",
      config: { retryInterval: 100, clusterPollInterval: 50 },
    })
    yield* manager.start
    return { hubServer, provider, servers, manager }
  })

describe("krtt propagate's controller on in-memory API servers (seed 003, Goals 1)", () => {
  it("propagates to every cluster (namespace created), restores edits and deletions, and removes copies when unlabelled", async () => {
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { hubServer, servers } = yield* fleet(["east", "west"])
          const east = servers.get("east") as FakeApiServer
          const west = servers.get("west") as FakeApiServer
          yield* hubServer.client().create(Resources.configMaps, source())
          yield* waitFor(
            "copies in east and west",
            Effect.map(Effect.all([get(east), get(west)]), (cs) =>
              cs.every((c) => c?.data?.color === "blue"),
            ),
          )
          const copy = (yield* get(east)) as KubeObject
          expect(copy.metadata.labels).toEqual({ app: "web", [PropagatedFromLabel]: "team-a.settings" })
          expect(copy.metadata.annotations).toEqual({ note: "kept" }) // propagated-to is the hub's own
          yield* waitFor(
            "2/2 and the finalizer on the source",
            Effect.map(get(hubServer), (s) => s?.metadata.annotations?.[PropagatedToAnnotation] === "2/2"),
          )
          expect((yield* get(hubServer))?.metadata.finalizers).toContain(PropagateFinalizer)

          // propagate.copy#3: an edit in a cluster is restored.
          yield* east
            .client()
            .patch(
              Resources.configMaps,
              { namespace: "team-a", name: "settings" },
              mergePatch({ data: { color: "red" } }),
            )
          yield* waitFor(
            "edit restored",
            Effect.map(get(east), (c) => c?.data?.color === "blue"),
          )
          // propagate.copy#2: a deletion in a cluster is restored.
          yield* west.client().delete(Resources.configMaps, { namespace: "team-a", name: "settings" })
          yield* waitFor(
            "deletion restored",
            Effect.map(get(west), (c) => c !== undefined),
          )

          // A source edit reaches both.
          yield* hubServer
            .client()
            .patch(
              Resources.configMaps,
              { namespace: "team-a", name: "settings" },
              mergePatch({ data: { color: "green" } }),
            )
          yield* waitFor(
            "edit propagated",
            Effect.map(Effect.all([get(east), get(west)]), (cs) =>
              cs.every((c) => c?.data?.color === "green"),
            ),
          )

          // propagate.copy#5: unlabelled → copies removed everywhere, finalizer and annotation gone.
          yield* hubServer
            .client()
            .patch(
              Resources.configMaps,
              { namespace: "team-a", name: "settings" },
              mergePatch({ metadata: { labels: { "krtt.io/propagate": null } } }),
            )
          yield* waitFor(
            "copies removed",
            Effect.map(Effect.all([get(east), get(west)]), (cs) => cs.every((c) => c === undefined)),
          )
          yield* waitFor(
            "finalizer released",
            Effect.map(get(hubServer), (s) => !(s?.metadata.finalizers ?? []).includes(PropagateFinalizer)),
          )
          expect((yield* get(hubServer))?.metadata.annotations?.[PropagatedToAnnotation]).toBeUndefined()
        }),
      ),
    )
  }, 60_000)

  it("a deleted source is removed everywhere before its finalizer goes; a selector restricts targets", async () => {
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { hubServer, servers } = yield* fleet(["east", "west"])
          const east = servers.get("east") as FakeApiServer
          const west = servers.get("west") as FakeApiServer
          yield* hubServer
            .client()
            .create(
              Resources.configMaps,
              source({ annotations: { "krtt.io/propagation": "krtt.io/cluster-name in (west)" } }),
            )
          yield* waitFor(
            "copy in west",
            Effect.map(get(west), (c) => c !== undefined),
          )
          yield* waitFor(
            "1/1 on the source",
            Effect.map(get(hubServer), (s) => s?.metadata.annotations?.[PropagatedToAnnotation] === "1/1"),
          )
          expect(yield* get(east)).toBeUndefined()
          yield* hubServer.client().delete(Resources.configMaps, { namespace: "team-a", name: "settings" })
          yield* waitFor(
            "source gone",
            Effect.map(get(hubServer), (s) => s === undefined),
          )
          expect(yield* get(west)).toBeUndefined()
        }),
      ),
    )
  }, 60_000)

  it("a Secret is copied with its type, and an object that is not ours is left alone with a Warning Event", async () => {
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { hubServer, servers } = yield* fleet(["east"])
          const east = servers.get("east") as FakeApiServer
          yield* east.client().create(Resources.namespaces, { metadata: { name: "team-a" } })
          yield* east.client().create(Resources.configMaps, {
            metadata: { namespace: "team-a", name: "settings" },
            data: { theirs: "1" },
          })
          yield* hubServer.client().create(Resources.configMaps, source())
          yield* hubServer.client().create(Resources.secrets, {
            metadata: { namespace: "team-a", name: "tls", labels: { "krtt.io/propagate": "true" } },
            type: "kubernetes.io/tls",
            data: { "tls.crt": "Y2VydA==", "tls.key": "a2V5" },
          })
          yield* waitFor(
            "secret copied",
            Effect.map(get(east, Resources.secrets, "team-a", "tls"), (s) => s?.type === "kubernetes.io/tls"),
          )
          yield* waitFor(
            "conflict event",
            Effect.map(hubServer.client().list(Resources.events, { namespace: "team-a" }), (l) =>
              l.items.some((e) => e.reason === "PropagationConflict"),
            ),
          )
          expect((yield* get(east))?.data).toEqual({ theirs: "1" })
          expect((yield* get(hubServer))?.metadata.annotations?.[PropagatedToAnnotation]).toBe("0/1")
        }),
      ),
    )
  }, 60_000)
})

describe("krtt propagate with the namespaces provider (a logical cluster is one namespace)", () => {
  it("puts every copy into the logical cluster's own namespace (copyNamespace), and restores it there", async () => {
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const hubServer = yield* FakeApiServer.make()
          const hubClient = yield* makeMemoryClient(hubServer)
          yield* hubServer.client().create(Resources.namespaces, { metadata: { name: "team-a" } })
          const fleetServer = yield* FakeApiServer.make()
          for (const n of ["ns-0", "ns-1", "ns-2"])
            yield* fleetServer.client().create(Resources.namespaces, { metadata: { name: n } })
          const provider = yield* makeNamespacesProvider(yield* makeMemoryClient(fleetServer))
          const manager = yield* makeManager({ hub: yield* makeCluster({ client: hubClient }), provider })
          const { controllers } = yield* addToManager(manager, hubClient, {
            pendingNamespace: "team-a",
            config: { retryInterval: 100, clusterPollInterval: 50 },
            copyNamespace: () => "",
          })
          yield* manager.start
          yield* hubServer.client().create(Resources.configMaps, source())
          yield* waitFor(
            "a copy in every namespace of the fleet server",
            Effect.map(
              Effect.all(["ns-0", "ns-1", "ns-2"].map((n) => get(fleetServer, Resources.configMaps, n))),
              (cs) => cs.every((c) => c?.metadata.labels?.[PropagatedFromLabel] === "team-a.settings"),
            ),
          )
          const clusters = (yield* provider.clusters).filter((c) => c.engaged).length
          yield* waitFor(
            `${clusters}/${clusters} on the source`,
            Effect.map(
              get(hubServer),
              (s) => s?.metadata.annotations?.[PropagatedToAnnotation] === `${clusters}/${clusters}`,
            ),
          )
          yield* fleetServer
            .client()
            .patch(
              Resources.configMaps,
              { namespace: "ns-1", name: "settings" },
              mergePatch({ data: { color: "red" } }),
            )
          yield* waitFor(
            "the edit restored in ns-1",
            Effect.map(get(fleetServer, Resources.configMaps, "ns-1"), (c) => c?.data?.color === "blue"),
          )
          // Settled means idle: following the copies does not enqueue their source again and again.
          const busy = Effect.map(
            Effect.forEach(controllers, (c) =>
              Effect.zipWith(c.queue.length, c.queue.processing, (a, b) => a + b),
            ),
            (counts) => counts.reduce((a, b) => a + b, 0),
          )
          yield* waitFor(
            "the controllers idle",
            Effect.map(busy, (n) => n === 0),
          )
          for (let i = 0; i < 10; i++) {
            yield* Effect.sleep("30 millis")
            expect(yield* busy).toBe(0)
          }
        }),
      ),
    )
  }, 60_000)
})
