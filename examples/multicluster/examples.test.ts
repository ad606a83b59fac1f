import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { parseProgramFlags, runProgram } from "krtt/multicluster"
import { demo as aggregating } from "./aggregating.js"
import { demo as uniform } from "./uniform.js"

describe("examples/multicluster", () => {
  it.live("uniform: each cluster's ConfigMaps are stamped by that cluster; a removed cluster's are not", () =>
    Effect.gen(function* () {
      const log = yield* uniform
      assert.deepStrictEqual(log, [
        "east/web stamped by east",
        "west/api stamped by west",
        "east/plain stamped by nobody",
        "west/late stamped by west",
        "west removed: ClusterNotFound",
        "west/orphan stamped by nobody",
      ])
    }),
  )

  it.live(
    "aggregating: the hub summary follows every cluster, is repaired, and drops a cluster that leaves",
    () =>
      Effect.gen(function* () {
        const log = yield* aggregating
        assert.deepStrictEqual(log, [
          'start: {"east":"2","west":"1"}',
          'west grows: {"east":"2","west":"2"}',
          'summary deleted and repaired: {"east":"2","west":"2"}',
          'west leaves: {"east":"2"}',
        ])
      }),
  )

  it.effect("the programs' flags are strict: an unknown flag is an error naming it", () =>
    Effect.gen(function* () {
      const ok = yield* parseProgramFlags([
        "--provider",
        "kubeconfig-secrets",
        "--provider-namespace",
        "fleet",
        "--shard-lease-prefix",
        "stamp",
      ])
      assert.deepStrictEqual(
        [ok.provider, ok.providerNamespace, ok.shardLeasePrefix],
        ["kubeconfig-secrets", "fleet", "stamp"],
      )
      const withMetrics = yield* parseProgramFlags(["--metrics-bind-address", ":9090"])
      assert.strictEqual(withMetrics.metricsBindAddress, ":9090")
      // a bad address is refused before anything starts, naming the flag
      const dir = mkdtempSync(join(tmpdir(), "krtt-example-flags-"))
      const kubeconfig = join(dir, "config")
      writeFileSync(
        kubeconfig,
        [
          "apiVersion: v1",
          "kind: Config",
          "clusters: [{name: hub, cluster: {server: 'https://127.0.0.1:9'}}]",
          "users: [{name: me, user: {token: t}}]",
          "contexts: [{name: hub, context: {cluster: hub, user: me}}]",
          "current-context: hub",
        ].join("\n"),
      )
      const address = yield* Effect.flip(
        Effect.scoped(
          runProgram(
            { kubeconfig, provider: "namespaces", metricsBindAddress: "nowhere" },
            () => Effect.void,
          ),
        ),
      )
      assert.strictEqual((address as { flag?: string }).flag, "--metrics-bind-address")
      const bad = yield* Effect.flip(parseProgramFlags(["--provider-namespce", "fleet"]))
      assert.strictEqual(bad.flag, "--provider-namespce")
      assert.include(bad.message, "closest: --provider-namespace")
    }),
  )
})
