import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import type { ClusterState, Provider } from "../multicluster/types.ts"
import { ClusterName } from "../workqueue/request.ts"
import {
  ClustersDefaults,
  type ClustersFlags,
  checkFlags,
  clustersJson,
  report,
  runClusters,
  table,
} from "./clusters.ts"

const state = (name: string, engaged: boolean, healthy: boolean, reason = ""): ClusterState => ({
  name: ClusterName(name),
  engaged,
  healthy,
  reason,
})

/** A provider whose `clusters` answer is set by the test. */
const scripted = (initial: ReadonlyArray<ClusterState>) => {
  const box = { now: initial }
  const provider: Provider = {
    name: "scripted",
    get: () => Effect.die("unused"),
    indexField: () => Effect.void,
    run: () => Effect.void,
    clusters: Effect.sync(() => box.now),
  }
  return { box, provider }
}

/** Output lines with the virtual time they were written at. */
const recorder = () => {
  const lines: Array<{ readonly at: number; readonly line: string }> = []
  return {
    lines,
    write: (line: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (at) => Effect.sync(() => void lines.push({ at, line }))),
  }
}

const flags = (over: Partial<ClustersFlags>): ClustersFlags => ({
  kubeconfig: undefined,
  provider: "kubeconfig-secrets",
  providerNamespace: undefined,
  providerKubeconfig: undefined,
  json: false,
  watch: false,
  timeout: "2m",
  ...over,
})

describe("krtt clusters", () => {
  it("defaults: 2 min timeout, 5 s empty grace, 500 ms poll", () => {
    assert.deepStrictEqual(
      { ...ClustersDefaults },
      { timeout: 120_000, emptyGrace: 5_000, pollInterval: 500 },
    )
  })

  it("bad flags are usage errors naming the flag", () => {
    assert.throws(() => checkFlags(flags({ provider: undefined })), /--provider is required/)
    assert.throws(() => checkFlags(flags({ timeout: "soon" })), /--timeout/)
    assert.deepStrictEqual(checkFlags(flags({ timeout: "30s" })), {
      timeout: 30_000,
      provider: "kubeconfig-secrets",
    })
  })

  it.effect("an unknown provider, or a missing provider flag, fails naming the flag", () =>
    Effect.gen(function* () {
      const hub = yield* makeMemoryClient(yield* FakeApiServer.make())
      const out = recorder()
      const unknown = yield* Effect.flip(
        Effect.scoped(runClusters(hub, flags({ provider: "kubeconfig-secret" }), out.write)),
      )
      assert.include(unknown.message, "--provider")
      assert.include(unknown.message, "kubeconfig-secrets")
      const missing = yield* Effect.flip(
        Effect.scoped(runClusters(hub, flags({ provider: "kubeconfig-file" }), out.write)),
      )
      assert.include(missing.message, "--provider-kubeconfig")
      assert.deepStrictEqual(out.lines, [])
    }),
  )

  it.effect("cluster-inventory-api takes --provider-access-config, as krtt propagate does", () =>
    Effect.gen(function* () {
      const hub = yield* makeMemoryClient(yield* FakeApiServer.make())
      const out = recorder()
      const run = (over: Partial<ClustersFlags>) =>
        Effect.flip(
          Effect.scoped(runClusters(hub, flags({ provider: "cluster-inventory-api", ...over }), out.write)),
        )
      assert.include((yield* run({})).message, "needs --provider-access-config")
      const unreadable = yield* run({ providerAccessConfig: "/nonexistent/access.json" })
      assert.include(unreadable.message, "--provider-access-config /nonexistent/access.json: cannot be read")
    }),
  )

  it.effect("passes --provider-probe-interval on, and refuses one that is no duration naming the flag", () =>
    Effect.gen(function* () {
      const hub = yield* makeMemoryClient(yield* FakeApiServer.make())
      const out = recorder()
      const bad = yield* Effect.flip(
        Effect.scoped(
          runClusters(
            hub,
            flags({ provider: "kubeconfig-secrets", providerProbeInterval: "soon" }),
            out.write,
          ),
        ),
      )
      assert.include(bad.message, "--provider-probe-interval")
      assert.deepStrictEqual(out.lines, [])
    }),
  )

  it.effect(
    "once: decided clusters print at once; an unreachable one prints when it has failed its probes",
    () =>
      Effect.gen(function* () {
        const { box, provider } = scripted([
          state("alpha", true, true),
          state("slow", false, true, "probe failed 1 of 5 times"),
          state("beta", true, true),
        ])
        const out = recorder()
        const fiber = yield* Effect.forkChild(report(provider, { json: false, watch: false }, out.write))
        yield* TestClock.adjust("1 second")
        assert.deepStrictEqual(
          out.lines.map((l) => l.line),
          ["NAME   ENGAGED  HEALTHY  REASON", "alpha  true     true", "beta   true     true"],
        )
        assert.isTrue(
          out.lines.every((l) => l.at === 0),
          "not delayed by the slow cluster",
        )
        box.now = [
          box.now[0] as ClusterState,
          state("slow", false, false, "probe failed 5 times in a row"),
          box.now[2] as ClusterState,
        ]
        yield* TestClock.adjust("1 second")
        yield* Fiber.join(fiber)
        assert.strictEqual(out.lines.at(-1)?.line, "slow   false    false    probe failed 5 times in a row")
      }),
  )

  it.effect(
    "once --json: one document after every cluster has a verdict; undecided ones at the timeout say so",
    () =>
      Effect.gen(function* () {
        const { provider } = scripted([state("a", true, true), state("b", false, true)])
        const out = recorder()
        const fiber = yield* Effect.forkChild(
          report(provider, { json: true, watch: false, timeout: 10_000 }, out.write),
        )
        yield* TestClock.adjust("9 seconds")
        assert.deepStrictEqual(out.lines, [])
        yield* TestClock.adjust("1 second")
        yield* Fiber.join(fiber)
        assert.strictEqual(out.lines.length, 1)
        assert.deepStrictEqual(JSON.parse(out.lines[0]?.line ?? ""), {
          clusters: [
            { name: "a", engaged: true, healthy: true, reason: "" },
            { name: "b", engaged: false, healthy: true, reason: "no verdict within 10s" },
          ],
        })
      }),
  )

  it.effect("once with no cluster ends after the empty grace with just the header", () =>
    Effect.gen(function* () {
      const { provider } = scripted([])
      const out = recorder()
      const fiber = yield* Effect.forkChild(report(provider, { json: false, watch: false }, out.write))
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(
        out.lines.map((l) => l.line),
        ["NAME  ENGAGED  HEALTHY  REASON"],
      )
    }),
  )

  it.effect("--watch prints on every change, and only then", () =>
    Effect.gen(function* () {
      const { box, provider } = scripted([state("a", true, true)])
      const out = recorder()
      const fiber = yield* Effect.forkChild(report(provider, { json: true, watch: true }, out.write))
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(out.lines.length, 1)
      box.now = [state("a", false, false, "the API server refused the credentials (401)")]
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(out.lines.length, 2)
      assert.strictEqual(out.lines[1]?.line, clustersJson(box.now))
      yield* Fiber.interrupt(fiber)
    }),
  )

  it("renders a table with aligned columns", () => {
    assert.strictEqual(
      table([state("long-name", false, false, "why"), state("b", true, true)]),
      [
        "NAME       ENGAGED  HEALTHY  REASON",
        "b          true     true",
        "long-name  false    false    why",
      ].join("\n"),
    )
  })
})
