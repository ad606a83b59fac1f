import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { TestClock } from "effect/testing"
import { ClusterNameLabel } from "../../core/cluster/contract.ts"
import { tokenKubeConfig } from "../apiserver/http.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { CONTROL_PLANE, INFRA, installProviders } from "../chaos/scenarios.ts"
import { makeClusterCacheController } from "../clustercache/controller.ts"
import { ClusterResource, make as makeClusterCache } from "../clustercache/service.ts"
import { KubeClient, type KubeClientShape } from "../kube/client.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, type ResourceRef, Resources } from "../kube/resource.ts"
import { make as makeReflector } from "../reflector/reflector.ts"
import { makeClusterController } from "./controller.ts"

const NS = "requests"
const TICK = 100
/** Virtual time the Clusters get to become Provisioned and probed: the test fails past it. */
const MAX_TICKS = 600

/** One request the controllers made: its verb, its resource and how the server answered. */
interface Call {
  readonly verb: string
  readonly resource: string
  readonly outcome: string
}

/** `client`, recording every request it makes in `calls`. */
const counting = (client: KubeClientShape, calls: Array<Call>): KubeClientShape => {
  const rec =
    (verb: string) =>
    <A, E extends { readonly _tag: string }, R>(resource: string, e: Effect.Effect<A, E, R>) =>
      Effect.onExit(e, (exit) =>
        Effect.sync(() => {
          const outcome = Exit.isSuccess(exit)
            ? "OK"
            : (exit.cause.reasons.find((r) => r._tag === "Fail")?.error as { _tag?: string } | undefined)
                ?._tag
          calls.push({ verb, resource, outcome: outcome ?? "Interrupted" })
        }),
      )
  const r = (ref: ResourceRef) => ref.resource
  return {
    get: (ref, key) => rec("get")(r(ref), client.get(ref, key)),
    list: (ref, o) => rec("list")(r(ref), client.list(ref, o)),
    listAll: (ref, o) => rec("list")(r(ref), client.listAll(ref, o)),
    create: (ref, o, w) => rec("create")(r(ref), client.create(ref, o, w)),
    update: (ref, o, w) => rec("update")(r(ref), client.update(ref, o, w)),
    patch: (ref, k, p, o) => rec("patch")(r(ref), client.patch(ref, k, p, o)),
    delete: (ref, k, o) => rec("delete")(r(ref), client.delete(ref, k, o)),
    getStatus: (ref, k) => rec("get")(`${r(ref)}/status`, client.getStatus(ref, k)),
    updateStatus: (ref, o, w) => rec("update")(`${r(ref)}/status`, client.updateStatus(ref, o, w)),
    patchStatus: (ref, k, p, o) => rec("patch")(`${r(ref)}/status`, client.patchStatus(ref, k, p, o)),
    watch: (ref, o) => client.watch(ref, o),
    probe: (o) => rec("probe")("", client.probe(o)),
    raw: (q) => rec(q.verb ?? q.method.toLowerCase())(q.path, client.raw(q)),
  }
}

/** The `<cluster>-kubeconfig` Secret's value (the ClusterCache connects through the in-memory server). */
const kubeconfig = (name: string) =>
  Buffer.from(tokenKubeConfig(`https://${name}.example:6443`, "t").exportConfig()).toString("base64")

/**
 * A Cluster whose providers are ready before it is created, as bench/operator.ts and
 * bench/compare.ts create them: an InfraCluster (provisioned), a ControlPlane (initialized) and
 * the `<cluster>-kubeconfig` Secret.
 */
const createReadyCluster = (mgmt: FakeApiServer, name: string) =>
  Effect.gen(function* () {
    const c = mgmt.client()
    const key = { namespace: NS, name }
    const endpoint = { host: `${name}.example`, port: 6443 }
    for (const [ref, spec, status] of [
      [INFRA, { controlPlaneEndpoint: endpoint }, { initialization: { provisioned: true } }],
      [
        CONTROL_PLANE,
        { replicas: 1, version: "v1.34.4", controlPlaneEndpoint: endpoint },
        { initialization: { controlPlaneInitialized: true }, replicas: 1, readyReplicas: 1 },
      ],
    ] as const) {
      yield* c.create(ref, {
        apiVersion: `${ref.group}/${ref.version}`,
        kind: ref.kind,
        metadata: key,
        spec,
      } as KubeObject)
      yield* c.patchStatus(ref, key, mergePatch({ status }))
    }
    yield* c.create(Resources.secrets, {
      apiVersion: "v1",
      kind: "Secret",
      type: "cluster.x-k8s.io/secret",
      metadata: { namespace: NS, name: `${name}-kubeconfig`, labels: { [ClusterNameLabel]: name } },
      data: { value: kubeconfig(name) },
    } as KubeObject)
    yield* c.create(ClusterResource, {
      apiVersion: "cluster.x-k8s.io/v1beta2",
      kind: "Cluster",
      metadata: key,
      spec: {
        infrastructureRef: { apiGroup: INFRA.group, kind: INFRA.kind, name },
        controlPlaneRef: { apiGroup: CONTROL_PLANE.group, kind: CONTROL_PLANE.kind, name },
      },
    } as KubeObject)
  })

interface ClusterView {
  readonly status?: {
    readonly phase?: string
    readonly conditions?: ReadonlyArray<{ readonly type: string; readonly status: string }>
  }
}
const settled = (o: KubeObject) => {
  const s = (o as ClusterView).status
  return (
    s?.phase === "Provisioned" &&
    s.conditions?.some((x) => x.type === "RemoteConnectionProbe" && x.status === "True") === true
  )
}

/**
 * Runs the Cluster controller and the ClusterCache as `krtt run` wires them (Clusters and their
 * Secrets from reflectors) on the in-memory API server until `n` ready Clusters are Provisioned
 * and probed; returns the management requests made.
 */
const provision = (n: number) =>
  Effect.gen(function* () {
    const mgmt = yield* FakeApiServer.make()
    yield* installProviders(mgmt)
    const workload = yield* FakeApiServer.make()
    const calls: Array<Call> = []
    const client = counting(yield* makeMemoryClient(mgmt), calls)
    const clusters = yield* makeReflector(client, { resource: ClusterResource, name: "clusters" })
    const secrets = yield* makeReflector(client, {
      resource: Resources.secrets,
      name: "secrets",
      labelSelector: ClusterNameLabel,
    })
    yield* secrets.waitForSync
    const cache = yield* makeClusterCache({
      clusters: clusters.store,
      secrets: secrets.store,
      connectionFactory: () => makeMemoryClient(workload),
    }).pipe(Effect.provideService(KubeClient, client))
    const cc = yield* makeClusterCacheController(cache, clusters, { concurrency: 10, secrets })
    const controller = yield* makeClusterController(
      { client, clusters, cache },
      { concurrency: 10, secrets: secrets.store },
    )
    yield* cc.start
    yield* controller.start
    for (let i = 0; i < n; i++) yield* createReadyCluster(mgmt, `c${i}`)
    for (let tick = 0; ; tick++) {
      if (mgmt.objects(ClusterResource).every(settled)) break
      if (tick >= MAX_TICKS)
        return yield* Effect.die(new Error(`not all Clusters Provisioned and probed after ${tick} ticks`))
      yield* TestClock.adjust(TICK)
    }
    return calls.filter((c) => c.verb !== "probe" && c.verb !== "list")
  })

const count = (calls: ReadonlyArray<Call>, verb: string, resource: string, outcome = "OK") =>
  calls.filter((c) => c.verb === verb && c.resource === resource && c.outcome === outcome).length

describe("Cluster controller: management requests", () => {
  it.effect(
    "reads the InfraCluster and ControlPlane it patches from their watch-backed stores, never live (Cluster Reconciler, reconcileInfrastructure / reconcileControlPlane: set the owner reference and cluster-name label)",
    () =>
      Effect.gen(function* () {
        const calls = yield* Effect.scoped(provision(3))
        assert.strictEqual(count(calls, "get", INFRA.resource), 0)
        assert.strictEqual(count(calls, "get", CONTROL_PLANE.resource), 0)
        // Each provider object still gets its one patch (owner reference, label).
        assert.strictEqual(count(calls, "patch", INFRA.resource), 3)
        assert.strictEqual(count(calls, "patch", CONTROL_PLANE.resource), 3)
      }),
  )

  it.effect(
    "a Cluster's status patches never conflict with the controller's own earlier writes, so no Cluster is read live",
    () =>
      Effect.gen(function* () {
        const calls = yield* Effect.scoped(provision(3))

        const conflicts = calls.filter((c) => c.outcome === "Conflict")
        assert.deepStrictEqual(conflicts, [])
        assert.strictEqual(
          calls.filter((c) => c.verb === "get" && c.resource.startsWith(ClusterResource.resource)).length,
          0,
        )
        assert.isAbove(count(calls, "patch", "clusters/status"), 0)
      }),
  )
})
