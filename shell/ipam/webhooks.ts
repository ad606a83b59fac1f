/**
 * The IPAM controller's webhook server, as upstream's manager serves it: HTTPS on the webhook port
 * (controller-runtime's 9443) with `--webhook-cert-name`/`--webhook-cert-key` of
 * `--webhook-cert-path` (controller-runtime's `<tmp>/k8s-webhook-server/serving-certs` when
 * empty), reloaded when the files change. Two AdmissionReview v1 routes, decided by
 * core/ipam/admission.ts:
 *
 * - `/mutate-clusters-openmcp-cloud-v1alpha1-cluster`: ClusterConfig references into a Cluster,
 *   from the IPAMConfig `--config` read at each request (every replica answers, leading or not);
 * - `/validate-gardener-clusters-openmcp-cloud-v1alpha1-ipamconfig`: IPAMConfig validation.
 *
 * @module
 */
import { existsSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import {
  type AdmissionDecision,
  defaultClusterAdmission,
  IpamConfigInvalidError,
  type IpamConfigSpec,
  IpamWebhooks,
  validateIpamConfig,
  validateIpamConfigAdmission,
} from "../../core/ipam/index.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { route, serveRoutes } from "../webhook/server.ts"
import { IpamConfigResource } from "./resources.ts"

/** Where the webhook server listens and which certificate it serves. */
export interface IpamWebhookOptions {
  readonly port: number
  /** Empty: controller-runtime's default directory. */
  readonly certPath: string
  readonly certName: string
  readonly keyName: string
}

/** controller-runtime's default certificate directory. */
/** The webhooks cannot be served: the certificate is missing or unreadable, or the server would not start. */
export class IpamWebhookError extends Data.TaggedError("IpamWebhookError")<{ readonly message: string }> {}

export const defaultWebhookCertDir = (): string => join(tmpdir(), "k8s-webhook-server", "serving-certs")

interface AdmissionRequest {
  readonly uid?: string
  readonly operation?: string
  readonly namespace?: string
  readonly object?: unknown
}

const requestOf = (body: unknown): AdmissionRequest =>
  ((body as { request?: AdmissionRequest } | undefined)?.request ?? {}) as AdmissionRequest

/** An AdmissionReview response for a decision. */
export const admissionReview = (uid: string, d: AdmissionDecision): Record<string, unknown> => ({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  response: d.allowed
    ? {
        uid,
        allowed: true,
        ...(d.patch.length === 0
          ? {}
          : { patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(d.patch)).toString("base64") }),
      }
    : {
        uid,
        allowed: false,
        status: {
          status: "Failure",
          code: d.code,
          reason: d.code === 422 ? "Invalid" : "InternalError",
          message: d.message,
        },
      },
})

/** The IPAMConfig `name` as the controller would take it, or undefined (absent, unreadable, invalid). */
export const readConfig = (
  client: KubeClientShape,
  name: string,
): Effect.Effect<IpamConfigSpec | undefined> =>
  client.get(IpamConfigResource, { name }).pipe(
    Effect.map((o) => {
      const r = validateIpamConfig({ spec: o.spec ?? {} })
      return r instanceof IpamConfigInvalidError ? undefined : r.config
    }),
    Effect.catch(() => Effect.succeed(undefined)),
  )

/** The two routes. */
export const ipamWebhookRoutes = (config: Effect.Effect<IpamConfigSpec | undefined>) =>
  Layer.mergeAll(
    route(IpamWebhooks.clusterDefaulting.path, (body) => {
      const request = requestOf(body)
      return Effect.map(config, (c) =>
        admissionReview(
          request.uid ?? "",
          defaultClusterAdmission(c, request.object, request.namespace ?? ""),
        ),
      )
    }),
    route(IpamWebhooks.configValidation.path, (body) => {
      const request = requestOf(body)
      return admissionReview(
        request.uid ?? "",
        validateIpamConfigAdmission(request.operation ?? "", request.object),
      )
    }),
  )

/** Serves the webhooks until the scope closes; a missing certificate fails naming the flags. */
export const serveIpamWebhooks = (
  client: KubeClientShape,
  configName: string,
  options: IpamWebhookOptions,
): Effect.Effect<void, IpamWebhookError, Scope.Scope> =>
  Effect.gen(function* () {
    const certDir = options.certPath === "" ? defaultWebhookCertDir() : options.certPath
    for (const file of [options.certName, options.keyName])
      if (!existsSync(join(certDir, file)))
        return yield* Effect.fail(
          new IpamWebhookError({
            message: `the webhook certificate ${join(certDir, file)} does not exist: give --webhook-cert-path (the certificate krtt ipam init stores in the Secret <provider-name>-webhook-tls), or --disable-webhooks`,
          }),
        )
    const server = yield* Effect.try({
      try: () =>
        serveRoutes(
          {
            port: options.port,
            certDir,
            certName: options.certName,
            keyName: options.keyName,
            tls: { minVersion: "TLSv1.2", ciphers: [] },
          },
          ipamWebhookRoutes(readConfig(client, configName)),
        ),
      catch: (e) =>
        new IpamWebhookError({ message: `the webhook certificate in ${certDir}: ${(e as Error).message}` }),
    })
    yield* Layer.build(server).pipe(
      Effect.mapError((e) => new IpamWebhookError({ message: `webhook server: ${String(e)}` })),
    )
  })
