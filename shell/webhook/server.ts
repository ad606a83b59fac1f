/**
 * The webhook server of `krtt run`, as upstream's manager serves it: HTTPS on `--webhook-port`
 * (9443) with the certificate `--webhook-cert-name` (tls.crt) and key `--webhook-key-name`
 * (tls.key) of `--webhook-cert-dir` (/tmp/k8s-webhook-server/serving-certs/), TLS as
 * `--tls-min-version`/`--tls-cipher-suites`/`--tls-curve-preferences`.
 *
 * Routes: `POST /convert`, the CRD conversion webhook (`apiextensions.k8s.io/v1`
 * ConversionReview) for Clusters between `cluster.x-k8s.io/v1beta1` and `v1beta2`
 * (`core/cluster/conversion.ts`); the version of a ref going down to v1beta1 is the one the
 * provider CRD's contract label names, as upstream resolves it. Upstream's admission paths
 * `/mutate-cluster-x-k8s-io-v1beta2-cluster` (defaulting) and
 * `/validate-cluster-x-k8s-io-v1beta2-cluster` (validation), AdmissionReview v1, with the rules of
 * `core/cluster/admission.ts`; each refusal names its field.
 *
 * A renewed certificate is loaded when the cert dir changes, as controller-runtime's certificate
 * watcher does.
 *
 * @module
 */

import { readFileSync, watch } from "node:fs"
import type { Server } from "node:http"
import { createServer } from "node:https"
import { join } from "node:path"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import {
  type AdmittedCluster,
  defaultCluster,
  type FieldError,
  invalidMessage,
  validateCluster,
} from "../../core/cluster/admission.ts"
import { ClusterApiV1Beta1Version, ClusterApiVersion } from "../../core/cluster/contract.ts"
import {
  type ClusterObject,
  ConversionError,
  convertCluster,
  type VersionResolver,
} from "../../core/cluster/conversion.ts"
import {
  currentBodyLimit,
  limitServer,
  ServerLimitDefaults,
  type ServerLimits,
  serverOptions,
  withBodyLimit,
} from "../http/limits.ts"

/** Where the serving certificate is, and how TLS is configured. */
export interface WebhookServerOptions {
  readonly host?: string | undefined
  readonly port: number
  readonly certDir: string
  readonly certName: string
  readonly keyName: string
  readonly tls: {
    readonly minVersion: "TLSv1" | "TLSv1.1" | "TLSv1.2" | "TLSv1.3"
    readonly ciphers: ReadonlyArray<string>
    /** OpenSSL names of the key exchange groups offered; absent or empty: Node's defaults. */
    readonly curves?: ReadonlyArray<string> | undefined
  }
  /** The server's limits on requests and connections; {@link ServerLimitDefaults} by default. */
  readonly limits?: ServerLimits | undefined
}

/** The paths of the serving certificate and key. */
export const certificatePaths = (o: Pick<WebhookServerOptions, "certDir" | "certName" | "keyName">) => ({
  cert: join(o.certDir, o.certName),
  key: join(o.certDir, o.keyName),
})

interface ConversionRequest {
  readonly uid?: string
  readonly desiredAPIVersion?: string
  readonly objects?: ReadonlyArray<ClusterObject>
}

/**
 * Answers a ConversionReview: every object converted, or a Failure naming the object and the
 * field that cannot be converted (the API server then refuses the request with that message).
 */
export const review = (body: unknown, resolve: VersionResolver): Record<string, unknown> => {
  const request = ((body as { request?: ConversionRequest } | undefined)?.request ?? {}) as ConversionRequest
  const uid = request.uid ?? ""
  const failure = (message: string) => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    response: { uid, result: { status: "Failure", message } },
  })
  const desired = request.desiredAPIVersion
  if (desired !== ClusterApiV1Beta1Version && desired !== ClusterApiVersion)
    return failure(`request.desiredAPIVersion: ${String(desired)} is not cluster.x-k8s.io/v1beta1 or v1beta2`)
  const to = desired === ClusterApiV1Beta1Version ? "v1beta1" : "v1beta2"
  const convertedObjects: Array<ClusterObject> = []
  for (const o of request.objects ?? []) {
    try {
      convertedObjects.push(convertCluster(o, to, resolve))
    } catch (e) {
      const what = `${o.kind ?? "object"} ${String(o.metadata?.namespace ?? "")}/${String(o.metadata?.name ?? "")}`
      return failure(`${what}: ${e instanceof ConversionError ? e.message : String(e)}`)
    }
  }
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    response: { uid, convertedObjects, result: { status: "Success" } },
  }
}

interface AdmissionRequest {
  readonly uid?: string
  readonly operation?: string
  readonly name?: string
  readonly object?: AdmittedCluster
  readonly oldObject?: AdmittedCluster
}

const admissionResponse = (uid: string, response: Record<string, unknown>) => ({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  response: { uid, ...response },
})

const refused = (uid: string, name: string, errors: ReadonlyArray<FieldError>) =>
  admissionResponse(uid, {
    allowed: false,
    status: { status: "Failure", code: 422, reason: "Invalid", message: invalidMessage(name, errors) },
  })

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * The refusal of a request whose object cannot be read as a Cluster (what kube-apiserver never
 * sends, but a client of the webhook's port may): 400, as controller-runtime answers a request it
 * cannot decode, naming what is wrong.
 */
const undecodable = (uid: string, message: string) =>
  admissionResponse(uid, {
    allowed: false,
    status: {
      status: "Failure",
      code: 400,
      reason: "BadRequest",
      message: `the object is not a Cluster: ${message}`,
    },
  })

/** What makes an admitted object unreadable as a Cluster, if anything: the object and metadata must be objects. */
const shapeError = (object: unknown): string | undefined => {
  if (!isRecord(object)) return "request.object is not an object"
  if (!isRecord(object.metadata)) return "request.object.metadata is not an object"
  for (const key of ["spec", "status"] as const)
    if (object[key] !== undefined && !isRecord(object[key])) return `request.object.${key} is not an object`
  return undefined
}

/**
 * Reviews a well-shaped object; a field of a type the checks do not expect still refuses the
 * request (400) instead of failing the server.
 */
const reviewed = (uid: string, review: () => Record<string, unknown>): Record<string, unknown> => {
  try {
    return review()
  } catch (e) {
    return undecodable(uid, e instanceof Error ? e.message : String(e))
  }
}

/** Answers a mutating AdmissionReview: the defaulting as a JSON patch. */
export const mutate = (body: unknown): Record<string, unknown> => {
  const request = ((body as { request?: AdmissionRequest } | undefined)?.request ?? {}) as AdmissionRequest
  const uid = typeof request.uid === "string" ? request.uid : ""
  const object = request.object
  if (object === undefined) return admissionResponse(uid, { allowed: true })
  const shape = shapeError(object)
  if (shape !== undefined) return undecodable(uid, shape)
  return reviewed(uid, () => defaulted(uid, request, object))
}

const defaulted = (uid: string, request: AdmissionRequest, object: AdmittedCluster) => {
  const d = defaultCluster(object)
  if ("errors" in d) return refused(uid, object.metadata?.name ?? request.name ?? "", d.errors)
  return d.patch.length === 0
    ? admissionResponse(uid, { allowed: true })
    : admissionResponse(uid, {
        allowed: true,
        patchType: "JSONPatch",
        patch: Buffer.from(JSON.stringify(d.patch)).toString("base64"),
      })
}

/** Answers a validating AdmissionReview; deletes are always allowed. */
export const validate = (
  body: unknown,
  gates: { readonly clusterTopology: boolean },
): Record<string, unknown> => {
  const request = ((body as { request?: AdmissionRequest } | undefined)?.request ?? {}) as AdmissionRequest
  const uid = typeof request.uid === "string" ? request.uid : ""
  const object = request.object
  if (request.operation === "DELETE" || object === undefined) return admissionResponse(uid, { allowed: true })
  const old = request.operation === "UPDATE" ? request.oldObject : undefined
  const shape = shapeError(object) ?? (old === undefined ? undefined : shapeError(old))
  if (shape !== undefined) return undecodable(uid, shape)
  return reviewed(uid, () => {
    const errors = validateCluster(old, object, gates)
    return errors.length === 0
      ? admissionResponse(uid, { allowed: true })
      : refused(uid, object.metadata?.name ?? request.name ?? "", errors)
  })
}

const json = (value: unknown, status = 200) =>
  HttpServerResponse.text(JSON.stringify(value), { status, contentType: "application/json" })

/**
 * A `POST` route that answers a JSON body with JSON (AdmissionReview, ConversionReview). A body
 * over the limit is refused with 413 before it is read when its length is announced, and its
 * reading stops at the limit otherwise (400), as controller-runtime's webhooks bound theirs.
 */
export const route = (
  path: `/${string}`,
  answer: (body: unknown) => Effect.Effect<Record<string, unknown>> | Record<string, unknown>,
) =>
  HttpRouter.add(
    "POST",
    path,
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const limit = yield* currentBodyLimit
      const announced = Number(request.headers["content-length"] ?? "0")
      if (announced > limit)
        return json({ message: `request entity is too large; limit is ${limit} bytes` }, 413)
      const body = yield* Effect.result(withBodyLimit(request.json, limit))
      if (body._tag === "Failure")
        return json({ message: `the body is not JSON of at most ${limit} bytes` }, 400)
      const answered = answer(body.success)
      return json(Effect.isEffect(answered) ? yield* answered : answered)
    }),
  )

/** The routes: `/convert` and upstream's Cluster admission paths. */
export const webhookRoutes = (
  resolve: VersionResolver,
  gates: { readonly clusterTopology: boolean } = { clusterTopology: false },
) =>
  Layer.mergeAll(
    route("/convert", (body) => review(body, resolve)),
    route("/mutate-cluster-x-k8s-io-v1beta2-cluster", mutate),
    route("/validate-cluster-x-k8s-io-v1beta2-cluster", (body) => validate(body, gates)),
  )

/**
 * Serves the webhooks over HTTPS with the certificate of the cert dir. The certificate is read at
 * start and again whenever the directory changes (cert-manager renews it by swapping the Secret
 * volume's files), as controller-runtime's certificate watcher does; a certificate that cannot be
 * read then keeps the previous one in use.
 */
export const serveWebhooks = (
  options: WebhookServerOptions,
  resolve: VersionResolver,
  gates: { readonly clusterTopology: boolean } = { clusterTopology: false },
) => serveRoutes(options, webhookRoutes(resolve, gates))

/** Serves `routes` over HTTPS as `serveWebhooks` does (certificate of the cert dir, reloaded on change). */
export const serveRoutes = <E, R>(options: WebhookServerOptions, routes: Layer.Layer<never, E, R>) => {
  const paths = certificatePaths(options)
  const read = () => ({ cert: readFileSync(paths.cert, "utf8"), key: readFileSync(paths.key, "utf8") })
  const first = read()
  const tls = {
    minVersion: options.tls.minVersion,
    ...(options.tls.ciphers.length === 0 ? {} : { ciphers: options.tls.ciphers.join(":") }),
    ...(options.tls.curves === undefined || options.tls.curves.length === 0
      ? {}
      : { ecdhCurve: options.tls.curves.join(":") }),
  }
  const make = () => {
    const server = limitServer(
      createServer({ ...first, ...tls, ...serverOptions(options.limits) }),
      options.limits,
    )
    let loaded = `${first.cert}${first.key}`
    const reload = () => {
      try {
        const next = read()
        if (`${next.cert}${next.key}` === loaded) return
        server.setSecureContext({ ...next, ...tls })
        loaded = `${next.cert}${next.key}`
      } catch {
        // Half-written files: the next change event reads them again.
      }
    }
    const watcher = watch(options.certDir, { persistent: false }, reload)
    server.on("close", () => watcher.close())
    return server as unknown as Server
  }
  const bodyLimit = (options.limits ?? ServerLimitDefaults).maxRequestBytes
  return HttpRouter.serve(routes, {
    disableLogger: true,
    middleware: (effect) => withBodyLimit(effect, bodyLimit),
  }).pipe(Layer.provide(NodeHttpServer.layer(make, { host: options.host ?? "0.0.0.0", port: options.port })))
}
