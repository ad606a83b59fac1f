import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { describe, expect, it } from "vitest"
import { entryKey, INVENTORY_CONFIGMAP } from "../../../core/inventory/index.ts"
import { makeMemoryClient } from "../../apiserver/memoryClient.ts"
import { FakeApiServer } from "../../apiserver/server.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import { type KubeObject, Resources } from "../../kube/resource.ts"
import { makeCluster, makeManager, makeMemoryProvider } from "../../multicluster/index.ts"
import { addToManager } from "./controller.ts"
import { inventoryClusters, inventoryWrites } from "./metrics.ts"
import { NodesResource, nodeReady, readinessChanged } from "./observe.ts"

const NS = "fleet"
const TARGET = { namespace: NS, name: INVENTORY_CONFIGMAP }

const node = (name: string, ready: boolean): KubeObject =>
  ({
    metadata: { name },
    status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  }) as KubeObject

/** Polls `check` every 10 ms for at most 10 s; the failure names what was awaited. */
const until = (what: string, check: Effect.Effect<boolean, unknown>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 1_000; i++) {
      if (yield* check) return
      yield* Effect.sleep("10 millis")
    }
    return yield* Effect.fail(new Error(`timed out waiting for: ${what}`))
  })

/** Creates a Node and sets its Ready condition through the status subresource (as kubelets do). */
const addNode = (server: FakeApiServer, name: string, ready: boolean) =>
  Effect.gen(function* () {
    const created = yield* server.client().create(NodesResource, { metadata: { name } } as KubeObject)
    yield* server
      .client()
      .updateStatus(NodesResource, { ...created, status: node(name, ready).status } as KubeObject)
  })

const workload = () =>
  Effect.gen(function* () {
    const server = yield* FakeApiServer.make()
    server.register(NodesResource, { status: true })
    return server
  })

type Doc = Record<string, unknown>

const setup = (debounce: number, wrap: (c: KubeClientShape) => KubeClientShape = (c) => c) =>
  Effect.gen(function* () {
    const hubServer = yield* FakeApiServer.make()
    const hubClient = yield* makeMemoryClient(hubServer)
    const hub = yield* makeCluster({ client: wrap(hubClient) })
    const provider = yield* makeMemoryProvider({ name: "memory" })
    const east = yield* workload()
    const west = yield* workload()
    yield* addNode(east, "e1", true)
    yield* addNode(east, "e2", false)
    yield* provider.add("east", east)
    yield* provider.add("fleet/west", west)
    const manager = yield* makeManager({ hub, provider })
    yield* addToManager(manager, {
      namespace: NS,
      config: { debounce, clusterPollInterval: 20, retry: 50 },
    })
    yield* manager.start
    const inventory = hubServer
      .client()
      .get(Resources.configMaps, TARGET)
      .pipe(
        Effect.map((o) => (o.data ?? {}) as Record<string, string>),
        Effect.catchTag("NotFound", () => Effect.succeed({} as Record<string, string>)),
      )
    const entry = (cluster: string) =>
      Effect.map(inventory, (d): Doc | undefined => {
        const v = d[entryKey(cluster)]
        return v === undefined ? undefined : (JSON.parse(v) as Doc)
      })
    return { hubServer, provider, manager, east, west, inventory, entry }
  })

describe("nodeReady", () => {
  it("is true only for a Ready condition True", () => {
    expect(nodeReady(node("a", true) as never)).toBe(true)
    expect(nodeReady(node("a", false) as never)).toBe(false)
    expect(nodeReady({ metadata: { name: "a" } } as never)).toBe(false)
  })
})

describe("readinessChanged", () => {
  const heartbeat = (n: KubeObject, ready: boolean, at: string) =>
    ({
      ...n,
      status: { conditions: [{ type: "Ready", status: ready ? "True" : "False", lastHeartbeatTime: at }] },
    }) as KubeObject
  const n = { metadata: { name: "a" } } as KubeObject
  it("passes creations, deletions and readiness flips, not heartbeats", () => {
    expect(readinessChanged({ _tag: "Added", object: n } as never)).toBe(true)
    expect(readinessChanged({ _tag: "Deleted", object: n } as never)).toBe(true)
    const old = heartbeat(n, true, "t1")
    expect(readinessChanged({ _tag: "Updated", old, object: heartbeat(n, true, "t2") } as never)).toBe(false)
    expect(readinessChanged({ _tag: "Updated", old, object: heartbeat(n, false, "t2") } as never)).toBe(true)
  })
})

describe("inventory's addToManager (in-memory API servers)", () => {
  it("keeps a key per engaged cluster: version, Node and Ready counts; follows Nodes; marks unreachable; removes a cluster that left; keeps foreign keys", async () => {
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { hubServer, provider, east, west, inventory, entry } = yield* setup(0)
          // inventory.entry#1: both clusters get their entry at once.
          yield* until(
            "east 2/1 and fleet/west 0/0",
            Effect.gen(function* () {
              const e = yield* entry("east")
              const w = yield* entry("fleet/west")
              return e?.nodes === 2 && e.readyNodes === 1 && w?.nodes === 0 && w.readyNodes === 0
            }),
          )
          const e = (yield* entry("east")) as Doc
          expect(e).toMatchObject({
            cluster: "east",
            kubernetesVersion: "v1.34.0-krtt-fake",
            reachable: true,
          })
          expect(e.engagedSince).toBe(e.lastChange)
          // a key nobody's document names is never touched
          const cm = yield* hubServer.client().get(Resources.configMaps, TARGET)
          yield* hubServer.client().update(Resources.configMaps, {
            ...cm,
            data: { ...(cm.data as Record<string, string>), note: "kept" },
          })

          // inventory.entry#6 (debounce 0): a Node created in west, then made Ready.
          yield* addNode(west, "w1", false)
          yield* until(
            "west 1/0",
            Effect.map(entry("fleet/west"), (w) => w?.nodes === 1 && w.readyNodes === 0),
          )
          const w1 = yield* west.client().get(NodesResource, { name: "w1" })
          yield* west.client().updateStatus(NodesResource, {
            ...w1,
            status: { conditions: [{ type: "Ready", status: "True" }] },
          })
          yield* until(
            "west 1/1",
            Effect.map(entry("fleet/west"), (w) => w?.readyNodes === 1),
          )
          // a Node deleted in east
          yield* east.client().delete(NodesResource, { name: "e1" })
          yield* until(
            "east 1/0",
            Effect.map(entry("east"), (x) => x?.nodes === 1 && x.readyNodes === 0),
          )

          // inventory.entry#7: disengaged by health → unreachable, counts kept
          yield* provider.setHealthy("east", false, "probe failed 5 times in a row (threshold 5): refused")
          yield* until(
            "east unreachable",
            Effect.map(entry("east"), (x) => x?.reachable === false),
          )
          const gauge = (state: string) =>
            Effect.map(Metric.value(inventoryClusters.pipe(Metric.withAttributes({ state }))), (v) => v.value)
          yield* until(
            "krtt_inventory_clusters: 1 reachable, 1 unreachable",
            Effect.map(
              Effect.all([gauge("reachable"), gauge("unreachable")]),
              ([r, u]) => r === 1 && u === 1,
            ),
          )
          expect(yield* entry("east")).toMatchObject({
            nodes: 1,
            readyNodes: 0,
            reason: "probe failed 5 times in a row (threshold 5): refused",
            engagedSince: e.engagedSince,
          })
          // inventory.entry#2: engaged again → reachable, a new engagement
          yield* provider.setHealthy("east", true)
          yield* until(
            "east reachable",
            Effect.map(entry("east"), (x) => x?.reachable === true),
          )
          expect((yield* entry("east"))?.reason).toBeUndefined()

          // inventory.entry#10: west leaves the provider → its key goes, the others stay
          yield* provider.remove("fleet/west")
          yield* until(
            "west removed",
            Effect.map(entry("fleet/west"), (x) => x === undefined),
          )
          expect(Object.keys(yield* inventory).sort()).toEqual(["east", "note"])

          // the ConfigMap deleted is written again
          yield* hubServer.client().delete(Resources.configMaps, TARGET)
          yield* until(
            "recreated",
            Effect.map(entry("east"), (x) => x?.nodes === 1),
          )
        }),
      ),
    )
  }, 30_000)

  it("inventory.entry#4/#5: with a 1 h debounce a Node change waits while a cluster leaving is written at once", async () => {
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { provider, manager, east, entry } = yield* setup(3_600_000)
          yield* until(
            "east 2/1",
            Effect.map(entry("east"), (x) => x?.nodes === 2),
          )
          yield* until(
            "west present",
            Effect.map(entry("fleet/west"), (x) => x !== undefined),
          )
          yield* addNode(east, "e3", true)
          const eastCluster = yield* manager.getCluster("east")
          yield* until(
            "east's cache has 3 Nodes",
            Effect.map(eastCluster.cache.list(NodesResource), (l) => l.length === 3),
          )
          yield* provider.remove("fleet/west")
          // every reconcile from here on sees 3 Nodes in east: the change stays pending (1 h)
          // while west's removal is written at once
          yield* until(
            "west removed",
            Effect.map(entry("fleet/west"), (x) => x === undefined),
          )
          expect((yield* entry("east"))?.nodes).toBe(2)
        }),
      ),
    )
  }, 30_000)

  it("two replicas over the same clusters and a third writer updating the ConfigMap at once: every key kept, counts right", async () => {
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { hubServer, east, west, entry, inventory } = yield* setup(0)
          // a second replica over the same hub and the same clusters
          const hub2 = yield* makeCluster({ client: yield* makeMemoryClient(hubServer) })
          const provider2 = yield* makeMemoryProvider({ name: "memory" })
          yield* provider2.add("east", east)
          yield* provider2.add("fleet/west", west)
          const manager2 = yield* makeManager({ hub: hub2, provider: provider2 })
          yield* addToManager(manager2, {
            namespace: NS,
            config: { debounce: 0, clusterPollInterval: 20 },
          })
          yield* manager2.start
          yield* until(
            "east present",
            Effect.map(entry("east"), (x) => x !== undefined),
          )
          const client = hubServer.client()
          /** A writer of its own: get, add a key, update with the resourceVersion read; again on a conflict. */
          const addKey = (key: string): Effect.Effect<void, unknown> =>
            Effect.gen(function* () {
              const cm = yield* client.get(Resources.configMaps, TARGET)
              yield* client.update(Resources.configMaps, {
                ...cm,
                data: { ...(cm.data as Record<string, string>), [key]: "foreign" },
              })
            }).pipe(Effect.catchTag("Conflict", () => Effect.suspend(() => addKey(key))))
          const keys = Array.from({ length: 30 }, (_, i) => `x${i}`)
          yield* Effect.all(
            [
              Effect.forEach(keys, addKey, { discard: true }),
              Effect.forEach(
                Array.from({ length: 20 }, (_, i) => `burst-${i}`),
                (n, i) => addNode(east, n, i % 2 === 0),
                { discard: true },
              ),
            ],
            { concurrency: "unbounded" },
          )
          yield* until(
            "east 22 Nodes",
            Effect.map(entry("east"), (x) => x?.nodes === 22),
          )
          const data = yield* inventory
          for (const k of keys) expect(data[k], k).toBe("foreign")
          expect(Object.keys(data).filter((k) => !k.startsWith("x"))).toEqual([
            "east",
            entryKey("fleet/west"),
          ])
        }),
      ),
    )
  }, 30_000)

  it("a write that lands between the controller's read and its update is kept: the update is refused (Conflict) and decided again", async () => {
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const raced: Array<string> = []
          let other: KubeClientShape | undefined
          // Before each of the controller's first five updates of the ConfigMap, another writer
          // adds a key of its own: exactly the window a blind write would lose it in.
          const wrap = (c: KubeClientShape): KubeClientShape => ({
            ...c,
            update: ((ref, object) =>
              Effect.gen(function* () {
                if (other !== undefined && ref.resource === "configmaps" && raced.length < 5) {
                  const key = `race-${raced.length}`
                  raced.push(key)
                  const cm = yield* other.get(Resources.configMaps, TARGET)
                  yield* other.update(Resources.configMaps, {
                    ...cm,
                    data: { ...(cm.data as Record<string, string>), [key]: "theirs" },
                  })
                }
                return yield* c.update(ref, object)
              })) as KubeClientShape["update"],
          })
          const conflicts = Effect.map(
            Metric.value(inventoryWrites.pipe(Metric.withAttributes({ result: "conflict" }))),
            (v) => v.count,
          )
          const conflicts0 = yield* conflicts
          const { hubServer, east, entry, inventory } = yield* setup(0, wrap)
          other = hubServer.client()
          yield* until(
            "east present",
            Effect.map(entry("east"), (x) => x !== undefined),
          )
          for (const n of ["r1", "r2", "r3", "r4", "r5", "r6"]) yield* addNode(east, n, true)
          yield* until(
            "east 8 Nodes",
            Effect.map(entry("east"), (x) => x?.nodes === 8),
          )
          expect(raced.length).toBeGreaterThan(0)
          const data = yield* inventory
          for (const k of raced) expect(data[k], k).toBe("theirs")
          // every raced update was refused and counted (krtt_inventory_writes_total{result="conflict"})
          expect((yield* conflicts) - conflicts0).toBe(raced.length)
        }),
      ),
    )
  }, 30_000)
})
