/** The ClusterCache service and a rotated kubeconfig Secret (rotation.ts). */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { KubeClient } from "../kube/client.ts"
import { Unauthorized } from "../kube/errors.ts"
import { Resources } from "../kube/resource.ts"
import { ClusterResource, type ConnectionFactory, make } from "./service.ts"
import { cluster, kubeconfig } from "./testing.ts"

/** A connected ClusterCache whose kubeconfig Secret a test can replace in the Secret store. */
const rotationSetup = Effect.gen(function* () {
  const mgmt = yield* FakeApiServer.make()
  mgmt.register(ClusterResource)
  const workloads = new Map([
    ["https://workload.example", yield* FakeApiServer.make()],
    ["https://moved.example", yield* FakeApiServer.make()],
  ])
  const mc = yield* makeMemoryClient(mgmt)
  yield* mc.create(ClusterResource, {
    apiVersion: "cluster.x-k8s.io/v1beta2",
    kind: "Cluster",
    metadata: { namespace: "default", name: "c1" },
  })
  yield* mc.patchStatus(ClusterResource, cluster, {
    type: "merge",
    body: { status: { initialization: { infrastructureProvisioned: true } } },
  })
  const holder = {
    secret: {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { namespace: "default", name: "c1-kubeconfig" },
      data: { value: kubeconfig("https://workload.example") },
    },
  }
  /** Tokens the workload servers accept (others are answered 401 by the factory's client). */
  const accepted = new Set(["secret-token", "secret-token-rotated"])
  const tokens: Array<string> = []
  const factory: ConnectionFactory = (kc) =>
    Effect.gen(function* () {
      const token = kc.getCurrentUser()?.token ?? ""
      tokens.push(token)
      const server = workloads.get(kc.getCurrentCluster()?.server ?? "")
      if (server === undefined) return yield* Effect.die(new Error("unknown server"))
      const client = yield* makeMemoryClient(server)
      return accepted.has(token)
        ? client
        : {
            ...client,
            probe: () =>
              Effect.fail(new Unauthorized({ verb: "probe", path: "/", message: "token refused" })),
          }
    })
  // No Secret on the management fake: every read must come from the store, without a request.
  const cc = yield* make({ connectionFactory: factory, secrets: { get: () => holder.secret } }).pipe(
    Effect.provideService(KubeClient, mc),
  )
  const rotate = (server: string, suffix: string) => {
    holder.secret = { ...holder.secret, data: { value: kubeconfig(server, suffix) } }
  }
  return { cc, workloads, tokens, rotate, accepted }
})

describe("ClusterCache service and a rotated kubeconfig Secret", () => {
  it.effect("same server and CA: new requests use the new credentials, informers and watches go on", () =>
    Effect.gen(function* () {
      const { cc, workloads, tokens, rotate } = yield* rotationSetup
      const workload = workloads.get("https://workload.example") as FakeApiServer
      yield* cc.reconcile(cluster)
      const seen: Array<string> = []
      yield* cc.watch(cluster, {
        name: "cm",
        resource: Resources.configMaps,
        onEvent: (e) => Effect.sync(() => seen.push(`${e._tag} ${e.object.metadata.name}`)),
      })
      const client = yield* cc.getClient(cluster)
      const steady = yield* cc.reconcile(cluster)
      assert.isFalse(steady.rows.includes("clustercache.accessor#6"))
      const before = tokens.length
      rotate("https://workload.example", "-rotated")
      const rotated = yield* cc.reconcile(cluster)
      assert.isFalse(rotated.rows.includes("clustercache.accessor#6"), rotated.rows.join(" "))
      assert.deepStrictEqual(tokens.slice(before), ["secret-token-rotated", "secret-token-rotated"])
      // The same client, the same informer: an object created now reaches the watch.
      assert.strictEqual(yield* cc.getClient(cluster), client)
      const wc = yield* makeMemoryClient(workload)
      yield* wc.create(Resources.configMaps, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { namespace: "default", name: "after" },
      })
      yield* TestClock.adjust("1 second")
      assert.include(seen, "Added after")
      // Nothing changes at the next reconcile: the rotated Secret is the current one.
      const next = yield* cc.reconcile(cluster)
      assert.isFalse(next.rows.includes("clustercache.accessor#6"))
      assert.strictEqual(tokens.length, before + 2)
    }),
  )

  it.effect("another server: disconnects and connects again at once (clusterAccessor row 6)", () =>
    Effect.gen(function* () {
      const { cc, tokens, rotate } = yield* rotationSetup
      yield* cc.reconcile(cluster)
      const client = yield* cc.getClient(cluster)
      const before = tokens.length
      rotate("https://moved.example", "-rotated")
      const moved = yield* cc.reconcile(cluster)
      assert.isTrue(moved.rows.includes("clustercache.accessor#6"), moved.rows.join(" "))
      assert.deepStrictEqual(yield* cc.accessors(), [{ cluster, connected: true }])
      assert.notStrictEqual(yield* cc.getClient(cluster), client)
      assert.isTrue(tokens.slice(before).every((t) => t === "secret-token-rotated"))
    }),
  )

  it.effect(
    "credentials the server refuses are not taken: the current ones stay, the Secret is tried again",
    () =>
      Effect.gen(function* () {
        const { cc, tokens, rotate, accepted } = yield* rotationSetup
        yield* cc.reconcile(cluster)
        const client = yield* cc.getClient(cluster)
        rotate("https://workload.example", "-early")
        const kept = yield* cc.reconcile(cluster)
        assert.isFalse(kept.rows.includes("clustercache.accessor#6"))
        assert.strictEqual(yield* cc.getClient(cluster), client)
        assert.deepStrictEqual(yield* cc.accessors(), [{ cluster, connected: true }])
        // Accepted a little later: the next reconcile takes them.
        accepted.add("secret-token-early")
        const before = tokens.length
        yield* cc.reconcile(cluster)
        assert.deepStrictEqual(tokens.slice(before), ["secret-token-early", "secret-token-early"])
      }),
  )
})
