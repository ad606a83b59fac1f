// The REST KubeClient against a real kube-apiserver (testenv's shared control plane): CRUD,
// optimistic concurrency, authentication and RBAC errors, pagination, the status subresource,
// finalizers, server-side apply, discovery and watches.
import { type AddressInfo, createServer, type Server, type Socket } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { tokenKubeConfig } from "../../shell/apiserver/http.ts"
import { crdHasStatus, crdResource, getCrd } from "../../shell/kube/discovery.ts"
import type { KubeError } from "../../shell/kube/errors.ts"
import { applyPatch, jsonPatch, mergePatch } from "../../shell/kube/patch.ts"
import { type KubeObject, Resources } from "../../shell/kube/resource.ts"
import { makeRestClient } from "../../shell/kube/restClient.ts"
import { isInitialEventsEnd, type WatchEvent } from "../../shell/kube/watch.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import { clientOf, createNamespace, installWidgets, kubeConfigOf, until, widgetCrd } from "./support.ts"

const controlPlane = sharedControlPlane()
const hub = controlPlane.clusters[0]
if (hub === undefined) throw new Error("the shared control plane has no cluster")

const failure = <A>(effect: Effect.Effect<A, KubeError>) => Effect.map(Effect.flip(effect), (e) => e._tag)
const cm = (name: string, namespace: string, data: Record<string, string> = { a: "1" }): KubeObject => ({
  metadata: { name, namespace },
  data,
})

describe("REST KubeClient on a real API server", () => {
  it.live("creates, reads, replaces, patches and deletes; a stale resourceVersion is a 409 Conflict", () =>
    Effect.gen(function* () {
      const client = yield* clientOf(hub)
      const ns = yield* createNamespace(client, "e2e-kube-crud")
      const key = { namespace: ns, name: "a" }
      const created = yield* client.create(Resources.configMaps, cm("a", ns))
      assert.isString(created.metadata.uid)
      assert.strictEqual(yield* failure(client.create(Resources.configMaps, cm("a", ns))), "AlreadyExists")
      const read = yield* client.get(Resources.configMaps, key)
      const replaced = yield* client.update(Resources.configMaps, { ...read, data: { a: "2" } })
      assert.notStrictEqual(replaced.metadata.resourceVersion, read.metadata.resourceVersion)
      const stale = yield* Effect.flip(client.update(Resources.configMaps, { ...read, data: { a: "3" } }))
      assert.strictEqual(stale._tag, "Conflict")
      assert.strictEqual(stale.verb, "update")
      assert.strictEqual(stale.path, `/api/v1/namespaces/${ns}/configmaps/a`)
      assert.include(stale.message, "the object has been modified")
      const merged = yield* client.patch(Resources.configMaps, key, mergePatch({ data: { b: "x" } }))
      assert.deepStrictEqual(merged.data, { a: "2", b: "x" })
      const json = yield* client.patch(
        Resources.configMaps,
        key,
        jsonPatch([{ op: "remove", path: "/data/b" }]),
      )
      assert.deepStrictEqual(json.data, { a: "2" })
      const applied = yield* client.patch(
        Resources.configMaps,
        { namespace: ns, name: "applied" },
        applyPatch(cm("applied", ns)),
        {
          fieldManager: "krtt-e2e",
          force: true,
        },
      )
      assert.strictEqual(applied.metadata.name, "applied")
      assert.strictEqual(
        yield* failure(client.delete(Resources.configMaps, key, { preconditions: { uid: "not-the-uid" } })),
        "Conflict",
      )
      yield* client.delete(Resources.configMaps, key, { preconditions: { uid: created.metadata.uid } })
      assert.strictEqual(yield* failure(client.get(Resources.configMaps, key)), "NotFound")
      assert.strictEqual(
        yield* failure(client.create(Resources.configMaps, { metadata: { namespace: ns } })),
        "Invalid",
      )
    }),
  )

  it.live(
    "a refused token is 401 Unauthorized and a user without RBAC is 403 Forbidden; no error carries a token",
    () =>
      Effect.gen(function* () {
        const badToken = "not-a-token-of-this-cluster"
        const bad = yield* makeRestClient(kubeConfigOf(hub.kubeconfigFor("nobody", badToken)))
        const unauthorized = yield* Effect.flip(bad.list(Resources.configMaps, { namespace: "default" }))
        assert.strictEqual(unauthorized._tag, "Unauthorized")
        assert.strictEqual(unauthorized.path, "/api/v1/namespaces/default/configmaps")
        assert.strictEqual(yield* failure(bad.probe()), "Unauthorized")
        const noAccess = yield* clientOf(hub, { kubeconfig: hub.noAccess.kubeconfig })
        const forbidden = yield* Effect.flip(noAccess.list(Resources.secrets, { namespace: "default" }))
        assert.strictEqual(forbidden._tag, "Forbidden")
        assert.include(forbidden.message, "cannot list resource")
        for (const e of [unauthorized, forbidden]) {
          assert.notInclude(JSON.stringify(e), badToken)
          assert.notInclude(JSON.stringify(e), hub.noAccess.token)
        }
      }),
  )

  it.live("lists page by page with limit and continue", () =>
    Effect.gen(function* () {
      const client = yield* clientOf(hub)
      const ns = yield* createNamespace(client, "e2e-kube-pages")
      const names = Array.from({ length: 7 }, (_, i) => `cm-${i}`)
      yield* Effect.forEach(names, (n) => client.create(Resources.configMaps, cm(n, ns)), { concurrency: 4 })
      const first = yield* client.list(Resources.configMaps, { namespace: ns, limit: 3 })
      assert.strictEqual(first.items.length, 3)
      assert.isString(first.continue)
      const all = yield* client.listAll(Resources.configMaps, { namespace: ns, pageSize: 3 })
      assert.deepStrictEqual(all.items.map((o) => o.metadata.name).sort(), names)
      assert.isString(all.resourceVersion)
    }),
  )

  it.live("a CRD with the status subresource: generation, /status, finalizers and deletionTimestamp", () =>
    Effect.gen(function* () {
      const client = yield* clientOf(hub)
      const widgets = yield* installWidgets(client)
      const crd = yield* getCrd(client, widgetCrd.metadata.name)
      assert.deepStrictEqual(crdResource(crd), widgets)
      assert.isTrue(crdHasStatus(crd))
      const ns = yield* createNamespace(client, "e2e-kube-crd")
      const key = { namespace: ns, name: "w" }
      const w = yield* client.create<KubeObject>(widgets, {
        metadata: { name: "w", namespace: ns, finalizers: ["e2e.krtt.dev/hold"] },
        spec: { size: 1 },
        status: { ignored: true },
      })
      assert.strictEqual(w.metadata.generation, 1)
      assert.isUndefined(w.status, "create drops status of a resource with the subresource")
      const resized = yield* client.patch(
        widgets,
        key,
        mergePatch({ spec: { size: 2 }, status: { ignored: true } }),
      )
      assert.strictEqual(resized.metadata.generation, 2)
      assert.isUndefined(resized.status)
      const withStatus = yield* client.patchStatus(widgets, key, mergePatch({ status: { ready: true } }))
      assert.deepStrictEqual(withStatus.status, { ready: true })
      assert.strictEqual(withStatus.metadata.generation, 2)
      const updated = yield* client.updateStatus(widgets, { ...withStatus, status: { ready: false } })
      assert.deepStrictEqual((yield* client.getStatus(widgets, key)).status, { ready: false })
      const deleting = yield* client.delete(widgets, key)
      assert.isString(deleting?.metadata.deletionTimestamp)
      const still = yield* client.get(widgets, key)
      assert.notStrictEqual(still.metadata.resourceVersion, updated.metadata.resourceVersion)
      yield* client.patch(widgets, key, mergePatch({ metadata: { finalizers: null } }))
      assert.strictEqual(yield* failure(client.get(widgets, key)), "NotFound")
    }),
  )

  it.live(
    "watches: initial events end with the initial-events-end bookmark, then live changes, then the server's timeout",
    () =>
      Effect.gen(function* () {
        const client = yield* clientOf(hub)
        const ns = yield* createNamespace(client, "e2e-kube-watch")
        yield* client.create(Resources.configMaps, cm("before", ns))
        const events: Array<WatchEvent> = []
        const watch = yield* Effect.forkChild(
          Stream.runForEach(
            client.watch(Resources.configMaps, {
              namespace: ns,
              sendInitialEvents: true,
              allowWatchBookmarks: true,
              timeoutSeconds: 3,
            }),
            (e) => Effect.sync(() => events.push(e)),
          ),
        )
        yield* until("the initial-events-end bookmark", () => events.some(isInitialEventsEnd))
        assert.deepStrictEqual(
          events.filter((e) => e.type === "ADDED").map((e) => e.type !== "ERROR" && e.object.metadata.name),
          ["before"],
        )
        yield* client.patch(
          Resources.configMaps,
          { namespace: ns, name: "before" },
          mergePatch({ data: { a: "2" } }),
        )
        yield* client.delete(Resources.configMaps, { namespace: ns, name: "before" })
        yield* until("the deletion", () => events.some((e) => e.type === "DELETED"))
        assert.deepStrictEqual(
          events.filter((e) => e.type !== "BOOKMARK").map((e) => e.type),
          ["ADDED", "MODIFIED", "DELETED"],
        )
        assert.isTrue(Exit.isSuccess(yield* Fiber.await(watch)), "timeoutSeconds ends the stream cleanly")
      }),
  )

  it.live("probe: GET / answers; a closed port is Unreachable; a short timeout is Timeout", () =>
    Effect.gen(function* () {
      const client = yield* clientOf(hub)
      yield* client.probe()
      const version = (yield* client.raw({ method: "GET", path: "/version" })) as { gitVersion?: string }
      assert.strictEqual(version.gitVersion, controlPlane.info.kubernetesVersion)
      const nobody = yield* makeRestClient(tokenKubeConfig("http://127.0.0.1:1", "t"))
      assert.strictEqual(yield* failure(nobody.probe()), "Unreachable")
      // A server that accepts the connection and never answers: the probe's own timeout must end
      // it. (A 1 ms timeout against the real API server raced a fast answer on a quick machine.)
      const silent = yield* Effect.acquireRelease(
        Effect.promise(
          () =>
            new Promise<{ server: Server; sockets: Array<Socket> }>((resolve) => {
              const sockets: Array<Socket> = []
              const server = createServer((socket) => void sockets.push(socket))
              server.listen(0, "127.0.0.1", () => resolve({ server, sockets }))
            }),
        ),
        ({ server, sockets }) =>
          Effect.sync(() => {
            for (const socket of sockets) socket.destroy()
            server.close()
          }),
      )
      const port = (silent.server.address() as AddressInfo).port
      const hanging = yield* makeRestClient(tokenKubeConfig(`http://127.0.0.1:${port}`, "t"))
      assert.strictEqual(yield* failure(hanging.probe({ timeout: "200 millis" })), "Timeout")
    }).pipe(Effect.scoped),
  )
})
