import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { makeMemoryClient } from "../../apiserver/memoryClient.ts"
import { FakeApiServer } from "../../apiserver/server.ts"
import { makeProvider, probeIntervalHealth, providerNames } from "./index.ts"

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

  it.effect("cluster-api is a provider name like the others: listed as known and suggested", () =>
    Effect.gen(function* () {
      const hub = yield* makeMemoryClient(yield* FakeApiServer.make())
      assert.include(providerNames, "cluster-api")
      const e = yield* Effect.flip(Effect.scoped(makeProvider("cluster-apis", hub, {})))
      assert.include(e.message, 'did you mean "cluster-api"')
      assert.include(
        e.message,
        "known: kubeconfig-secrets, kubeconfig-file, namespaces, cluster-api, cluster-inventory-api",
      )
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
      const accessConfig = join(mkdtempSync(join(tmpdir(), "krtt-access-")), "access.json")
      writeFileSync(
        accessConfig,
        JSON.stringify({
          providers: [{ name: "p", execConfig: { apiVersion: "v1", command: "/bin/true" } }],
        }),
      )
      for (const name of providerNames) {
        const p = yield* Effect.scoped(
          makeProvider(name, hub, {
            providerNamespace: "fleet",
            providerKubeconfig: "/dev/null",
            providerAccessConfig: accessConfig,
          }),
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

describe("--provider-probe-interval", () => {
  it.effect("sets the interval, turns the probes off at 0, and names itself when malformed", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* probeIntervalHealth(undefined), {})
      assert.deepStrictEqual(yield* probeIntervalHealth("30s"), { interval: 30_000 })
      assert.deepStrictEqual(yield* probeIntervalHealth("0"), { probes: false })
      const e = yield* Effect.flip(probeIntervalHealth("often"))
      assert.strictEqual(e.flag, "--provider-probe-interval")
      const hub = yield* makeMemoryClient(yield* FakeApiServer.make())
      const bad = yield* Effect.flip(
        Effect.scoped(
          makeProvider("kubeconfig-secrets", hub, { providerNamespace: "x", providerProbeInterval: "x" }),
        ),
      )
      assert.strictEqual(bad.flag, "--provider-probe-interval")
    }),
  )
})

describe("the providers' documented numbers", () => {
  it("every provider defaults to seed 000's health numbers and sync timeout, and its own documented values", async () => {
    const m = await import("./index.ts")
    const { ClusterSetDefaults } = await import("./clusterSet.ts")
    assert.deepStrictEqual(m.HealthDefaults, {
      interval: "10 seconds",
      probes: true,
      timeout: "5 seconds",
      failureThreshold: 5,
      forbiddenIsReachable: true,
    })
    assert.strictEqual(ClusterSetDefaults.syncTimeout, "5 minutes")
    for (const d of [
      m.KubeconfigSecretsDefaults,
      m.KubeconfigFileDefaults,
      m.NamespacesDefaults,
      m.ClusterApiDefaults,
    ]) {
      assert.strictEqual(d.syncTimeout, "5 minutes")
    }
    for (const d of [m.KubeconfigSecretsDefaults, m.KubeconfigFileDefaults, m.NamespacesDefaults])
      assert.deepStrictEqual(d.health, m.HealthDefaults)
    assert.strictEqual(m.KubeconfigFileDefaults.pollInterval, "5 seconds")
    assert.strictEqual(m.NamespacesDefaults.labelSelector, undefined)
    assert.strictEqual(m.ClusterApiDefaults.resyncInterval, "10 seconds")
    assert.strictEqual(m.ClusterApiDefaults.concurrency, 100)
    assert.deepStrictEqual(m.ClusterApiDefaults.clusterCache.healthProbe, {
      interval: 10_000,
      timeout: 5_000,
      failureThreshold: 5,
    })
  })
})
