import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { parseProgramFlags } from "./program.ts"

describe("multi-cluster program flags", () => {
  it.effect(
    "--provider-kubeconfig is repeatable; --provider-access-config names cluster-inventory-api's file",
    () =>
      Effect.gen(function* () {
        const flags = yield* parseProgramFlags([
          "--provider",
          "kubeconfig-file,cluster-inventory-api",
          "--provider-kubeconfig",
          "/etc/fleet/",
          "--provider-kubeconfig",
          "/etc/extra/*.kubeconfig",
          "--provider-access-config",
          "/etc/access.json",
        ])
        assert.deepStrictEqual(flags.providerKubeconfig, ["/etc/fleet/", "/etc/extra/*.kubeconfig"])
        assert.strictEqual(flags.providerAccessConfig, "/etc/access.json")
        const bad = yield* Effect.flip(parseProgramFlags(["--provider-acess-config", "x"]))
        assert.include(bad.message, "closest: --provider-access-config")
      }),
  )

  it.effect("--provider-probe-interval is passed on as given", () =>
    Effect.gen(function* () {
      const flags = yield* parseProgramFlags([
        "--provider",
        "kubeconfig-secrets",
        "--provider-probe-interval",
        "0",
      ])
      assert.strictEqual(flags.providerProbeInterval, "0")
    }),
  )
})
