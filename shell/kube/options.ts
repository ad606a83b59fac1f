/**
 * The kube client's options, with the defaults of seed 000's `ClientOptions` table
 * (ClusterCache: "Timeout 10s, QPS 20, Burst 30"). One object, every field overridable.
 *
 * @module
 */
import * as Duration from "effect/Duration"

/** How a client talks to one API server. */
export interface ClientOptions {
  /** Per-request timeout; a watch applies it to the response headers only. Default 10 s. */
  readonly timeout: Duration.Input
  /** Sustained requests per second of the client-side token bucket. Default 20. */
  readonly qps: number
  /** Bucket size: requests that may go out at once before `qps` paces them. Default 30. */
  readonly burst: number
  /** The `User-Agent` header. Default `krtt`. */
  readonly userAgent: string
}

/** Seed 000, ClientOptions: Timeout 10s, QPS 20, Burst 30. */
export const ClientDefaults: ClientOptions = {
  timeout: "10 seconds",
  qps: 20,
  burst: 30,
  userAgent: "krtt",
}

/** The defaults with `overrides` applied. */
export const clientOptions = (overrides: Partial<ClientOptions> = {}): ClientOptions => ({
  ...ClientDefaults,
  ...overrides,
})

/** The timeout in milliseconds. */
export const timeoutMillis = (options: Pick<ClientOptions, "timeout">): number =>
  Duration.toMillis(Duration.fromInputUnsafe(options.timeout))
