/**
 * The diagnostics endpoint as upstream serves it (`--diagnostics-address`, default :8443):
 * `/metrics` over HTTPS, each request authenticated with a TokenReview of its bearer token and
 * authorized with a SubjectAccessReview (`get` on the non-resource URL `/metrics`), like
 * controller-runtime's `filters.WithAuthenticationAndAuthorization`. The serving certificate is
 * self-signed at start, as controller-runtime does without a certificate directory.
 * `--insecure-diagnostics` serves plain HTTP without authentication instead.
 *
 * Decisions are cached for {@link DiagnosticsDefaults} (controller-runtime's delegating
 * authenticator and authorizer cache them too); tokens are never logged.
 *
 * @module
 */

import { createHash, generateKeyPairSync, randomBytes } from "node:crypto"
import type { Server } from "node:http"
import { createServer } from "node:https"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as PrometheusMetrics from "effect/observability/PrometheusMetrics"
import * as Ref from "effect/Ref"
import forge from "node-forge"
import { limitServer, ServerLimitDefaults, type ServerLimits, serverOptions } from "../http/limits.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"

/** How long an authentication or authorization decision is reused, in ms. */
export const DiagnosticsDefaults = {
  /** A TokenReview's answer. Default 1 min. */
  authenticationCacheTtl: 60_000,
  /** An allowing SubjectAccessReview. Default 5 min. */
  authorizedCacheTtl: 300_000,
  /** A denying SubjectAccessReview. Default 30 s. */
  deniedCacheTtl: 30_000,
  /** The most decisions kept: expired ones go first, then the oldest. Default 1,000. */
  cacheSize: 1_000,
  /** Validity of the self-signed serving certificate. Default 1 year. */
  certificateValidity: 365 * 24 * 3_600_000,
} as const

export const TokenReviewResource: ResourceRef = {
  group: "authentication.k8s.io",
  version: "v1",
  resource: "tokenreviews",
  kind: "TokenReview",
  namespaced: false,
}
export const SubjectAccessReviewResource: ResourceRef = {
  group: "authorization.k8s.io",
  version: "v1",
  resource: "subjectaccessreviews",
  kind: "SubjectAccessReview",
  namespaced: false,
}

/** A PEM certificate and key. */
export interface ServingCertificate {
  readonly cert: string
  readonly key: string
}

/** A self-signed certificate for `hosts` (DNS names and IP addresses), valid from `now`. */
export const selfSignedCertificate = (
  hosts: ReadonlyArray<string>,
  now: number,
  validity: number = DiagnosticsDefaults.certificateValidity,
): ServingCertificate => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  })
  const cert = forge.pki.createCertificate()
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey)
  cert.serialNumber = `01${randomBytes(8).toString("hex")}`
  cert.validity.notBefore = new Date(now - 60_000)
  cert.validity.notAfter = new Date(now + validity)
  // UTF8String: '@' is no PrintableString character, and Go's TLS clients refuse a malformed name
  const subject = [
    {
      name: "commonName",
      value: `krtt-diagnostics@${Math.floor(now / 1000)}`,
      valueTagClass: forge.asn1.Type.UTF8 as unknown as forge.asn1.Class,
    },
  ]
  cert.setSubject(subject)
  cert.setIssuer(subject)
  const ip = /^[\d.]+$|:/
  cert.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
    { name: "extKeyUsage", serverAuth: true },
    {
      name: "subjectAltName",
      altNames: hosts.map((h) => (ip.test(h) ? { type: 7, ip: h } : { type: 2, value: h })),
    },
  ])
  cert.sign(forge.pki.privateKeyFromPem(privateKey), forge.md.sha256.create())
  return { cert: forge.pki.certificateToPem(cert), key: privateKey }
}

/** Why a request to `/metrics` is refused. */
export type Refusal = { readonly status: 401 | 403 | 500; readonly message: string }

interface Cached {
  readonly until: number
  readonly outcome: Refusal | undefined
}

type Review = KubeObject & {
  readonly status?: {
    readonly authenticated?: boolean
    readonly allowed?: boolean
    readonly reason?: string
    readonly user?: {
      readonly username?: string
      readonly uid?: string
      readonly groups?: ReadonlyArray<string>
      readonly extra?: Readonly<Record<string, ReadonlyArray<string>>>
    }
  }
}

/**
 * Decides whether a request may read `path`: its bearer token is reviewed (TokenReview), then
 * the user's access to `verb` on the non-resource URL (SubjectAccessReview). `undefined`: allowed.
 */
export const makeAuthorizer = (client: KubeClientShape) =>
  Effect.gen(function* () {
    const cache = yield* Ref.make(new Map<string, Cached>())
    const decide = (token: string, path: string, verb: string) =>
      Effect.gen(function* () {
        const tr = (yield* client.create(TokenReviewResource, {
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenReview",
          metadata: { name: "" },
          spec: { token },
        } as KubeObject)) as Review
        if (tr.status?.authenticated !== true)
          return { status: 401, message: "Unauthorized" } satisfies Refusal as Refusal | undefined
        const user = tr.status.user ?? {}
        const sar = (yield* client.create(SubjectAccessReviewResource, {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          metadata: { name: "" },
          spec: {
            user: user.username,
            uid: user.uid,
            groups: user.groups,
            extra: user.extra,
            nonResourceAttributes: { path, verb },
          },
        } as KubeObject)) as Review
        if (sar.status?.allowed !== true)
          return {
            status: 403,
            message: `Authorization denied for user ${user.username ?? ""}: ${verb} ${path}${sar.status?.reason === undefined ? "" : `: ${sar.status.reason}`}`,
          } satisfies Refusal as Refusal | undefined
        return undefined
      })
    return (authorization: string | undefined, path: string, verb: string) =>
      Effect.gen(function* () {
        const token = /^Bearer\s+(.+)$/i.exec(authorization ?? "")?.[1]?.trim()
        if (token === undefined || token === "") return { status: 401, message: "Unauthorized" } as Refusal
        // The cache is keyed by a digest of the token, never the token itself.
        const key = `${createHash("sha256").update(token).digest("hex")} ${verb} ${path}`
        const now = yield* Clock.currentTimeMillis
        const hit = (yield* Ref.get(cache)).get(key)
        if (hit !== undefined && hit.until > now) return hit.outcome
        const outcome = yield* decide(token, path, verb).pipe(
          Effect.catch((e) =>
            Effect.succeed<Refusal | undefined>({
              status: 500,
              message: `cannot review the request: ${e._tag}`,
            }),
          ),
        )
        if (outcome?.status !== 500) {
          const ttl =
            outcome === undefined
              ? DiagnosticsDefaults.authorizedCacheTtl
              : outcome.status === 401
                ? DiagnosticsDefaults.authenticationCacheTtl
                : DiagnosticsDefaults.deniedCacheTtl
          yield* Ref.update(cache, (m) => {
            const next = new Map(m)
            next.delete(key)
            if (next.size >= DiagnosticsDefaults.cacheSize)
              for (const [k, c] of next) if (c.until <= now) next.delete(k)
            // A Map keeps insertion order: the first keys are the oldest decisions.
            for (const k of next.keys()) {
              if (next.size < DiagnosticsDefaults.cacheSize) break
              next.delete(k)
            }
            return next.set(key, { until: now + ttl, outcome })
          })
        }
        return outcome
      })
  })

const metricsText = Effect.map(PrometheusMetrics.format(), (body) =>
  HttpServerResponse.text(body, { contentType: "text/plain; version=0.0.4; charset=utf-8" }),
)

/** `/metrics` behind authentication and authorization. */
export const secureMetricsRoutes = (
  authorize: (
    authorization: string | undefined,
    path: string,
    verb: string,
  ) => Effect.Effect<Refusal | undefined>,
) =>
  HttpRouter.add(
    "GET",
    "/metrics",
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const refused = yield* authorize(request.headers.authorization, "/metrics", "get")
      if (refused !== undefined) return HttpServerResponse.text(refused.message, { status: refused.status })
      return yield* metricsText
    }),
  )

/**
 * TLS settings of the HTTPS servers (`--tls-min-version`, `--tls-cipher-suites`,
 * `--tls-curve-preferences`).
 */
export interface TlsSettings {
  readonly minVersion: "TLSv1" | "TLSv1.1" | "TLSv1.2" | "TLSv1.3"
  /** OpenSSL names; empty: Node's defaults. */
  readonly ciphers: ReadonlyArray<string>
  /** OpenSSL names of the key exchange groups offered; absent or empty: Node's defaults. */
  readonly curves?: ReadonlyArray<string> | undefined
}

/** The options of Node's TLS servers that {@link TlsSettings} set. */
export const tlsServerOptions = (
  tls: TlsSettings,
): { minVersion: TlsSettings["minVersion"]; ciphers?: string; ecdhCurve?: string } => ({
  minVersion: tls.minVersion,
  ...(tls.ciphers.length === 0 ? {} : { ciphers: tls.ciphers.join(":") }),
  ...(tls.curves === undefined || tls.curves.length === 0 ? {} : { ecdhCurve: tls.curves.join(":") }),
})

/** Serves `routes` over HTTPS on an address; nothing when it is off. */
export const serveTlsOn = <E, R>(
  address: { readonly host: string; readonly port: number } | "off",
  routes: Layer.Layer<never, E, R>,
  certificate: ServingCertificate,
  tls: TlsSettings,
  limits: ServerLimits = ServerLimitDefaults,
) =>
  address === "off"
    ? Layer.empty
    : HttpRouter.serve(routes, { disableLogger: true }).pipe(
        Layer.provide(
          NodeHttpServer.layer(
            () =>
              limitServer(
                createServer({
                  cert: certificate.cert,
                  key: certificate.key,
                  ...tlsServerOptions(tls),
                  ...serverOptions(limits),
                }),
                limits,
              ) as unknown as Server,
            { host: address.host, port: address.port },
          ),
        ),
      )
