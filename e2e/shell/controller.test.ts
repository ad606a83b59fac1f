// The pieces together on a real kube-apiserver: two reflectors, a controller fed by an object
// source and an owner source, reconciling with server-side apply. The controller keeps a mirror
// ConfigMap (`<name>-mirror`, owned by its source) for every ConfigMap labelled
// `e2e.krtt.dev/mirror=source`.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { make as makeController } from "../../shell/controller/controller.ts"
import { enqueueRequestForObject, enqueueRequestForOwner } from "../../shell/controller/handler.ts"
import { done } from "../../shell/controller/result.ts"
import * as Source from "../../shell/controller/source.ts"
import type { KubeClientShape } from "../../shell/kube/client.ts"
import { applyPatch, mergePatch } from "../../shell/kube/patch.ts"
import { controllerReference, type KubeObject, Resources } from "../../shell/kube/resource.ts"
import { make as makeReflector } from "../../shell/reflector/reflector.ts"
import type { Request } from "../../shell/workqueue/request.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import { clientOf, createNamespace, eventually } from "./support.ts"

const shared = sharedControlPlane()
const hub = shared.clusters[0]
if (hub === undefined) throw new Error("the shared control plane has no cluster")

const cms = Resources.configMaps
const label = "e2e.krtt.dev/mirror"

/** The mirror controller's reconcile: make the mirror match the source, or remove it. */
const reconcileMirror =
  (client: KubeClientShape, sourceOf: (r: Request) => KubeObject | undefined) => (r: Request) =>
    Effect.gen(function* () {
      const source = sourceOf(r)
      const mirror = { namespace: r.namespace, name: `${r.name}-mirror` }
      if (source === undefined || source.metadata.deletionTimestamp !== undefined) {
        yield* client.delete(cms, mirror).pipe(Effect.catchTag("NotFound", () => Effect.void))
        return done("e2e.mirror#2")
      }
      yield* client.patch(
        cms,
        mirror,
        applyPatch({
          metadata: {
            ...mirror,
            labels: { [label]: "mirror" },
            ownerReferences: [controllerReference(source)],
          },
          data: source.data,
        }),
        { fieldManager: "krtt-e2e-mirror", force: true },
      )
      return done("e2e.mirror#1")
    })

describe("a controller on a real API server", () => {
  it.live("keeps mirrors in step with their sources through object and owner sources", () =>
    Effect.gen(function* () {
      const client = yield* clientOf(hub)
      const ns = yield* createNamespace(client, "e2e-controller")
      const sources = yield* makeReflector(client, {
        resource: cms,
        namespace: ns,
        labelSelector: `${label}=source`,
      })
      const mirrors = yield* makeReflector(client, {
        resource: cms,
        namespace: ns,
        labelSelector: `${label}=mirror`,
      })
      const scope = yield* Scope.make()
      const controller = yield* Scope.provide(
        makeController({
          name: "e2e-mirror",
          maxConcurrentReconciles: 2,
          reconcile: reconcileMirror(client, (r) =>
            sources.store.get({ namespace: r.namespace, name: r.name }),
          ),
        }),
        scope,
      )
      yield* Scope.provide(controller.watch(Source.kind(sources, enqueueRequestForObject())), scope)
      yield* Scope.provide(
        controller.watch(
          Source.kind(mirrors, enqueueRequestForOwner({ ownerGroup: "", ownerKind: "ConfigMap" })),
        ),
        scope,
      )
      yield* sources.waitForSync
      yield* mirrors.waitForSync
      yield* Scope.provide(controller.start, scope)

      const mirrorData = (name: string) =>
        Effect.map(
          client.get(cms, { namespace: ns, name: `${name}-mirror` }),
          (m) => m.data as Record<string, string> | undefined,
        )
      yield* client.create(cms, {
        metadata: { name: "a", namespace: ns, labels: { [label]: "source" } },
        data: { v: "1" },
      })
      assert.deepStrictEqual(yield* eventually(mirrorData("a")), { v: "1" })

      yield* client.patch(cms, { namespace: ns, name: "a" }, mergePatch({ data: { v: "2" } }))
      yield* eventually(
        Effect.flatMap(mirrorData("a"), (d) => (d?.v === "2" ? Effect.void : Effect.fail("not yet"))),
      )

      yield* client.delete(cms, { namespace: ns, name: "a-mirror" })
      assert.deepStrictEqual(
        yield* eventually(mirrorData("a")),
        { v: "2" },
        "the owner source brings it back",
      )

      yield* client.delete(cms, { namespace: ns, name: "a" })
      yield* eventually(
        Effect.flatMap(Effect.result(mirrorData("a")), (r) =>
          r._tag === "Failure" && r.failure._tag === "NotFound"
            ? Effect.void
            : Effect.fail("mirror still there"),
        ),
      )
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(yield* controller.activeWorkers, 0)
    }),
  )
})
