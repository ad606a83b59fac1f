/**
 * `krtt simulate` and `krtt live` on the command line: their flags, defaults and checks. What
 * runs them (`cli.ts`, `live.ts`) is loaded when the command runs.
 *
 * @module
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { SimDefaults } from "./config.ts"
import { checkLiveOptions, LiveDefaults } from "./liveOptions.ts"
import { SimUsageError } from "./usageError.ts"

/** Runs a step and turns a usage error into one line on stderr and exit code 2. */
const userFacing = (f: () => Promise<number>): Effect.Effect<void> =>
  Effect.tryPromise({ try: f, catch: (e) => e }).pipe(
    Effect.match({
      onSuccess: (code) => {
        if (code !== 0) process.exitCode = code
      },
      onFailure: (e) => {
        process.stderr.write(
          `krtt: ${e instanceof SimUsageError ? e.message : `unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`}\n`,
        )
        process.exitCode = 2
      },
    }),
  )

const rate = (name: string, description: string, value: number) =>
  Flag.Finite(name).pipe(
    Flag.withDescription(`${description} per cluster-hour (default ${value})`),
    Flag.withDefault(value),
  )

export const simulate = Command.make(
  "simulate",
  {
    clusters: Flag.Int("clusters").pipe(
      Flag.withDescription("Cluster slots in the fleet"),
      Flag.withDefault(SimDefaults.clusters),
    ),
    hours: Flag.Finite("hours").pipe(
      Flag.withDescription("Virtual hours to simulate"),
      Flag.withDefault(SimDefaults.hours),
    ),
    seed: Flag.Int("seed").pipe(
      Flag.withDescription("Seed of the random streams"),
      Flag.withDefault(SimDefaults.seed),
    ),
    outageRate: rate("outage-rate", "API server outages", SimDefaults.faults.outage),
    rotationRate: rate("rotation-rate", "Credential rotations", SimDefaults.faults.rotation),
    slowRate: rate("slow-rate", "Slow periods (past the probe timeout)", SimDefaults.faults.slow),
    deletionRate: rate("deletion-rate", "Cluster deletions", SimDefaults.churn.deletionRate),
    scenario: Flag.optional(
      Flag.String("scenario").pipe(
        Flag.withDescription("A YAML or JSON timeline of incidents (see docs/simulation.md)"),
      ),
    ),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription("Print the summary as JSON"),
      Flag.withDefault(false),
    ),
    report: Flag.optional(
      Flag.String("report").pipe(Flag.withDescription("Write a self-contained HTML report")),
    ),
    trace: Flag.optional(
      Flag.String("trace").pipe(Flag.withDescription("Write the trace as text, one record a line")),
    ),
    workers: Flag.optional(
      Flag.Int("workers").pipe(Flag.withDescription("Worker threads (default: 1 for small runs, else 2)")),
    ),
    ipam: Flag.Boolean("ipam").pipe(
      Flag.withDescription(
        "Run the IPAM controller (seed 004) over the fleet and check its invariants; the scenario's ipam section configures it",
      ),
      Flag.withDefault(false),
    ),
  },
  (f) =>
    userFacing(async () =>
      (await import("./cli.ts")).runSimulate({
        clusters: f.clusters,
        hours: f.hours,
        seed: f.seed,
        outageRate: f.outageRate,
        rotationRate: f.rotationRate,
        slowRate: f.slowRate,
        deletionRate: f.deletionRate,
        scenario: Option.getOrUndefined(f.scenario),
        json: f.json,
        report: Option.getOrUndefined(f.report),
        trace: Option.getOrUndefined(f.trace),
        workers: Option.getOrUndefined(f.workers),
        ipam: f.ipam,
      }),
    ),
).pipe(
  Command.withDescription(
    "Simulate a fleet of Clusters in virtual time, running the ClusterCache and Cluster controller tables, and check their invariants",
  ),
)

export const liveCommand = Command.make(
  "live",
  {
    clusters: Flag.Int("clusters").pipe(
      Flag.withDescription("Clusters to watch"),
      Flag.withDefault(LiveDefaults.clusters),
    ),
    minutes: Flag.Finite("minutes").pipe(
      Flag.withDescription("Virtual minutes to run"),
      Flag.withDefault(LiveDefaults.minutes),
    ),
    speed: Flag.Finite("speed").pipe(
      Flag.withDescription("Virtual seconds per real second"),
      Flag.withDefault(LiveDefaults.speed),
    ),
    seed: Flag.Int("seed").pipe(
      Flag.withDescription("Seed of the random streams"),
      Flag.withDefault(LiveDefaults.seed),
    ),
  },
  (f) =>
    userFacing(async () => {
      const o = { clusters: f.clusters, minutes: f.minutes, speed: f.speed, seed: f.seed }
      const problem = checkLiveOptions(o)
      if (problem !== undefined) throw new SimUsageError(problem)
      return (await import("./live.ts")).live(o)
    }),
).pipe(
  Command.withDescription(
    "Watch a small simulated fleet live: phases, connections, incidents and how they are handled",
  ),
)
