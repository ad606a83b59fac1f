/**
 * The health gate every provider shares: a cluster is engaged only once its API server answers
 * `GET /`, is probed every `interval` while engaged, and is disengaged when `failureThreshold`
 * probes in a row fail or at once when its credentials are refused (401); it is engaged again
 * as soon as a probe succeeds (the probes of engaged clusters can be turned off: `probes`). The numbers are seed 000's Health Checking table (probe `GET /`
 * every 10 s with a 5 s timeout, failure threshold 5; "Probe failed (unauthorized)": disconnect
 * at once), which upstream's ClusterCache applies to Cluster API clusters only; no provider of
 * multicluster-runtime disengages an unreachable cluster, so here every provider does.
 *
 * The decision is the pure `healthStep`; the provider engine (`clusterSet.ts`) runs the probes.
 *
 * @module
 */
import * as Duration from "effect/Duration"
import type { KubeError } from "../../kube/errors.ts"

/** How clusters are probed. Every field is documented with its default (seed 000). */
export interface HealthOptions {
  /** Time between probes, engaged or not. Default 10 s (seed 000: "Health probe interval (10s)"). */
  readonly interval: Duration.Input
  /**
   * Whether engaged clusters are probed every `interval`. Default true (seed 000). `false` turns
   * the periodic probes off, as multicluster-runtime's providers have none: a cluster is still
   * engaged only once its first `GET /` answers (and retried every `interval` until it does),
   * then stays engaged until its source removes or replaces it; an unreachable server or revoked
   * credentials then show as failing requests and watches only, never as a disengagement.
   */
  readonly probes: boolean
  /** Timeout of one `GET /`. Default 5 s (seed 000: "GET "/" on apiserver with 5s timeout"). */
  readonly timeout: Duration.Input
  /** Failed probes in a row that disengage a cluster. Default 5 (seed 000: "FailureThreshold(5)"). */
  readonly failureThreshold: number
  /**
   * Whether a 403 on `GET /` counts as reachable. Default true: the API server answered and
   * authenticated the credentials; only the path `/` is not granted, as for an identity that holds
   * a Role in a few namespaces and nothing at cluster level (the scoped cache's users). Seed 000
   * counts every non-2xx as a failure for Cluster API's own ClusterCache, whose identities are
   * cluster admins; the providers' gate serves narrower identities (derived; docs/providers.md).
   */
  readonly forbiddenIsReachable: boolean
}

/** Seed 000, Health Checking: every 10 s, 5 s timeout, 5 failures in a row. */
export const HealthDefaults: HealthOptions = {
  interval: "10 seconds",
  probes: true,
  timeout: "5 seconds",
  failureThreshold: 5,
  forbiddenIsReachable: true,
}

/** The defaults with `overrides` applied. */
export const healthOptions = (overrides: Partial<HealthOptions> = {}): HealthOptions => ({
  ...HealthDefaults,
  ...overrides,
})

/** Milliseconds of a duration input. */
export const millis = (d: Duration.Input): number => Duration.toMillis(Duration.fromInputUnsafe(d))

/**
 * What a probe's answer means: success, or a failure with its error; a 403 is success when
 * `forbiddenIsReachable` (the server answered and knew the credentials).
 */
export const probeOutcome = (
  result: { readonly _tag: "Success" } | { readonly _tag: "Failure"; readonly failure: KubeError },
  options: Pick<HealthOptions, "forbiddenIsReachable">,
): ProbeOutcome =>
  result._tag === "Success" || (options.forbiddenIsReachable && result.failure._tag === "Forbidden")
    ? { _tag: "Success" }
    : { _tag: "Failure", error: result.failure }

/** What one probe (or one connection attempt) came to. */
export type ProbeOutcome =
  | { readonly _tag: "Success" }
  | {
      readonly _tag: "Failure"
      readonly error: KubeError | { readonly _tag: string; readonly message: string }
    }

/** The gate's memory of one cluster. */
export interface HealthState {
  /** Failed probes in a row (seed 000's `consecutiveFailures`). */
  readonly consecutiveFailures: number
}

/** What to do after a probe. */
export type HealthVerdict =
  /** Engage (if not engaged) or stay engaged. */
  | "healthy"
  /** A failure below the threshold: stay as is (engaged stays engaged, not engaged stays out). */
  | "degraded"
  /** Disengage (if engaged) and stay out until a probe succeeds. */
  | "unhealthy"

/** The result of `healthStep`. */
export interface HealthStep {
  readonly state: HealthState
  readonly verdict: HealthVerdict
  /** Why, in a few words, for `krtt clusters` and logs (never credentials). */
  readonly reason: string
}

/**
 * One probe's consequence (seed 000, Health Checking rows 3–6): success resets the count; an
 * unauthorized answer is unhealthy at once (row 5, "kubeconfig rotated"); another failure counts,
 * and the count reaching the threshold is unhealthy (row 6).
 */
export const healthStep = (state: HealthState, outcome: ProbeOutcome, options: HealthOptions): HealthStep => {
  if (outcome._tag === "Success") return { state: { consecutiveFailures: 0 }, verdict: "healthy", reason: "" }
  const consecutiveFailures = state.consecutiveFailures + 1
  const { error } = outcome
  if (error._tag === "Unauthorized") {
    return {
      state: { consecutiveFailures },
      verdict: "unhealthy",
      reason: `the API server refused the credentials (401): ${error.message}`,
    }
  }
  const threshold = Math.max(1, options.failureThreshold)
  return consecutiveFailures >= threshold
    ? {
        state: { consecutiveFailures },
        verdict: "unhealthy",
        reason: `probe failed ${consecutiveFailures} times in a row (threshold ${threshold}): ${error.message}`,
      }
    : {
        state: { consecutiveFailures },
        verdict: "degraded",
        reason: `probe failed ${consecutiveFailures} of ${threshold} times: ${error.message}`,
      }
}
