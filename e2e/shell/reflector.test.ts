// The reflector against real kube-apiservers: list in pages then watch, label selections, the
// inactivity restart, an API server that goes away and comes back, and the relist after 410 Gone
// when its resourceVersion was compacted meanwhile (on a control plane of its own, watch cache
// off, so that the watch reaches etcd).
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { KubeClientShape } from "../../shell/kube/client.ts"
import { mergePatch } from "../../shell/kube/patch.ts"
import { type KubeObject, Resources } from "../../shell/kube/resource.ts"
import { make, type ReflectorEvent, type ReflectorOptions } from "../../shell/reflector/reflector.ts"
import { type ControlPlane, startControlPlane } from "../../testenv/index.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import { clientOf, createNamespace, tcpProxy, until } from "./support.ts"

const shared = sharedControlPlane()
const hub = shared.clusters[0]
if (hub === undefined) throw new Error("the shared control plane has no cluster")

const cms = Resources.configMaps
const cm = (name: string, namespace: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name, namespace, labels },
  data: { v: "1" },
})

/** A reflector on configmaps of `namespace`, recording `Added:name` style events. */
const reflect = (
  client: KubeClientShape,
  namespace: string,
  extra: Partial<ReflectorOptions<KubeObject>> = {},
) =>
  Effect.gen(function* () {
    const events: Array<string> = []
    const record = (e: ReflectorEvent<KubeObject>) =>
      Effect.sync(() => events.push(`${e._tag}:${e.object.metadata.name}`))
    const reflector = yield* make(client, {
      resource: cms,
      namespace,
      backoff: { initial: "100 millis", max: "1 second", jitter: 0 },
      handlers: [record],
      ...extra,
    })
    yield* reflector.waitForSync
    return { reflector, events }
  })

describe("Reflector on the shared control plane", () => {
  it.live("lists in pages, then watches: the store and handlers follow creates, updates and deletes", () =>
    Effect.gen(function* () {
      const client = yield* clientOf(hub)
      const ns = yield* createNamespace(client, "e2e-reflector")
      for (const n of ["a", "b", "c", "d", "e"]) yield* client.create(cms, cm(n, ns))
      const { reflector, events } = yield* reflect(client, ns, { pageSize: 2 })
      assert.deepStrictEqual([...events].sort(), ["Added:a", "Added:b", "Added:c", "Added:d", "Added:e"])
      yield* client.patch(cms, { namespace: ns, name: "a" }, mergePatch({ data: { v: "2" } }))
      yield* client.delete(cms, { namespace: ns, name: "b" })
      yield* client.create(cms, cm("f", ns))
      yield* until("three watch events", () => events.length === 8)
      assert.deepStrictEqual(events.slice(5), ["Updated:a", "Deleted:b", "Added:f"])
      assert.deepStrictEqual(reflector.store.get({ namespace: ns, name: "a" })?.data, { v: "2" })
      assert.deepStrictEqual(reflector.store.byNamespace(ns).length, 5)
      const status = yield* reflector.status
      assert.strictEqual(status.lists, 1)
      assert.strictEqual(status.watches, 1)
    }),
  )

  it.live("a label-selected reflector sees objects enter and leave its selection", () =>
    Effect.gen(function* () {
      const client = yield* clientOf(hub)
      const ns = yield* createNamespace(client, "e2e-reflector-labels")
      const { reflector, events } = yield* reflect(client, ns, { labelSelector: "app=web" })
      yield* client.create(cms, cm("x", ns))
      yield* client.patch(
        cms,
        { namespace: ns, name: "x" },
        mergePatch({ metadata: { labels: { app: "web" } } }),
      )
      yield* until("x enters", () => events.length === 1)
      yield* client.patch(
        cms,
        { namespace: ns, name: "x" },
        mergePatch({ metadata: { labels: { app: "db" } } }),
      )
      yield* until("x leaves", () => events.length === 2)
      assert.deepStrictEqual(events, ["Added:x", "Deleted:x"])
      assert.strictEqual(reflector.store.size(), 0)
    }),
  )

  it.live("restarts a watch that stays silent for the inactivity timeout, without relisting", () =>
    Effect.gen(function* () {
      const client = yield* clientOf(hub)
      const ns = yield* createNamespace(client, "e2e-reflector-silent")
      const { reflector, events } = yield* reflect(client, ns, { inactivityTimeout: "1500 millis" })
      yield* until("two restarts", () => Effect.runSync(reflector.status).watches >= 3, 15_000)
      yield* client.create(cms, cm("late", ns))
      yield* until("the change after the restarts", () => events.includes("Added:late"))
      assert.strictEqual((yield* reflector.status).lists, 1)
    }),
  )
})

describe("Reflector on a control plane of its own (watch cache off)", () => {
  let controlPlane: ControlPlane | undefined
  beforeAll(async () => {
    controlPlane = await startControlPlane({ clusters: 1, users: 0, apiserverArgs: ["--watch-cache=false"] })
  })
  afterAll(async () => {
    await controlPlane?.stop()
  })
  const own = () => {
    const c = controlPlane?.clusters[0]
    if (controlPlane === undefined || c === undefined) throw new Error("no control plane")
    return { controlPlane, cluster: c }
  }

  it.live("survives the API server going away and coming back: resumes from its resourceVersion", () =>
    Effect.gen(function* () {
      const { cluster } = own()
      const admin = yield* clientOf(cluster)
      const ns = yield* createNamespace(admin, "e2e-reflector-restart")
      const proxy = yield* tcpProxy(new URL(cluster.server))
      const viaProxy = yield* clientOf(cluster, { server: proxy.url, timeout: "2 seconds" })
      yield* admin.create(cms, cm("a", ns))
      const { reflector, events } = yield* reflect(viaProxy, ns)
      yield* proxy.down
      yield* until("the reflector to notice", () => Effect.runSync(reflector.status).lastError !== undefined)
      yield* admin.create(cms, cm("while-away", ns))
      yield* Effect.sleep("1 second")
      yield* proxy.up
      yield* until("the change made while it was away", () => events.includes("Added:while-away"))
      yield* admin.create(cms, cm("after", ns))
      yield* until("the change after it came back", () => events.includes("Added:after"))
      assert.strictEqual((yield* reflector.status).lists, 1, "resumed the watch, no relist")
    }),
  )

  it.live(
    "relists after 410 Gone when its resourceVersion was compacted while away, reporting what it missed",
    () =>
      Effect.gen(function* () {
        const { cluster, controlPlane: cp } = own()
        const admin = yield* clientOf(cluster)
        const ns = yield* createNamespace(admin, "e2e-reflector-gone")
        const proxy = yield* tcpProxy(new URL(cluster.server))
        const viaProxy = yield* clientOf(cluster, { server: proxy.url, timeout: "2 seconds" })
        yield* admin.create(cms, cm("a", ns))
        yield* admin.create(cms, cm("b", ns))
        const { reflector, events } = yield* reflect(viaProxy, ns)
        yield* proxy.down
        yield* admin.delete(cms, { namespace: ns, name: "b" })
        yield* admin.create(cms, cm("c", ns))
        yield* Effect.promise(() => cp.compact())
        yield* proxy.up
        yield* until("the relist", () => Effect.runSync(reflector.status).lists === 2)
        yield* until(
          "the store to catch up",
          () => reflector.store.size() === 2 && reflector.store.get(`${ns}/c`) !== undefined,
        )
        assert.includeMembers(events, ["Deleted:b", "Added:c"])
        assert.isUndefined(reflector.store.get(`${ns}/b`))
      }),
  )
})
