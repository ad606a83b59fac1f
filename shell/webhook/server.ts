/**
 * The webhook server of `krtt run`, as upstream's manager serves it: HTTPS on `--webhook-port`
 * (9443) with the certificate `--webhook-cert-name` (tls.crt) and key `--webhook-key-name`
 * (tls.key) of `--webhook-cert-dir` (/tmp/k8s-webhook-server/serving-certs/), TLS as
 * `--tls-min-version`/`--tls-cipher-suites`.
 *
 * Routes: `POST /convert`, the CRD conversion webhook (`apiextensions.k8s.io/v1`
 * ConversionReview) for Clusters between `cluster.x-k8s.io/v1beta1` and `v1beta2`
 * (`core/cluster/conversion.ts`); the version of a ref going down to v1beta1 is the one the
 * provider CRD's contract label names, as upstream resolves it.
 *
 * Caveat: the certificate is read at start; a rotated certificate (cert-manager renews it) is
 * used after a restart, where controller-runtime's certificate watcher reloads it at once.
 *
 * @module
 */
import { readFileSync } from "node:fs"
import type { Server } from "node:http"
import { createServer } from "node:https"
import { join } from "node:path"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import {
  type ClusterObject,
  ConversionError,
  convertCluster,
  type VersionResolver,
} from "../../core/cluster/conversion.ts"

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
  }
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
  if (desired !== "cluster.x-k8s.io/v1beta1" && desired !== "cluster.x-k8s.io/v1beta2")
    return failure(`request.desiredAPIVersion: ${String(desired)} is not cluster.x-k8s.io/v1beta1 or v1beta2`)
  const to = desired === "cluster.x-k8s.io/v1beta1" ? "v1beta1" : "v1beta2"
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

const json = (value: unknown, status = 200) =>
  HttpServerResponse.text(JSON.stringify(value), { status, contentType: "application/json" })

/** The routes: `POST /convert`. */
export const webhookRoutes = (resolve: VersionResolver) =>
  HttpRouter.add(
    "POST",
    "/convert",
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const body = yield* Effect.result(request.json)
      if (body._tag === "Failure") return json({ message: "the body is not a JSON ConversionReview" }, 400)
      return json(review(body.success, resolve))
    }),
  )

/** Serves the webhooks over HTTPS with the certificate of the cert dir (read now). */
export const serveWebhooks = (options: WebhookServerOptions, resolve: VersionResolver) => {
  const paths = certificatePaths(options)
  const cert = readFileSync(paths.cert, "utf8")
  const key = readFileSync(paths.key, "utf8")
  return HttpRouter.serve(webhookRoutes(resolve), { disableLogger: true }).pipe(
    Layer.provide(
      NodeHttpServer.layer(
        () =>
          createServer({
            cert,
            key,
            minVersion: options.tls.minVersion,
            ...(options.tls.ciphers.length === 0 ? {} : { ciphers: options.tls.ciphers.join(":") }),
          }) as unknown as Server,
        { host: options.host ?? "0.0.0.0", port: options.port },
      ),
    ),
  )
}
