import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { CONTROL_PLANE, INFRA, installProviders } from "../chaos/scenarios.ts"
import { ClusterResource } from "../clustercache/service.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { render, type WhyFlags, whyClusters } from "./run.ts"

const NS = "fleet"

/** `client`, recording the verb of every request. */
const recording = (client: KubeClientShape, verbs: Array<string>): KubeClientShape => {
  const rec =
    (verb: string) =>
    <A, E, R>(e: Effect.Effect<A, E, R>) =>
      Effect.andThen(
        Effect.sync(() => void verbs.push(verb)),
        e,
      )
  return {
    get: (r, k) => rec("get")(client.get(r, k)),
    list: (r, o) => rec("list")(client.list(r, o)),
    listAll: (r, o) => rec("list")(client.listAll(r, o)),
    create: (r, o, w) => rec("create")(client.create(r, o, w)),
    update: (r, o, w) => rec("update")(client.update(r, o, w)),
    patch: (r, k, p, o) => rec("patch")(client.patch(r, k, p, o)),
    delete: (r, k, o) => rec("delete")(client.delete(r, k, o)),
    getStatus: (r, k) => rec("get")(client.getStatus(r, k)),
    updateStatus: (r, o, w) => rec("update")(client.updateStatus(r, o, w)),
    patchStatus: (r, k, p, o) => rec("patch")(client.patchStatus(r, k, p, o)),
    watch: (r, o) => client.watch(r, o),
    probe: (o) => rec("probe")(client.probe(o)),
    raw: (q) => rec(q.verb ?? q.method.toLowerCase())(client.raw(q)),
  }
}

/** A Cluster with its providers; `provisioned` says whether they report ready. */
const createCluster = (mgmt: FakeApiServer, name: string, provisioned: boolean) =>
  Effect.gen(function* () {
    const c = mgmt.client()
    const key = { namespace: NS, name }
    const endpoint = { host: `${name}.example`, port: 6443 }
    for (const [ref, spec, status] of [
      [INFRA, { controlPlaneEndpoint: endpoint }, { initialization: { provisioned } }],
      [
        CONTROL_PLANE,
        { replicas: 1, version: "v1.34.4", controlPlaneEndpoint: endpoint },
        { initialization: { controlPlaneInitialized: provisioned }, replicas: 1, readyReplicas: 1 },
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
    yield* c.create(ClusterResource, {
      apiVersion: "cluster.x-k8s.io/v1beta2",
      kind: "Cluster",
      metadata: { ...key, finalizers: ["cluster.cluster.x-k8s.io"] },
      spec: {
        infrastructureRef: { apiGroup: INFRA.group, kind: INFRA.kind, name },
        controlPlaneRef: { apiGroup: CONTROL_PLANE.group, kind: CONTROL_PLANE.kind, name },
      },
    } as KubeObject)
  })

const flags = (over: Partial<WhyFlags>): WhyFlags => ({
  target: undefined,
  all: false,
  namespace: undefined,
  json: false,
  probe: false,
  ...over,
})

const setup = Effect.gen(function* () {
  const mgmt = yield* FakeApiServer.make()
  yield* installProviders(mgmt)
  yield* mgmt
    .client()
    .create(Resources.namespaces, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: NS },
    } as KubeObject)
    .pipe(Effect.ignore)
  const verbs: Array<string> = []
  const client = recording(yield* makeMemoryClient(mgmt), verbs)
  return { mgmt, client, verbs }
})

/** Writes the status krtt's tables expect as the Cluster's actual status, with the Paused condition False. */
const settle = (mgmt: FakeApiServer, client: KubeClientShape, name: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 3; i++) {
      const [d] = yield* whyClusters(client, flags({ target: `${NS}/${name}` }))
      yield* mgmt
        .client()
        .patchStatus(ClusterResource, { namespace: NS, name }, mergePatch({ status: d?.expectedStatus }))
    }
  })

describe("krtt why cluster", () => {
  it.effect("names the infrastructure object and field a Cluster waits on, reading only", () =>
    Effect.gen(function* () {
      const { mgmt, client, verbs } = yield* setup
      yield* createCluster(mgmt, "c1", false)
      yield* settle(mgmt, client, "c1")
      verbs.length = 0
      const [d] = yield* whyClusters(client, flags({ target: `${NS}/c1` }))
      const infra = d?.rows.find((r) => r.table === "cluster.infrastructure")
      assert.strictEqual(infra?.row, "cluster.infrastructure#2")
      assert.strictEqual(
        infra?.waitingOn,
        `ChaosInfraCluster ${NS}/c1 status.initialization.provisioned is not true`,
      )
      assert.include(d?.rows[0]?.waitingOn ?? "", "ChaosInfraCluster fleet/c1")
      assert.isTrue(d?.rows.some((r) => r.table === "clustercache.reconciler"))
      assert.deepStrictEqual([...new Set(verbs)].sort(), ["get", "list"])
    }),
  )

  it.effect("a provisioned Cluster whose status is the tables' has 0 differences", () =>
    Effect.gen(function* () {
      const { mgmt, client } = yield* setup
      yield* createCluster(mgmt, "c2", true)
      yield* settle(mgmt, client, "c2")
      const [d] = yield* whyClusters(client, flags({ target: `${NS}/c2` }))
      assert.strictEqual(d?.expectedStatus?.phase, "Provisioned")
      assert.deepStrictEqual(d?.differences, [])
      assert.include(render(d === undefined ? [] : [d], flags({})), "0 differences")
    }),
  )

  it.effect("lists each field of the actual status that differs", () =>
    Effect.gen(function* () {
      const { mgmt, client } = yield* setup
      yield* createCluster(mgmt, "c3", true)
      yield* settle(mgmt, client, "c3")
      yield* mgmt
        .client()
        .patchStatus(
          ClusterResource,
          { namespace: NS, name: "c3" },
          mergePatch({ status: { phase: "Pending" } }),
        )
      const [d] = yield* whyClusters(client, flags({ target: `${NS}/c3` }))
      assert.deepStrictEqual(d?.differences, [
        { field: "status.phase", actual: "Pending", expected: "Provisioned" },
      ])
    }),
  )

  it.effect("--all --json prints every Cluster in the documented shape", () =>
    Effect.gen(function* () {
      const { mgmt, client } = yield* setup
      yield* createCluster(mgmt, "a", true)
      yield* createCluster(mgmt, "b", false)
      const f = flags({ all: true, json: true, namespace: NS })
      const doc = JSON.parse(render(yield* whyClusters(client, f), f)) as {
        clusters: Array<{
          name: string
          rows: Array<Record<string, unknown>>
          expectedStatus: unknown
          differences: Array<Record<string, unknown>>
        }>
      }
      assert.deepStrictEqual(
        doc.clusters.map((c) => c.name),
        [`${NS}/a`, `${NS}/b`],
      )
      for (const c of doc.clusters) {
        assert.includeMembers(Object.keys(c), ["name", "rows", "expectedStatus", "differences"])
        for (const r of c.rows) assert.includeMembers(Object.keys(r), ["table", "row", "text"])
      }
      const text = render(yield* whyClusters(client, flags({ all: true })), flags({ all: true }))
      assert.strictEqual(text.split("\n").length, 2)
      assert.match(text, /^fleet\/a {2}cluster\.normal#\d+.* {2}differences: \d+$/m)
    }),
  )

  it.effect("a missing Cluster and a malformed name are usage errors naming the argument", () =>
    Effect.gen(function* () {
      const { client } = yield* setup
      const missing = yield* Effect.flip(whyClusters(client, flags({ target: `${NS}/nope` })))
      assert.strictEqual(missing.message, `NAMESPACE/NAME: Cluster ${NS}/nope not found`)
      const bad = yield* Effect.flip(whyClusters(client, flags({ target: "nope" })))
      assert.include(bad.message, "NAMESPACE/NAME")
    }),
  )
})
