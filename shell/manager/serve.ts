/**
 * The parts of a manager process that every command running controllers shares (`krtt run`,
 * `krtt ipam`, `krtt inventory`, `krtt propagate`): the metrics or diagnostics server, the health
 * probe server, and leader election.
 *
 * @module
 */
import { randomUUID } from "node:crypto"
import { hostname } from "node:os"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type { KubeClientShape } from "../kube/client.ts"
import type { TlsSettings } from "./diagnostics.ts"
import { healthRoutes, metricsRoutes, type parseBindAddress, serveOn } from "./http.ts"
import { makeLeaderElector } from "./leaderelection.ts"

/** A parsed `--*-address` flag. */
type BindAddress = ReturnType<typeof parseBindAddress>

/** Where and how to serve metrics and probes. */
export interface ServeOptions {
  readonly metricsAddress: BindAddress
  readonly healthAddress: BindAddress
  /** Upstream's diagnostics endpoint: HTTPS, TokenReview + SubjectAccessReview per request. */
  readonly metricsSecure?: boolean | undefined
  readonly tlsMinVersion?: TlsSettings["minVersion"] | undefined
  readonly tlsCipherSuites?: ReadonlyArray<string> | undefined
  /** OpenSSL names of the key exchange groups (`--tls-curve-preferences`); empty: Node's. */
  readonly tlsCurvePreferences?: ReadonlyArray<string> | undefined
  /** The secure endpoint's certificate (PEM); absent: a self-signed one. */
  readonly metricsCertificate?: { readonly cert: string; readonly key: string } | undefined
}

/** Starts the metrics (or diagnostics) and health servers until the scope closes. */
export const serveMetricsAndHealth = (
  client: KubeClientShape,
  options: ServeOptions,
  ready: Effect.Effect<boolean>,
): Effect.Effect<void, Error, Scope.Scope> =>
  Effect.gen(function* () {
    if (options.metricsSecure === true && options.metricsAddress !== "off") {
      // The diagnostics endpoint (node-forge for its certificate) is loaded only when it is served.
      const { makeAuthorizer, secureMetricsRoutes, selfSignedCertificate, serveTlsOn } =
        yield* Effect.promise(() => import("./diagnostics.ts"))
      const authorize = yield* makeAuthorizer(client)
      const now = yield* Clock.currentTimeMillis
      const certificate =
        options.metricsCertificate ?? selfSignedCertificate(["localhost", "127.0.0.1", hostname()], now)
      const tls = {
        minVersion: options.tlsMinVersion ?? "TLSv1.2",
        ciphers: options.tlsCipherSuites ?? [],
        curves: options.tlsCurvePreferences ?? [],
      }
      yield* Layer.build(
        serveTlsOn(options.metricsAddress, secureMetricsRoutes(authorize), certificate, tls),
      ).pipe(Effect.mapError((e) => new Error(`diagnostics server: ${String(e)}`)))
    } else {
      yield* Layer.build(serveOn(options.metricsAddress, metricsRoutes)).pipe(
        Effect.mapError((e) => new Error(`metrics server: ${String(e)}`)),
      )
    }
    yield* Layer.build(serveOn(options.healthAddress, healthRoutes(ready))).pipe(
      Effect.mapError((e) => new Error(`health probe server: ${String(e)}`)),
    )
  })

/** Leader election as the manager's flags configure it. */
export interface LeadOptions {
  readonly leaderElect: boolean
  readonly leaderElectNamespace: string
  readonly leaderElectId: string
  readonly leaseDuration: number
  readonly renewDeadline: number
  readonly retryPeriod: number
}

/**
 * Waits to lead (when leader election is on) and keeps the Lease until the scope closes, then
 * releases it. The effect it returns fails when the Lease is lost (and never ends otherwise):
 * join it, so that a process that lost its Lease stops acting, as controller-runtime's does.
 */
export const lead = (
  client: KubeClientShape,
  options: LeadOptions,
): Effect.Effect<Effect.Effect<never, Error>, Error, Scope.Scope> =>
  Effect.gen(function* () {
    if (!options.leaderElect) return Effect.never
    const elector = yield* makeLeaderElector(client, {
      namespace: options.leaderElectNamespace,
      name: options.leaderElectId,
      identity: `${hostname()}_${randomUUID()}`,
      leaseDuration: options.leaseDuration,
      renewDeadline: options.renewDeadline,
      retryPeriod: options.retryPeriod,
    })
    yield* Effect.logInfo("waiting to lead").pipe(
      Effect.annotateLogs({ lease: `${options.leaderElectNamespace}/${options.leaderElectId}` }),
    )
    yield* elector.acquire
    yield* Effect.addFinalizer(() => elector.release)
    const lost = yield* Effect.forkScoped(
      Effect.flatMap(elector.renewLoop, () => Effect.never) as Effect.Effect<never, Error>,
    )
    return Fiber.join(lost)
  })
