import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ClusterAction } from "../../core/cluster/actions.ts"
import type { ClusterStatus } from "../../core/cluster/types.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { ClusterResource } from "../clustercache/service.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import { Store } from "../reflector/store.ts"
import { type ClusterOutcome, type InterpretContext, makeRun } from "./interpret.ts"
import { statusPatch } from "./patches.ts"

const c = { namespace: "default", name: "c1" }
const cond = (type: string, status: "True" | "False", reason: string) => ({
  type,
  status,
  reason,
  lastTransitionTime: "2026-01-01T00:00:00Z",
})

describe("statusPatch", () => {
  it("patches only changed fields and keeps conditions that other controllers own", () => {
    const current: ClusterStatus = {
      phase: "Provisioning",
      conditions: [
        cond("InfrastructureReady", "False", "NotReady"),
        cond("TopologyReconciled", "True", "Reconciled"),
      ],
    }
    const next: ClusterStatus = {
      phase: "Provisioning",
      conditions: [cond("InfrastructureReady", "True", "Ready")],
    }
    assert.deepStrictEqual(statusPatch(current, next), {
      conditions: [
        cond("InfrastructureReady", "True", "Ready"),
        cond("TopologyReconciled", "True", "Reconciled"),
      ],
    })
    assert.deepStrictEqual(statusPatch(next, next), {})
  })

  it("writes another writer's condition once, even when the core's status carries it over (krtt chaos: reorder, seed 1)", () => {
    const foreign = cond("example.com/Audited", "True", "Audited")
    const current: ClusterStatus = {
      phase: "Provisioning",
      conditions: [cond("InfrastructureReady", "False", "NotReady"), foreign],
    }
    // The core decides from the observed status, so its conditions include the foreign one.
    const next: ClusterStatus = {
      phase: "Provisioning",
      conditions: [cond("InfrastructureReady", "True", "Ready"), foreign],
    }
    const patch = statusPatch(current, next) as { conditions: ReadonlyArray<{ type: string }> }
    assert.deepStrictEqual(
      patch.conditions.map((x) => x.type),
      ["InfrastructureReady", "example.com/Audited"],
    )
    // Once written, the same decision changes nothing: no write storm.
    const written = { ...current, conditions: patch.conditions } as ClusterStatus
    assert.deepStrictEqual(statusPatch(written, next), {})
  })

  it("unsets the counters and fields the controller no longer knows, and keeps other writers' fields", () => {
    const current = {
      phase: "Provisioned",
      controlPlane: { replicas: 3, readyReplicas: 2 },
      workers: { replicas: 1 },
      failureDomains: [{ name: "a" }],
      versions: { kubernetes: "v1.34.0" },
    } as ClusterStatus
    const next: ClusterStatus = { phase: "Provisioned", controlPlane: { replicas: 3 } }
    assert.deepStrictEqual(statusPatch(current, next), {
      controlPlane: { readyReplicas: null },
      workers: null,
      failureDomains: null,
    })
  })
})

const unused = () => Effect.die("unused")

/**
 * Carries out `actions` in order as one run would, until one is refused or asks for a requeue:
 * the outcome of the last action carried out.
 */
const interpret = (ctx: InterpretContext, actions: ReadonlyArray<ClusterAction>) =>
  Effect.gen(function* () {
    const run = makeRun(ctx)
    const decided = { actions, status: undefined, row: "cluster.normal#17" } as const
    let outcome: ClusterOutcome = { _tag: "Done" }
    for (const action of actions) {
      outcome = yield* run(action, decided)
      if (outcome._tag !== "Done") return outcome
    }
    return outcome
  })

const INFRA: ResourceRef = {
  group: "infrastructure.example.com",
  version: "v1",
  resource: "exampleinfraclusters",
  kind: "ExampleInfraCluster",
  namespaced: true,
}
const patchInfra: ClusterAction = {
  _tag: "PatchExternal",
  role: "infrastructure",
  ref: { apiGroup: INFRA.group, kind: INFRA.kind, namespace: c.namespace, name: c.name },
  ownerReference: { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", name: c.name, uid: "u1" },
  labels: { "cluster.x-k8s.io/cluster-name": c.name },
}

/** An InfraCluster on a fresh server, a store holding `cached` of it, and the requests made. */
const providerSetup = (
  cached: (created: KubeObject, server: KubeClientShape) => Effect.Effect<KubeObject, KubeError>,
) =>
  Effect.gen(function* () {
    const fake = yield* FakeApiServer.make()
    fake.register(INFRA)
    const client = yield* makeMemoryClient(fake)
    const created = yield* client.create(INFRA, {
      apiVersion: `${INFRA.group}/v1`,
      kind: INFRA.kind,
      metadata: { ...c, labels: { mine: "yes" } },
    })
    const store = new Store<KubeObject>()
    store.upsert(yield* cached(created, client))
    const gets: Array<string> = []
    const counted: KubeClientShape = {
      ...client,
      get: (ref, key) =>
        Effect.suspend(() => {
          gets.push(ref.resource)
          return client.get(ref, key)
        }),
    }
    const ctx = {
      client: counted,
      resolve: () => Effect.succeed(INFRA),
      external: () => Effect.succeed(store),
      cluster: undefined,
      component: "test",
    }
    const outcome = yield* interpret(ctx, [patchInfra])
    return { outcome, gets, after: yield* client.get(INFRA, c) }
  })

describe("interpret: PatchExternal", () => {
  it.effect(
    "reads the provider object from its kind's store: no live GET (Cluster Reconciler: Set Owner Ref & Labels)",
    () =>
      Effect.gen(function* () {
        const { outcome, gets, after } = yield* providerSetup((created) => Effect.succeed(created))
        assert.deepStrictEqual(outcome, { _tag: "Done" })
        assert.deepStrictEqual(gets, [])
        assert.deepStrictEqual(
          after.metadata.ownerReferences?.map((r) => r.name),
          [c.name],
        )
        assert.deepStrictEqual(after.metadata.labels, {
          mine: "yes",
          "cluster.x-k8s.io/cluster-name": c.name,
        })
      }),
  )

  it.effect(
    "a store that is behind costs a Conflict and one live read, and keeps what was written meanwhile",
    () =>
      Effect.gen(function* () {
        const { outcome, gets, after } = yield* providerSetup((created, client) =>
          Effect.as(
            client.patch(INFRA, c, { type: "merge", body: { metadata: { labels: { theirs: "yes" } } } }),
            created,
          ),
        )
        assert.deepStrictEqual(outcome, { _tag: "Done" })
        assert.deepStrictEqual(gets, [INFRA.resource])
        assert.deepStrictEqual(after.metadata.labels, {
          mine: "yes",
          theirs: "yes",
          "cluster.x-k8s.io/cluster-name": c.name,
        })
      }),
  )

  it.effect("replaces an older reference to the same Cluster where it stands, keeping the others", () =>
    Effect.gen(function* () {
      const other = (name: string) => ({ apiVersion: "example.com/v1", kind: "Owner", name, uid: name })
      const stale = { apiVersion: "cluster.x-k8s.io/v1beta1", kind: "Cluster", name: c.name, uid: "u1" }
      const { outcome, after } = yield* providerSetup((_, client) =>
        client.patch(INFRA, c, {
          type: "merge",
          body: { metadata: { ownerReferences: [other("a"), stale, other("b")] } },
        }),
      )
      assert.deepStrictEqual(outcome, { _tag: "Done" })
      assert.deepStrictEqual(after.metadata.ownerReferences, [
        other("a"),
        { apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster", name: c.name, uid: "u1" },
        other("b"),
      ])
    }),
  )

  it.effect("an object missing from the store fails the action and names it", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      fake.register(INFRA)
      const client = yield* makeMemoryClient(fake)
      const ctx = {
        client,
        resolve: () => Effect.succeed(INFRA),
        external: () => Effect.succeed(new Store<KubeObject>()),
        cluster: undefined,
        component: "test",
      }
      const outcome = yield* interpret(ctx, [patchInfra])
      assert.strictEqual(outcome._tag, "Failed")
      if (outcome._tag === "Failed") {
        assert.match(outcome.failure.message, /ExampleInfraCluster default\/c1/)
        assert.strictEqual(outcome.failure._tag, "NotFound")
      }
    }),
  )
})

describe("interpret", () => {
  it.effect("several writes to the Cluster in one reconcile do not conflict with each other", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      fake.register(ClusterResource)
      const client = yield* makeMemoryClient(fake)
      const cluster = yield* client.create(ClusterResource, {
        apiVersion: "cluster.x-k8s.io/v1beta2",
        kind: "Cluster",
        metadata: { ...c, finalizers: ["cluster.cluster.x-k8s.io", "other"] },
      })
      const ctx = { client, resolve: unused, external: unused, cluster, component: "test" }
      const outcome = yield* interpret(ctx, [
        { _tag: "PatchStatus", cluster: c, status: { phase: "Deleting" } },
        { _tag: "RemoveFinalizer", cluster: c, finalizer: "cluster.cluster.x-k8s.io" },
        { _tag: "Requeue", after: 5_000 },
      ])
      assert.deepStrictEqual(outcome, { _tag: "Requeue", after: 5_000 })
      const after = yield* client.get(ClusterResource, c)
      assert.deepStrictEqual(after.metadata.finalizers, ["other"])
      assert.strictEqual((after as { status?: ClusterStatus }).status?.phase, "Deleting")
    }),
  )

  it.effect(
    "a status patch that conflicts is recomputed against a fresh read: a condition written meanwhile survives",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeApiServer.make()
        fake.register(ClusterResource)
        const client = yield* makeMemoryClient(fake)
        const cluster = yield* client.create(ClusterResource, {
          apiVersion: "cluster.x-k8s.io/v1beta2",
          kind: "Cluster",
          metadata: { ...c },
        })
        // Another controller writes its condition after our read.
        yield* client.patchStatus(ClusterResource, c, {
          type: "merge",
          body: { status: { conditions: [cond("TopologyReconciled", "True", "Reconciled")] } },
        })
        const ctx = { client, resolve: unused, external: unused, cluster, component: "test" }
        const outcome = yield* interpret(ctx, [
          {
            _tag: "PatchStatus",
            cluster: c,
            status: { conditions: [cond("InfrastructureReady", "True", "Ready")] },
          },
        ])
        assert.deepStrictEqual(outcome, { _tag: "Done" })
        const after = (yield* client.get(ClusterResource, c)) as { status?: ClusterStatus }
        assert.deepStrictEqual(
          after.status?.conditions?.map((x) => x.type),
          ["InfrastructureReady", "TopologyReconciled"],
        )
      }),
  )

  it.effect("a write with a stale resourceVersion stops the actions and names the failed one", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      fake.register(ClusterResource)
      const client = yield* makeMemoryClient(fake)
      const cluster = yield* client.create(ClusterResource, {
        apiVersion: "cluster.x-k8s.io/v1beta2",
        kind: "Cluster",
        metadata: { ...c },
      })
      yield* client.patch(ClusterResource, c, {
        type: "merge",
        body: { metadata: { labels: { changed: "yes" } } },
      })
      const ctx = { client, resolve: unused, external: unused, cluster, component: "test" }
      const outcome = yield* interpret(ctx, [
        { _tag: "AddFinalizer", cluster: c, finalizer: "cluster.cluster.x-k8s.io" },
        { _tag: "Requeue", after: 1 },
      ])
      assert.strictEqual(outcome._tag, "Failed")
      if (outcome._tag === "Failed") {
        assert.strictEqual(
          outcome.trigger._tag === "ActionFailed" && outcome.trigger.action._tag,
          "AddFinalizer",
        )
        assert.match(outcome.failure.message, /^Conflict/)
        assert.strictEqual(outcome.failure._tag, "Conflict")
      }
    }),
  )
})
