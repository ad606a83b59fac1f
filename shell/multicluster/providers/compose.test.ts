import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { makeMemoryClient } from "../../apiserver/memoryClient.ts"
import { FakeApiServer } from "../../apiserver/server.ts"
import { Resources } from "../../kube/resource.ts"
import { ClusterName } from "../../workqueue/request.ts"
import { composeProviders } from "./compose.ts"
import { makeKubeconfigSecretsProvider } from "./kubeconfigSecrets.ts"
import { makeNamespacesProvider } from "./namespaces.ts"
import { kubeconfigYaml, recordingAware, until, workloads } from "./testing.ts"

describe("compose", () => {
  it.effect(
    "names clusters <provider>#<cluster>; get, engage and disengage agree on the renamed Cluster",
    () =>
      Effect.gen(function* () {
        const hub = yield* makeMemoryClient(yield* FakeApiServer.make())
        const w = workloads()
        yield* hub.create(Resources.namespaces, { metadata: { name: "team", labels: { tenant: "yes" } } })
        yield* hub.create(Resources.secrets, {
          metadata: {
            namespace: "fleet",
            name: "alpha",
            labels: { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" },
          },
          data: { kubeconfig: Buffer.from(kubeconfigYaml("https://alpha.example", "t")).toString("base64") },
        })
        const secrets = yield* makeKubeconfigSecretsProvider(hub, {
          namespace: "fleet",
          clientFactory: w.factory,
        })
        const namespaces = yield* makeNamespacesProvider(hub, {
          labelSelector: "tenant=yes",
        })
        const composed = yield* composeProviders([secrets, namespaces])
        const aware = recordingAware()
        yield* composed.run(aware)
        yield* until("both engaged", () => aware.open().size === 2)
        assert.sameMembers([...aware.open().keys()], ["kubeconfig-secrets#alpha", "namespaces#team"])
        const alpha = yield* composed.get(ClusterName("kubeconfig-secrets#alpha"))
        assert.strictEqual(alpha, aware.open().get("kubeconfig-secrets#alpha")?.cluster)
        assert.sameMembers(
          (yield* composed.clusters).map((c) => c.name),
          ["kubeconfig-secrets#alpha", "namespaces#team"],
        )
        assert.strictEqual((yield* Effect.flip(composed.get(ClusterName("alpha"))))._tag, "ClusterNotFound")
        yield* hub.delete(Resources.secrets, { namespace: "fleet", name: "alpha" })
        yield* until("alpha disengaged", () => !aware.open().has("kubeconfig-secrets#alpha"))
        assert.include(aware.events, `disengage kubeconfig-secrets#alpha ${alpha.generation}`)
      }).pipe(Effect.scoped),
  )

  it.effect("refuses a provider named twice", () =>
    Effect.gen(function* () {
      const hub = yield* makeMemoryClient(yield* FakeApiServer.make())
      const p = yield* makeNamespacesProvider(hub)
      const e = yield* Effect.flip(composeProviders([p, p]))
      assert.include(e.message, "named twice")
    }),
  )
})
