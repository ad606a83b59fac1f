import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { FakeApiServer } from "../../kube/fake/server.ts"
import { makeMemoryClient } from "../../kube/memoryClient.ts"
import { makeProvider, providerNames } from "./index.ts"

describe("makeProvider", () => {
  it.effect("an unknown provider name names the closest known one", () =>
    Effect.gen(function* () {
      const hub = yield* makeMemoryClient(yield* FakeApiServer.make())
      const e = yield* Effect.flip(Effect.scoped(makeProvider("kubeconfig-secret", hub, {})))
      assert.strictEqual(e._tag, "ProviderUsageError")
      assert.strictEqual(e.flag, "--provider")
      assert.include(e.message, 'did you mean "kubeconfig-secrets"')
    }),
  )

  it.effect("kubeconfig-secrets without --provider-namespace names the flag", () =>
    Effect.gen(function* () {
      const hub = yield* makeMemoryClient(yield* FakeApiServer.make())
      const e = yield* Effect.flip(Effect.scoped(makeProvider("kubeconfig-secrets", hub, {})))
      assert.strictEqual(e.flag, "--provider-namespace")
      assert.include(e.message, "--provider-namespace")
    }),
  )

  it.effect("every listed name makes a provider of that name when its flags are given", () =>
    Effect.gen(function* () {
      const hub = yield* makeMemoryClient(yield* FakeApiServer.make())
      for (const name of providerNames) {
        const p = yield* Effect.scoped(
          makeProvider(name, hub, { providerNamespace: "fleet", providerKubeconfig: "/dev/null" }),
        )
        assert.strictEqual(p.name, name)
      }
    }),
  )
})

describe("makeProvider with several names", () => {
  it.effect("composes them; an unknown one among them names the closest", () =>
    Effect.gen(function* () {
      const hub = yield* makeMemoryClient(yield* FakeApiServer.make())
      const p = yield* Effect.scoped(
        makeProvider("namespaces,kubeconfig-secrets", hub, { providerNamespace: "x" }),
      )
      assert.strictEqual(p.name, "compose")
      const e = yield* Effect.flip(Effect.scoped(makeProvider("namespaces,kubeconfig-flie", hub, {})))
      assert.include(e.message, 'did you mean "kubeconfig-file"')
    }),
  )
})
