/**
 * `krtt chaos` on the command line: its flags. What runs it (`chaos.ts`, the campaign over the
 * real controllers) is loaded when it runs.
 *
 * @module
 */

import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"

/**
 * The names the flags' descriptions list, in shell/chaos's order: its controllers
 * (`ControllerNames`), scenarios (`Scenarios`), perturbations (`PerturbationKinds`) and mutants
 * (`Mutants`). Written out here so that reading the command line does not load the harness;
 * chaosCommand.test.ts holds them equal to shell/chaos's. The values themselves are checked by
 * chaos.ts against shell/chaos's own lists.
 */
export const ChaosFlagNames = {
  controllers: ["clustercache", "cluster", "ipam", "multicluster", "propagate"],
  scenarios: [
    "provision",
    "delete",
    "rotate",
    "kubeconfig",
    "outage",
    "concurrent",
    "ipam-concurrent",
    "ipam-delete",
    "ipam-config",
    "ipam-exhausted",
    "ipam-operations",
    "mc-engage",
    "mc-rotate",
    "mc-outage",
    "mc-hub-watches",
    "propagate-copies",
    "propagate-delete",
    "propagate-away",
    "propagate-away-many",
    "propagate-drift",
    "propagate-forbidden",
    "propagate-foreign",
    "propagate-warnings",
  ],
  perturbations: ["crash", "drop", "stale", "transient", "reorder", "slow"],
  mutants: [
    "finalizer-early",
    "status-no-rv",
    "memory-state",
    "no-resync",
    "ipam-forgets",
    "remember-clusters",
    "propagate-keeps-copies",
    "propagate-pending-own-keys",
    "engage-scope-leak",
    "lost-wakeup",
    "double-worker",
    "depth-drift",
    "backoff-kept",
    "detached-poller",
    "index-kept",
    "deletes-ignored",
  ],
} as const

const flags = {
  controllers: Flag.String("controllers").pipe(
    Flag.withDefault(ChaosFlagNames.controllers.join(",")),
    Flag.withDescription(
      `Controllers to run, comma-separated (default ${ChaosFlagNames.controllers.join(",")})`,
    ),
  ),
  seed: Flag.Int("seed").pipe(
    Flag.withDefault(1),
    Flag.withDescription("Seed of the sampled points (default 1)"),
  ),
  budget: Flag.Int("budget").pipe(
    Flag.optional,
    Flag.withDescription(
      "Wall seconds for a full campaign (every point); without it, the fixed fast campaign",
    ),
  ),
  json: Flag.Boolean("json").pipe(
    Flag.withDefault(false),
    Flag.withDescription("Print JSON instead of text"),
  ),
  scenario: Flag.String("scenario").pipe(
    Flag.optional,
    Flag.withDescription(`Only this scenario (${ChaosFlagNames.scenarios.join(", ")})`),
  ),
  perturbation: Flag.String("perturbation").pipe(
    Flag.optional,
    Flag.withDescription(`Only this perturbation (${ChaosFlagNames.perturbations.join(", ")})`),
  ),
  at: Flag.Int("at").pipe(Flag.optional, Flag.withDescription("Only this point (a replay)")),
  mutant: Flag.String("mutant").pipe(
    Flag.optional,
    Flag.withDescription(`A deliberately broken operator (${ChaosFlagNames.mutants.join(", ")})`),
  ),
}

/** The `chaos` subcommand. */
export const chaosCommand = Command.make("chaos", flags, (f) =>
  Effect.flatMap(
    Effect.promise(() => import("./chaos.ts")),
    ({ chaosMain }) => chaosMain(f),
  ),
).pipe(
  Command.withDescription(
    "Perturbation campaign over the real controllers (ClusterCache, Cluster, IPAM, multi-cluster engagement, propagate) on the in-memory API server and virtual time: crashes after each write, dropped and stale watches, transient errors, third-party writers",
  ),
)
