// The providers with the multi-cluster manager (seed 003, Proposal: "ctrl.Manager will implement
// cluster.Aware"): a health-gated provider's verdict reaches the controller's pair as Unhealthy
// (not Removed), reconciles on the other clusters go on, and the cluster reconciles again once it
// is healthy; a rotation reconciles with the new generation.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../../apiserver/memoryClient.ts"
import { FakeApiServer } from "../../apiserver/server.ts"
import { done } from "../../controller/result.ts"
import { Resources } from "../../kube/resource.ts"
import type { Request } from "../../workqueue/request.ts"
import { controllerManagedBy } from "../builder.ts"
import { makeCluster } from "../cluster.ts"
import { enqueueRequestForObject } from "../handler.ts"
import { make as makeManager } from "../manager.ts"
import { makeKubeconfigSecretsProvider } from "./kubeconfigSecrets.ts"
import { kubeconfigYaml, until, workloads } from "./testing.ts"

const cms = Resources.configMaps
const label = { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" }
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64")

const setup = Effect.gen(function* () {
  const hubFake = yield* FakeApiServer.make()
  const hubClient = yield* makeMemoryClient(hubFake)
  const w = workloads()
  for (const name of ["east", "west"]) {
    yield* hubClient.create(Resources.secrets, {
      metadata: { namespace: "fleet", name, labels: label },
      data: { kubeconfig: b64(kubeconfigYaml(`https://${name}.example`, `${name}-1`)) },
    })
    yield* (yield* w.server(`https://${name}.example`))
      .client()
      .create(cms, { metadata: { namespace: "default", name: "first" } })
  }
  const provider = yield* makeKubeconfigSecretsProvider(hubClient, {
    namespace: "fleet",
    clientFactory: w.factory,
  })
  const manager = yield* makeManager({ hub: yield* makeCluster({ client: hubClient }), provider })
  const seen: Array<string> = []
  const controller = yield* controllerManagedBy(manager)
    .named("providers-with-manager")
    .watches(cms, enqueueRequestForObject())
    .complete((req: Request) =>
      Effect.sync(() => {
        seen.push(`${req.cluster}/${req.name}`)
        return done()
      }),
    )
  yield* manager.start
  yield* until("both reconciled", () => seen.includes("east/first") && seen.includes("west/first"), 2000)
  const pairState = (cluster: string) =>
    Effect.map(controller.pairs, (ps) => ps.find((p) => p.cluster === cluster)?.state)
  return { hubClient, w, manager, controller, seen, pairState }
})

describe("providers with the multi-cluster manager", () => {
  it.effect("an unhealthy cluster's pair is Unhealthy, the other reconciles on, and it comes back", () =>
    Effect.gen(function* () {
      const { w, seen, pairState } = yield* setup
      const east = yield* w.server("https://east.example")
      east.stop()
      yield* TestClock.adjust("50 seconds")
      yield* until("east unhealthy", () => true)
      assert.strictEqual(yield* pairState("east"), "Unhealthy")
      yield* (yield* w.server("https://west.example"))
        .client()
        .create(cms, { metadata: { namespace: "default", name: "second" } })
      yield* until("west reconciles on", () => seen.includes("west/second"), 2000)
      east.start()
      yield* east.client().create(cms, { metadata: { namespace: "default", name: "after" } })
      yield* TestClock.adjust("10 seconds")
      yield* until("east reconciles again", () => seen.includes("east/after"), 2000)
      assert.strictEqual(yield* pairState("east"), "Engaged")
    }).pipe(Effect.scoped),
  )

  it.effect("a rotated kubeconfig engages the new generation with the controller", () =>
    Effect.gen(function* () {
      const { hubClient, w, manager, seen, pairState } = yield* setup
      const before = (yield* manager.getCluster("east")).generation
      yield* hubClient.patch(
        Resources.secrets,
        { namespace: "fleet", name: "east" },
        {
          type: "merge",
          body: { data: { kubeconfig: b64(kubeconfigYaml("https://east.example", "east-2")) } },
        },
      )
      yield* until("east re-engaged", () => w.built.some((b) => b.token === "east-2"), 2000)
      yield* until("new generation engaged", () => true)
      yield* Effect.gen(function* () {
        for (let i = 0; i < 2000; i++) {
          const c = yield* Effect.result(manager.getCluster("east"))
          if (
            c._tag === "Success" &&
            c.success.generation !== before &&
            (yield* pairState("east")) === "Engaged"
          )
            return
          yield* TestClock.adjust("1 millis")
        }
        assert.fail("the new generation was not engaged")
      })
      yield* (yield* w.server("https://east.example"))
        .client()
        .create(cms, { metadata: { namespace: "default", name: "rotated" } })
      yield* until("east reconciles with the new generation", () => seen.includes("east/rotated"), 2000)
    }).pipe(Effect.scoped),
  )
})
