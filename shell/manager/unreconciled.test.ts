import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import type { KubeClientShape, ListOptions } from "../kube/client.ts"
import { type KubeObject, type ResourceRef, Resources } from "../kube/resource.ts"
import {
  countObjects,
  findUnreconciled,
  pluralOf,
  unreconciledWarning,
  warnUnreconciled,
} from "./unreconciled.ts"

const ref = (group: string, version: string, kind: string, resource: string): ResourceRef => ({
  group,
  version,
  kind,
  resource,
  namespaced: true,
})
const clusters = ref("cluster.x-k8s.io", "v1beta2", "Cluster", "clusters")
const machines = ref("cluster.x-k8s.io", "v1beta2", "Machine", "machines")
const machineSets = ref("cluster.x-k8s.io", "v1beta2", "MachineSet", "machinesets")
const healthChecks = ref("cluster.x-k8s.io", "v1beta2", "MachineHealthCheck", "machinehealthchecks")
const resourceSets = ref("addons.cluster.x-k8s.io", "v1beta2", "ClusterResourceSet", "clusterresourcesets")
const infra = ref("infrastructure.cluster.x-k8s.io", "v1beta2", "DockerMachine", "dockermachines")

const server = (refs: ReadonlyArray<ResourceRef>) =>
  FakeApiServer.make({ resources: [...Object.values(Resources), ...refs] })

const fill = (client: KubeClientShape, r: ResourceRef, n: number, namespace = "default") =>
  Effect.forEach(
    Array.from({ length: n }, (_, i) => i),
    (i) =>
      client.create(r, {
        apiVersion: `${r.group}/${r.version}`,
        kind: r.kind,
        metadata: { name: `o${i}`, namespace },
      }),
    { discard: true },
  )

/** The warning lines `effect` logs. */
const warnings = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const lines: Array<{ message: unknown; annotations: unknown }> = []
    const logger = Logger.make<unknown, void>(({ logLevel, message, fiber }) => {
      if (logLevel === "Warn")
        lines.push({ message, annotations: fiber.getRef(References.CurrentLogAnnotations) })
    })
    yield* effect.pipe(Effect.provide(Logger.layer([logger])))
    return lines
  })

describe("countObjects", () => {
  it.effect("reads the count from one LIST with limit=1, or from the pages without remainingItemCount", () =>
    Effect.gen(function* () {
      const fake = yield* server([machines])
      const client = yield* makeMemoryClient(fake)
      assert.strictEqual(yield* countObjects(client, machines), 0)
      yield* fill(client, machines, 7)
      yield* fill(client, machines, 2, "other")
      assert.strictEqual(yield* countObjects(client, machines), 9)
      assert.strictEqual(yield* countObjects(client, machines, "other"), 2)
      // A server that gives no remainingItemCount: the pages are counted.
      let lists = 0
      const noCount: KubeClientShape = {
        ...client,
        list: <T extends KubeObject>(r: ResourceRef, o?: ListOptions) => {
          lists++
          return Effect.map(client.list<T>(r, o), ({ remainingItemCount: _, ...l }) => l)
        },
      }
      assert.strictEqual(yield* countObjects(noCount, machines), 9)
      assert.strictEqual(lists, 2)
    }),
  )
})

describe("findUnreconciled", () => {
  it.effect("counts every kind of Cluster API's groups but Clusters, and no provider group", () =>
    Effect.gen(function* () {
      const fake = yield* server([clusters, machines, machineSets, healthChecks, resourceSets, infra])
      const client = yield* makeMemoryClient(fake)
      yield* fill(client, clusters, 2)
      yield* fill(client, machines, 12)
      yield* fill(client, machineSets, 3)
      yield* fill(client, infra, 5)
      const report = yield* findUnreconciled(client)
      assert.strictEqual(report._tag, "Found")
      if (report._tag !== "Found") return
      const byKind = Object.fromEntries(
        report.kinds.map((k) => [k.kind, k._tag === "Counted" ? k.count : k.reason]),
      )
      assert.deepStrictEqual(byKind, {
        Machine: 12,
        MachineSet: 3,
        MachineHealthCheck: 0,
        ClusterResourceSet: 0,
      })
    }),
  )

  it.effect("reports a kind it may not list as not counted, and a failed discovery, without failing", () =>
    Effect.gen(function* () {
      const fake = yield* server([clusters, machines, healthChecks])
      const client = yield* makeMemoryClient(fake)
      yield* fill(client, machines, 1)
      fake.inject({ verb: "list", resource: "machinehealthchecks", error: "Forbidden" })
      const report = yield* findUnreconciled(client)
      const warning = unreconciledWarning(report)
      assert.isDefined(warning)
      assert.match(
        warning?.message ?? "",
        /^krtt reconciles only Clusters: found 1 Machine that it does not reconcile; could not count MachineHealthChecks \(Forbidden: /,
      )
      assert.deepStrictEqual(warning?.annotations, {
        unreconciled: "Machine=1",
        uncounted: "MachineHealthCheck",
      })
      fake.inject({ verb: "discovery", error: "Forbidden" })
      const failed = yield* findUnreconciled(client)
      assert.strictEqual(failed._tag, "DiscoveryFailed")
      assert.match(unreconciledWarning(failed)?.message ?? "", /could not discover/)
    }),
  )
})

describe("warnUnreconciled", () => {
  it.effect("logs one warning naming kinds and counts, and nothing when none exist", () =>
    Effect.gen(function* () {
      const fake = yield* server([clusters, machines, machineSets, resourceSets])
      const client = yield* makeMemoryClient(fake)
      yield* fill(client, clusters, 4)
      assert.deepStrictEqual(yield* warnings(warnUnreconciled(client)), [])
      yield* fill(client, machines, 12)
      yield* fill(client, machineSets, 3)
      yield* fill(client, resourceSets, 1)
      const lines = yield* warnings(warnUnreconciled(client))
      assert.strictEqual(lines.length, 1)
      assert.deepStrictEqual(lines[0]?.message, [
        "krtt reconciles only Clusters: found 12 Machines, 3 MachineSets, 1 ClusterResourceSet that it does not reconcile; keep upstream's manager for them (docs/operator.md#scope)",
      ])
    }),
  )

  it("plurals of Cluster API's kinds", () => {
    assert.deepStrictEqual(
      ["Machine", "ClusterClass", "MachineDrainRule", "ClusterResourceSetBinding", "Policy"].map(pluralOf),
      ["Machines", "ClusterClasses", "MachineDrainRules", "ClusterResourceSetBindings", "Policies"],
    )
  })
})
