// The multi-cluster runtime on the run's shared control plane (hub cluster-0, workloads cluster-1
// and cluster-2), with the kubeconfig-secrets provider: requests of a removed cluster are
// dropped; an API server that goes away is disengaged at the failure threshold and re-engaged
// when it returns while reconciles on the other clusters go on; two sharded replicas split six
// clusters and take over each other's; a ported fan-out controller (its own request type, engage
// options per watch, the cluster from the context) copies a hub object to the clusters it names
// (seed 003, Proposal and Low-Level Requirements).
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { KubeClientShape } from "../../shell/kube/client.ts"
import { Unreachable } from "../../shell/kube/errors.ts"
import { type KubeObject, Resources } from "../../shell/kube/resource.ts"
import { controllerManagedBy, typedControllerManagedBy } from "../../shell/multicluster/builder.ts"
import { makeCluster } from "../../shell/multicluster/cluster.ts"
import { currentCluster } from "../../shell/multicluster/context.ts"
import type { MultiClusterController } from "../../shell/multicluster/controller.ts"
import { enqueueRequestForObject, enqueueRequestsForClusters } from "../../shell/multicluster/handler.ts"
import { type MultiClusterManager, make as makeManager } from "../../shell/multicluster/manager.ts"
import { makeKubeconfigSecretsProvider } from "../../shell/multicluster/providers/kubeconfigSecrets.ts"
import { ownerOf } from "../../shell/multicluster/rendezvous.ts"
import { customRequest } from "../../shell/multicluster/request.ts"
import { makeShardGate } from "../../shell/multicluster/sharding.ts"
import type { Provider } from "../../shell/multicluster/types.ts"
import { ClusterName, formatRequest, makeRequest } from "../../shell/workqueue/request.ts"
import type { Cluster } from "../../testenv/index.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import { clientOf, createNamespace, suffix, tcpProxy } from "../shell/support.ts"

const plane = sharedControlPlane()
const hubAndWorkloads = () => {
  const [hub, ...workloads] = plane.clusters
  if (hub === undefined || workloads.length < 2)
    throw new Error("the shared control plane has no hub and two workloads")
  return { hub, workloads: workloads as ReadonlyArray<Cluster> }
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64")
const secretOf = (ns: string, name: string, kubeconfig: string) => ({
  metadata: { namespace: ns, name, labels: { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" } },
  data: { kubeconfig: b64(kubeconfig) },
})
const cm = (ns: string, name: string): KubeObject => ({ metadata: { namespace: ns, name }, data: {} })

/** Waits (real time) for `check`, polling every 100 ms; fails after `timeoutMs`. */
const until = (what: string, check: () => boolean | Effect.Effect<boolean>, timeoutMs = 60_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const r = check()
      if (typeof r === "boolean" ? r : yield* r) return
      yield* Effect.sleep("100 millis")
    }
    assert.fail(`timed out after ${timeoutMs} ms: ${what}`)
  })

/** A uniform controller on the configmaps of namespace `ns`, recording `cluster://…` per reconcile. */
const uniform = (manager: MultiClusterManager, ns: string, seen: Array<string>) =>
  controllerManagedBy(manager)
    .named(`e2e-uniform-${suffix()}`)
    .watches(Resources.configMaps, enqueueRequestForObject(), { namespace: ns })
    .complete((req) =>
      Effect.gen(function* () {
        const cluster = yield* manager.getCluster(req.cluster)
        yield* cluster.client.get(Resources.configMaps, req)
        seen.push(formatRequest(req))
        return {}
      }),
    )

const stateOf = (c: MultiClusterController, cluster: string) =>
  Effect.map(c.pairs, (ps) => ps.find((p) => p.cluster === cluster))

describe("multi-cluster runtime on a real control plane", () => {
  it.live(
    "a ported fan-out controller: its own request type, per-watch engage options, the cluster from the context",
    () =>
      Effect.gen(function* () {
        const { hub, workloads } = hubAndWorkloads()
        const hubClient = yield* clientOf(hub)
        const ns = yield* createNamespace(hubClient, "mc-fanout")
        const [w1, w2] = workloads as [Cluster, Cluster]
        const clients = { one: yield* clientOf(w1), two: yield* clientOf(w2) }
        for (const c of Object.values(clients))
          yield* c.create(Resources.namespaces, { metadata: { name: ns } })
        yield* hubClient.create(Resources.secrets, secretOf(ns, "one", w1.admin.kubeconfig))
        yield* hubClient.create(Resources.secrets, secretOf(ns, "two", w2.admin.kubeconfig))
        const provider = yield* makeKubeconfigSecretsProvider(hubClient, { namespace: ns })
        const manager = yield* makeManager({ hub: yield* makeCluster({ client: hubClient }), provider })
        interface Copy {
          readonly cluster: ClusterName
          readonly policy: string
        }
        const CopyType = customRequest<Copy>({
          name: "Copy",
          forObject: (cluster, key) => ({ cluster, policy: key.name }),
        })
        const targets = (o: KubeObject) =>
          (o.metadata.annotations?.["e2e.krtt.dev/clusters"] ?? "").split(",")
        yield* typedControllerManagedBy(manager, CopyType)
          .named(`e2e-fanout-${suffix()}`)
          .watches(
            Resources.configMaps,
            enqueueRequestsForClusters({
              clusters: targets,
              request: (o, cluster): Copy => ({ cluster, policy: o.metadata.name ?? "" }),
            }),
            { namespace: ns, engageWithLocalCluster: true, engageWithProviderClusters: false },
          )
          .for(Resources.configMaps, { namespace: ns, engageWithProviderClusters: true })
          .complete((req) =>
            Effect.gen(function* () {
              const cluster = yield* currentCluster
              const key = { namespace: ns, name: req.policy }
              const policy = yield* hubClient
                .get(Resources.configMaps, key)
                .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
              const copy = yield* cluster.client
                .get(Resources.configMaps, key)
                .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
              const wanted = policy !== undefined && targets(policy).includes(cluster.name)
              if (wanted && copy === undefined)
                yield* cluster.client.create(Resources.configMaps, cm(ns, req.policy))
              if (!wanted && copy !== undefined) yield* cluster.client.delete(Resources.configMaps, key)
              return {}
            }),
          )
        yield* manager.start
        const has = (c: KubeClientShape) =>
          c.get(Resources.configMaps, { namespace: ns, name: "policy" }).pipe(
            Effect.as(true),
            Effect.catch(() => Effect.succeed(false)),
          )
        const copies = Effect.map(Effect.all([has(clients.one), has(clients.two)]), ([a, b]) => `${a},${b}`)
        yield* hubClient.create(Resources.configMaps, {
          metadata: { namespace: ns, name: "policy", annotations: { "e2e.krtt.dev/clusters": "one,two" } },
        })
        yield* until("copied to one and two", () => Effect.map(copies, (c) => c === "true,true"))
        const current = yield* hubClient.get(Resources.configMaps, { namespace: ns, name: "policy" })
        yield* hubClient.update(Resources.configMaps, {
          ...current,
          metadata: { ...current.metadata, annotations: { "e2e.krtt.dev/clusters": "two" } },
        })
        yield* until("one's copy removed", () => Effect.map(copies, (c) => c === "false,true"))
        yield* clients.two.delete(Resources.configMaps, { namespace: ns, name: "policy" })
        yield* until("two's copy repaired", () => Effect.map(copies, (c) => c === "false,true"), 60_000)
      }).pipe(Effect.scoped),
    120_000,
  )

  it.live(
    "reconciles each cluster's objects; requests of a removed cluster are dropped, never reconciled",
    () =>
      Effect.gen(function* () {
        const { hub, workloads } = hubAndWorkloads()
        const hubClient = yield* clientOf(hub)
        const ns = yield* createNamespace(hubClient, "mc-runtime")
        const [w1, w2] = workloads as [Cluster, Cluster]
        for (const w of [w1, w2]) {
          const c = yield* clientOf(w)
          yield* c.create(Resources.namespaces, { metadata: { name: ns } })
          yield* c.create(Resources.configMaps, cm(ns, "a"))
        }
        yield* hubClient.create(Resources.secrets, secretOf(ns, "one", w1.admin.kubeconfig))
        yield* hubClient.create(Resources.secrets, secretOf(ns, "two", w2.admin.kubeconfig))
        const provider = yield* makeKubeconfigSecretsProvider(hubClient, { namespace: ns })
        const manager = yield* makeManager({ hub: yield* makeCluster({ client: hubClient }), provider })
        const seen: Array<string> = []
        const controller = yield* uniform(manager, ns, seen)
        yield* manager.start
        yield* until("both clusters reconciled", () =>
          [`cluster://one/${ns}/a`, `cluster://two/${ns}/a`].every((r) => seen.includes(r)),
        )
        yield* hubClient.delete(Resources.secrets, { namespace: ns, name: "one" })
        yield* until("cluster one gone", () =>
          Effect.map(stateOf(controller, "one"), (p) => p?.state === "Absent"),
        )
        assert.strictEqual((yield* Effect.flip(manager.getCluster("one")))._tag, "ClusterNotFound")
        const before = seen.length
        yield* controller.queue.add(makeRequest({ namespace: ns, name: "a" }, ClusterName("one")))
        yield* until("dropped", () => Effect.map(stateOf(controller, "one"), (p) => p?.dropped === 1))
        assert.strictEqual(seen.length, before, "a removed cluster's request is never reconciled")
        // the other cluster goes on
        yield* (yield* clientOf(w2)).create(Resources.configMaps, cm(ns, "b"))
        yield* until("cluster two goes on", () => seen.includes(`cluster://two/${ns}/b`))
      }).pipe(Effect.scoped),
    120_000,
  )

  it.live(
    "an API server that goes away is disengaged at the failure threshold and re-engaged when it returns; the other cluster goes on",
    () =>
      Effect.gen(function* () {
        const { hub, workloads } = hubAndWorkloads()
        const hubClient = yield* clientOf(hub)
        const ns = yield* createNamespace(hubClient, "mc-health")
        const [w1, w2] = workloads as [Cluster, Cluster]
        const c1 = yield* clientOf(w1)
        const c2 = yield* clientOf(w2)
        for (const c of [c1, c2]) yield* c.create(Resources.namespaces, { metadata: { name: ns } })
        const proxy = yield* tcpProxy(new URL(w1.server))
        yield* hubClient.create(
          Resources.secrets,
          secretOf(ns, "flaky", w1.admin.kubeconfig.replace(w1.server, proxy.url)),
        )
        yield* hubClient.create(Resources.secrets, secretOf(ns, "steady", w2.admin.kubeconfig))
        const provider = yield* makeKubeconfigSecretsProvider(hubClient, {
          namespace: ns,
          health: { interval: "500 millis", timeout: "2 seconds", failureThreshold: 3 },
        })
        const manager = yield* makeManager({ hub: yield* makeCluster({ client: hubClient }), provider })
        const seen: Array<string> = []
        const controller = yield* uniform(manager, ns, seen)
        yield* manager.start
        yield* c1.create(Resources.configMaps, cm(ns, "before"))
        yield* until("flaky engaged and reconciled", () => seen.includes(`cluster://flaky/${ns}/before`))
        yield* proxy.down
        yield* until("flaky disengaged as unhealthy", () =>
          Effect.map(stateOf(controller, "flaky"), (p) => p?.state === "Unhealthy"),
        )
        const state = (yield* provider.clusters).find((c) => c.name === "flaky")
        assert.deepStrictEqual([state?.engaged, state?.healthy], [false, false])
        assert.include(state?.reason ?? "", "3")
        // reconciles on the other cluster go on while flaky is away
        yield* c2.create(Resources.configMaps, cm(ns, "during"))
        yield* until("steady goes on", () => seen.includes(`cluster://steady/${ns}/during`))
        yield* c1.create(Resources.configMaps, cm(ns, "after"))
        yield* proxy.up
        yield* until("flaky engaged again", () =>
          Effect.map(stateOf(controller, "flaky"), (p) => p?.state === "Engaged"),
        )
        yield* until("flaky reconciles again", () => seen.includes(`cluster://flaky/${ns}/after`))
      }).pipe(Effect.scoped),
    120_000,
  )

  it.live(
    "two sharded replicas split six clusters, each engaged by exactly one; each takes over the other's when it dies",
    () =>
      Effect.gen(function* () {
        const { hub, workloads } = hubAndWorkloads()
        const hubClient = yield* clientOf(hub)
        const ns = yield* createNamespace(hubClient, "mc-shard")
        const names = ["s1", "s2", "s3", "s4", "s5", "s6"]
        for (const [i, n] of names.entries())
          yield* hubClient.create(
            Resources.secrets,
            secretOf(ns, n, (workloads[i % 2] as Cluster).admin.kubeconfig),
          )
        const prefix = `shard-${suffix()}`
        const timing = { leaseDuration: 3_000, renewDeadline: 2_000, retryPeriod: 500 }

        /** A replica: its own hub client (that a test can cut, as if the process died), provider, manager. */
        const replica = (identity: string) =>
          Effect.gen(function* () {
            const scope = yield* Scope.make()
            const cut = { on: false }
            const base = yield* clientOf(hub)
            const client = cuttable(base, cut)
            const provider: Provider = yield* makeKubeconfigSecretsProvider(client, { namespace: ns }).pipe(
              Scope.provide(scope),
            )
            const manager = yield* makeManager({
              hub: yield* makeCluster({ client }).pipe(Scope.provide(scope)),
              provider,
              gate: makeShardGate(client, { namespace: ns, leasePrefix: prefix, identity, ...timing }),
            }).pipe(Scope.provide(scope))
            yield* manager.start.pipe(Scope.provide(scope))
            const engaged = Effect.map(manager.clusters, (cs) => cs.map((c) => c.name as string).sort())
            return { scope, cut, engaged }
          })

        const a = yield* replica("replica-a")
        const b = yield* replica("replica-b")
        const split = Effect.gen(function* () {
          const ea = yield* a.engaged
          const eb = yield* b.engaged
          return {
            ea,
            eb,
            ok: [...ea, ...eb].sort().join() === names.join() && ea.every((c) => !eb.includes(c)),
          }
        })
        yield* until("six clusters split between two replicas", () => Effect.map(split, (s) => s.ok), 60_000)
        const { ea } = yield* split
        for (const c of ea) assert.strictEqual(ownerOf(c, ["replica-a", "replica-b"]), "replica-a")
        // A dies (cut off from the hub: it can no longer renew): B takes everything.
        a.cut.on = true
        yield* until(
          "b takes over a's clusters",
          () => Effect.map(b.engaged, (e) => e.join() === names.join()),
          60_000,
        )
        yield* until("a let go", () => Effect.map(a.engaged, (e) => e.length === 0), 10_000)
        yield* Scope.close(a.scope, Exit.void)
        // A new replica joins and takes its share; then B dies and the newcomer takes B's.
        const c = yield* replica("replica-c")
        yield* until("split with the newcomer", () =>
          Effect.gen(function* () {
            const eb = yield* b.engaged
            const ec = yield* c.engaged
            return (
              [...eb, ...ec].sort().join() === names.join() &&
              ec.length > 0 &&
              eb.every((x) => !ec.includes(x))
            )
          }),
        )
        b.cut.on = true
        yield* until(
          "c takes over b's clusters",
          () => Effect.map(c.engaged, (e) => e.join() === names.join()),
          60_000,
        )
        yield* Scope.close(b.scope, Exit.void)
        yield* Scope.close(c.scope, Exit.void)
      }).pipe(Effect.scoped),
    180_000,
  )
})

/** A client that fails every call while `cut.on`: a replica that can no longer reach the hub. */
const cuttable = (client: KubeClientShape, cut: { on: boolean }): KubeClientShape => {
  const fail = () => new Unreachable({ verb: "any", path: "/", message: "replica cut off (e2e)" })
  const guard = <F>(f: F): F =>
    ((...args: Array<unknown>) =>
      Effect.suspend(() =>
        cut.on
          ? Effect.fail(fail())
          : (f as (...a: Array<unknown>) => Effect.Effect<unknown, unknown>)(...args),
      )) as unknown as F
  return {
    ...client,
    get: guard(client.get),
    list: guard(client.list),
    listAll: guard(client.listAll),
    create: guard(client.create),
    update: guard(client.update),
    patch: guard(client.patch),
    delete: guard(client.delete),
    probe: guard(client.probe),
    raw: guard(client.raw),
    watch: (ref, o) =>
      Stream.unwrap(
        Effect.suspend(() => (cut.on ? Effect.fail(fail()) : Effect.succeed(client.watch(ref, o)))),
      ),
  }
}
