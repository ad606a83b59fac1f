/**
 * Health Checking (seed 000) in the shell: the `GET /` probe of a connection, and the accessor's
 * health checking state as `GetHealthCheckingState` returns it.
 *
 * # Guarantees
 * - A probe never fails: its answer is `success`, `failure`, or `unauthorized` for a 401 (the
 *   Reconciler disconnects at once on it, row 11).
 * - A probe without a connection answers `success` and asks nothing: the Reconciler probes only
 *   accessors it holds connected.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { HealthCheckingState, ProbeOutcome } from "../../core/clustercache/index.ts"
import type { Connection } from "./connection.ts"
import type { Entry } from "./registry.ts"

/** `GET /` on the connection's live client with `timeout`, as the Reconciler's `ProbeFinished` outcome. */
export const probe = (connection: Connection | undefined, timeout: number): Effect.Effect<ProbeOutcome> =>
  connection === undefined
    ? Effect.succeed("success")
    : Effect.match(connection.live.client.probe({ timeout }), {
        onSuccess: () => "success" as const,
        onFailure: (e) => (e._tag === "Unauthorized" ? ("unauthorized" as const) : ("failure" as const)),
      })

/** The health checking state of an accessor; zero failures without one. */
export const healthCheckingState = (entry: Entry | undefined): HealthCheckingState => ({
  lastProbeTime: entry?.state.lastProbeTime,
  lastProbeSuccessTime: entry?.state.lastProbeSuccessTime,
  consecutiveFailures: entry?.state.consecutiveFailures ?? 0,
})
