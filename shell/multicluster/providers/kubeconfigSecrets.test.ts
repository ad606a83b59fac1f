import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../../apiserver/memoryClient.ts"
import { FakeApiServer } from "../../apiserver/server.ts"
import { Resources } from "../../kube/resource.ts"
import { ClusterName } from "../../workqueue/request.ts"
import { HealthDefaults } from "./health.ts"
import { KubeconfigSecretsDefaults, makeKubeconfigSecretsProvider } from "./kubeconfigSecrets.ts"
import { kubeconfigYaml, recordingAware, until, workloads } from "./testing.ts"

const ns = "fleet"
const label = { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" }
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64")

const secret = (name: string, kubeconfig: string, labels: Record<string, string> = label) => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { namespace: ns, name, labels },
  data: { kubeconfig: b64(kubeconfig) },
})

/** A hub fake, workload fakes, the provider running with a recording Aware in a scope of its own. */
const setup = Effect.gen(function* () {
  const hubFake = yield* FakeApiServer.make()
  const hub = yield* makeMemoryClient(hubFake)
  const w = workloads()
  const provider = yield* makeKubeconfigSecretsProvider(hub, { namespace: ns, clientFactory: w.factory })
  const aware = recordingAware()
  const scope = yield* Scope.make()
  yield* Scope.provide(provider.run(aware), scope)
  const stateOf = (name: string) => Effect.map(provider.clusters, (cs) => cs.find((c) => c.name === name))
  return { hubFake, hub, w, provider, aware, scope, stateOf }
})

describe("kubeconfig-secrets provider", () => {
  it("documents upstream's label and key, and seed 000's probe numbers as defaults", () => {
    assert.strictEqual(
      KubeconfigSecretsDefaults.labelSelector,
      "sigs.k8s.io/multicluster-runtime-kubeconfig=true",
    )
    assert.strictEqual(KubeconfigSecretsDefaults.key, "kubeconfig")
    assert.deepStrictEqual(KubeconfigSecretsDefaults.health, HealthDefaults)
    assert.deepStrictEqual(HealthDefaults, {
      interval: "10 seconds",
      probes: true,
      timeout: "5 seconds",
      failureThreshold: 5,
      forbiddenIsReachable: true,
    })
  })

  it.effect("engages a labelled Secret's cluster under the Secret's name; ignores unlabelled ones", () =>
    Effect.gen(function* () {
      const { hub, aware, provider, stateOf, w } = yield* setup
      yield* hub.create(Resources.secrets, secret("alpha", kubeconfigYaml("https://alpha.example", "t-a")))
      yield* hub.create(
        Resources.secrets,
        secret("other", kubeconfigYaml("https://other.example", "t-o"), {}),
      )
      yield* until("alpha engaged", () => aware.open().has("alpha"))
      const cluster = yield* provider.get(ClusterName("alpha"))
      assert.strictEqual(cluster.name, "alpha")
      assert.deepStrictEqual(yield* stateOf("alpha"), {
        name: "alpha",
        engaged: true,
        healthy: true,
        reason: "engaged",
      })
      assert.strictEqual(yield* stateOf("other"), undefined)
      assert.deepStrictEqual(
        w.built.map((b) => b.server),
        ["https://alpha.example"],
      )
      const missing = yield* Effect.flip(provider.get(ClusterName("other")))
      assert.strictEqual(missing._tag, "ClusterNotFound")
    }),
  )

  it.effect(
    "re-engages with the new credentials when the kubeconfig changes, closing the old scope once",
    () =>
      Effect.gen(function* () {
        const { hub, aware, provider, w } = yield* setup
        yield* hub.create(
          Resources.secrets,
          secret("alpha", kubeconfigYaml("https://alpha.example", "old-token")),
        )
        yield* until("alpha engaged", () => aware.open().has("alpha"))
        const first = yield* provider.get(ClusterName("alpha"))
        // The old token is revoked: the next probe answers 401 and the cluster leaves at once.
        w.revoked.add("old-token")
        yield* TestClock.adjust("10 seconds")
        yield* until("alpha disengaged on 401", () => !aware.open().has("alpha"))
        const state = (yield* provider.clusters).find((c) => c.name === "alpha")
        assert.isFalse(state?.engaged)
        assert.include(state?.reason, "401")
        // The Secret is rotated: engaged again, without a restart, with the new token.
        yield* hub.patch(
          Resources.secrets,
          { namespace: ns, name: "alpha" },
          {
            type: "merge",
            body: { data: { kubeconfig: b64(kubeconfigYaml("https://alpha.example", "new-token")) } },
          },
        )
        yield* until("alpha engaged again", () => aware.open().has("alpha"))
        const second = yield* provider.get(ClusterName("alpha"))
        assert.notStrictEqual(second.generation, first.generation)
        assert.strictEqual(w.built.at(-1)?.token, "new-token")
        assert.deepStrictEqual(
          aware.engagements.map((e) => [e.cluster.generation, e.closed]),
          [
            [first.generation, 1],
            [second.generation, 0],
          ],
        )
        assert.deepStrictEqual(aware.events, [
          `engage alpha ${first.generation}`,
          `disengage alpha ${first.generation}`,
          `engage alpha ${second.generation}`,
        ])
      }),
  )

  it.effect("with probes off, an engaged cluster is probed once, before engaging, and stays engaged", () =>
    Effect.gen(function* () {
      const hubFake = yield* FakeApiServer.make()
      const hub = yield* makeMemoryClient(hubFake)
      const w = workloads()
      const provider = yield* makeKubeconfigSecretsProvider(hub, {
        namespace: ns,
        clientFactory: w.factory,
        health: { probes: false },
      })
      const aware = recordingAware()
      yield* Scope.provide(provider.run(aware), yield* Scope.make())
      yield* hub.create(Resources.secrets, secret("alpha", kubeconfigYaml("https://alpha.example", "t")))
      yield* until("alpha engaged", () => aware.open().has("alpha"))
      // A revoked token would disengage it at the next probe; with probes off none comes.
      w.revoked.add("t")
      yield* TestClock.adjust("60 seconds")
      assert.isTrue(aware.open().has("alpha"))
      assert.isTrue((yield* provider.clusters).find((c) => c.name === "alpha")?.engaged)
      assert.deepStrictEqual(
        aware.events.map((e) => e.split(" ")[0]),
        ["engage"],
      )
    }),
  )

  it.effect("a rotation of an engaged cluster disengages the old Cluster before engaging the new one", () =>
    Effect.gen(function* () {
      const { hub, aware } = yield* setup
      yield* hub.create(Resources.secrets, secret("alpha", kubeconfigYaml("https://alpha.example", "t1")))
      yield* until("engaged", () => aware.open().has("alpha"))
      yield* hub.patch(
        Resources.secrets,
        { namespace: ns, name: "alpha" },
        { type: "merge", body: { data: { kubeconfig: b64(kubeconfigYaml("https://alpha.example", "t2")) } } },
      )
      yield* until("re-engaged", () => aware.engagements.length === 2 && aware.open().size === 1)
      assert.deepStrictEqual(
        aware.events.map((e) => e.split(" ")[0]),
        ["engage", "disengage", "engage"],
      )
      // Labels alone do not change the kubeconfig: no re-engagement.
      yield* hub.patch(
        Resources.secrets,
        { namespace: ns, name: "alpha" },
        { type: "merge", body: { metadata: { annotations: { note: "x" } } } },
      )
      yield* TestClock.adjust("100 millis")
      assert.strictEqual(aware.engagements.length, 2)
    }),
  )

  it.effect("a deleted Secret or one that loses the label disengages its cluster and forgets it", () =>
    Effect.gen(function* () {
      const { hub, aware, stateOf } = yield* setup
      yield* hub.create(Resources.secrets, secret("alpha", kubeconfigYaml("https://alpha.example", "t")))
      yield* hub.create(Resources.secrets, secret("beta", kubeconfigYaml("https://beta.example", "t")))
      yield* until("both engaged", () => aware.open().size === 2)
      yield* hub.delete(Resources.secrets, { namespace: ns, name: "alpha" })
      yield* hub.patch(
        Resources.secrets,
        { namespace: ns, name: "beta" },
        {
          type: "merge",
          body: { metadata: { labels: { "sigs.k8s.io/multicluster-runtime-kubeconfig": null } } },
        },
      )
      yield* until("both disengaged", () => aware.open().size === 0)
      assert.deepStrictEqual(
        aware.engagements.map((e) => e.closed),
        [1, 1],
      )
      assert.strictEqual(yield* stateOf("alpha"), undefined)
      assert.strictEqual(yield* stateOf("beta"), undefined)
    }),
  )

  it.effect("a malformed kubeconfig is a clear reason, and its contents reach no log line", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const logger = Logger.make((o) => {
        lines.push(JSON.stringify({ m: o.message, a: o.fiber.getRef(References.CurrentLogAnnotations) }))
      })
      yield* Effect.gen(function* () {
        const { hub, aware, stateOf } = yield* setup
        yield* hub.create(Resources.secrets, secret("bad", "clusters: [ {{ not yaml SECRET-TOKEN-1234"))
        yield* hub.create(Resources.secrets, {
          ...secret("nokey", ""),
          data: { other: b64("x") },
        })
        yield* hub.create(
          Resources.secrets,
          secret(
            "exec",
            `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://exec.example"}}]
users: [{name: u, user: {exec: {command: /bin/steal, apiVersion: client.authentication.k8s.io/v1}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
          ),
        )
        yield* until("three rejected", () => lines.filter((l) => l.includes("cluster rejected")).length === 3)
        assert.include((yield* stateOf("bad"))?.reason, "secret fleet/bad: the kubeconfig does not parse")
        assert.include((yield* stateOf("nokey"))?.reason, 'has no data key "kubeconfig"')
        assert.include((yield* stateOf("exec"))?.reason, "exec plugins are not allowed")
        // A verdict at once: not engaged, not healthy (krtt clusters prints it without waiting).
        assert.deepStrictEqual(
          [(yield* stateOf("bad"))?.engaged, (yield* stateOf("bad"))?.healthy],
          [false, false],
        )
        assert.strictEqual(aware.engagements.length, 0)
      }).pipe(Effect.provide(Logger.layer([logger])))
      assert.isFalse(lines.some((l) => l.includes("SECRET-TOKEN-1234") || l.includes("/bin/steal")))
    }),
  )

  it.effect("stops engaging and disengages everything when its scope closes", () =>
    Effect.gen(function* () {
      const { hub, aware, scope, provider } = yield* setup
      yield* hub.create(Resources.secrets, secret("alpha", kubeconfigYaml("https://alpha.example", "t")))
      yield* until("engaged", () => aware.open().has("alpha"))
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(aware.open().size, 0)
      assert.deepStrictEqual(
        aware.events.map((e) => e.split(" ")[0]),
        ["engage", "disengage"],
      )
      assert.deepStrictEqual(yield* provider.clusters, [])
    }),
  )

  it.effect("options: a missing namespace names --provider-namespace; an unknown key names the closest", () =>
    Effect.gen(function* () {
      const hub = yield* makeMemoryClient(yield* FakeApiServer.make())
      const missing = yield* Effect.flip(makeKubeconfigSecretsProvider(hub, {}))
      assert.strictEqual(missing.flag, "--provider-namespace")
      const unknown = yield* Effect.flip(
        makeKubeconfigSecretsProvider(hub, { namespace: "x", labelSelectr: "a=b" } as never),
      )
      assert.strictEqual(unknown.flag, "labelSelectr")
      assert.include(unknown.message, '"labelSelector"')
    }),
  )
})
