/**
 * `krtt ipam init`, as upstream's `init` subcommand: installs the CRDs (config/ipam/crds, created
 * or updated), then the webhooks as openmcp's controller-utils installs them: a self-signed
 * certificate in the Secret `<provider-name>-webhook-tls` (kept when it already holds one), the
 * Service `<provider-name>-webhook` (443 → the webhook port) unless a base URL is given, and the
 * MutatingWebhookConfiguration for Clusters (CREATE, UPDATE; failure policy Fail) and the
 * ValidatingWebhookConfiguration for IPAMConfigs (CREATE, UPDATE, DELETE; Ignore, so that the
 * first IPAMConfig can be created before the server runs), each with the certificate as its
 * caBundle. With webhooks disabled, the two configurations are removed.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { IpamWebhooks } from "../../core/ipam/index.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import { type KubeObject, type ResourceRef, Resources } from "../kube/resource.ts"
import { selfSignedCertificate } from "../manager/diagnostics.ts"
import { IpamCrdFiles } from "./crds.ts"
import { parseManifests } from "./manifests.ts"

/** What `krtt ipam init` installs, and where. */
export interface IpamInitOptions {
  /** Names the Secret and the Service (upstream: the PlatformService's name). */
  readonly providerName: string
  /** Namespace of the Secret and the Service (upstream: `$POD_NAMESPACE`). */
  readonly namespace: string
  readonly webhooks: boolean
  /** The webhooks' URL base instead of the Service (controller-utils' `--webhooks-base-url`). */
  readonly baseUrl: string | undefined
  /** DNS names the certificate also holds (controller-utils' `--webhooks-additional-sans`). */
  readonly additionalSans: ReadonlyArray<string>
  /** The port the Service forwards to (the webhook server's, 9443). */
  readonly webhookPort: number
  /** The Service's port, which the webhook configurations call (443). */
  readonly servicePort: number
  /** How long a new certificate is valid, in milliseconds (10 years). */
  readonly certificateValidity: number
}

const webhookRef = (kind: "Mutating" | "Validating"): ResourceRef => ({
  group: "admissionregistration.k8s.io",
  version: "v1",
  resource: `${kind.toLowerCase()}webhookconfigurations`,
  kind: `${kind}WebhookConfiguration`,
  namespaced: false,
})
/** `krtt ipam init` could not write an object (named in the message) or the webhook Secret. */
export class IpamInitError extends Data.TaggedError("IpamInitError")<{ readonly message: string }> {}

export const MutatingWebhookConfigurationResource = webhookRef("Mutating")
export const ValidatingWebhookConfigurationResource = webhookRef("Validating")
const ServiceResource: ResourceRef = {
  group: "",
  version: "v1",
  resource: "services",
  kind: "Service",
  namespaced: true,
}

/** The CRDs of config/ipam/crds (as shell/ipam/crds.ts carries them, so an image without config/ has them). */
export const ipamCrds = (): ReadonlyArray<KubeObject> =>
  Object.keys(IpamCrdFiles)
    .sort()
    .flatMap((f) => parseManifests(f, IpamCrdFiles[f] as string))

/** Creates the object, or updates it on the version the server has. */
export const createOrUpdate = (
  client: KubeClientShape,
  ref: ResourceRef,
  object: KubeObject,
): Effect.Effect<"created" | "updated", KubeError> =>
  client.get(ref, { namespace: object.metadata.namespace, name: object.metadata.name ?? "" }).pipe(
    Effect.flatMap((current) =>
      client
        .update(ref, {
          ...object,
          metadata: { ...object.metadata, resourceVersion: current.metadata.resourceVersion },
        })
        .pipe(Effect.as("updated" as const)),
    ),
    Effect.catchTag("NotFound", () => client.create(ref, object).pipe(Effect.as("created" as const))),
  )

const suffixed = (name: string, suffix: string) => `${name.slice(0, 63 - suffix.length)}${suffix}`
/** upstream's names: `<provider>-webhook` and `<provider>-webhook-tls`. */
export const webhookServiceName = (provider: string) => suffixed(provider, "-webhook")
export const webhookSecretName = (provider: string) => suffixed(provider, "-webhook-tls")

/** The certificate of the Secret, created with a new self-signed one when it has none. */
const ensureCertificate = (client: KubeClientShape, o: IpamInitOptions) =>
  Effect.gen(function* () {
    const key = { namespace: o.namespace, name: webhookSecretName(o.providerName) }
    const existing = yield* client
      .get(Resources.secrets, key)
      .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
    const data = (existing as { data?: Record<string, string> } | undefined)?.data
    if (data?.["tls.crt"] !== undefined) return Buffer.from(data["tls.crt"], "base64").toString("utf8")
    const service = webhookServiceName(o.providerName)
    const hosts = [
      `${service}.${o.namespace}.svc`,
      `${service}.${o.namespace}.svc.cluster.local`,
      ...o.additionalSans,
    ]
    const cert = selfSignedCertificate(hosts, yield* Clock.currentTimeMillis, o.certificateValidity)
    const b64 = (t: string) => Buffer.from(t).toString("base64")
    yield* createOrUpdate(client, Resources.secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { ...key },
      type: "kubernetes.io/tls",
      data: { ...(data ?? {}), "tls.crt": b64(cert.cert), "tls.key": b64(cert.key) },
    } as KubeObject)
    return cert.cert
  })

/** The client config of a webhook: the base URL's path, or the Service's. */
const clientConfig = (o: IpamInitOptions, path: string, caBundle: string) =>
  o.baseUrl === undefined
    ? {
        caBundle,
        service: {
          name: webhookServiceName(o.providerName),
          namespace: o.namespace,
          path,
          port: o.servicePort,
        },
      }
    : { caBundle, url: `${o.baseUrl.replace(/\/$/, "")}${path}` }

/** The two webhook configurations, as controller-utils' webhook installer writes them. */
export const webhookConfigurations = (o: IpamInitOptions, certificate: string) => {
  const caBundle = Buffer.from(certificate).toString("base64")
  const rule = (w: (typeof IpamWebhooks)[keyof typeof IpamWebhooks], operations: ReadonlyArray<string>) => {
    const [group, version] = w.apiVersion.split("/")
    return { operations, apiGroups: [group], apiVersions: [version], resources: [w.resource] }
  }
  const m = IpamWebhooks.clusterDefaulting
  const v = IpamWebhooks.configValidation
  const common = { sideEffects: "None", admissionReviewVersions: ["v1"] }
  return {
    mutating: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingWebhookConfiguration",
      metadata: { name: m.configuration },
      webhooks: [
        {
          name: m.webhook,
          failurePolicy: "Fail",
          ...common,
          clientConfig: clientConfig(o, m.path, caBundle),
          rules: [rule(m, ["CREATE", "UPDATE"])],
        },
      ],
    } as unknown as KubeObject,
    validating: {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: v.configuration },
      webhooks: [
        {
          name: v.webhook,
          // upstream: the controller needs an IPAMConfig to start, so the webhook must not block the first one
          failurePolicy: "Ignore",
          ...common,
          clientConfig: clientConfig(o, v.path, caBundle),
          rules: [rule(v, ["CREATE", "UPDATE", "DELETE"])],
        },
      ],
    } as unknown as KubeObject,
  }
}

/** The webhook Service: 443 to the webhook port of upstream's PlatformService pods. */
const webhookService = (o: IpamInitOptions): KubeObject =>
  ({
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: o.namespace, name: webhookServiceName(o.providerName) },
    spec: {
      type: "ClusterIP",
      selector: {
        "app.kubernetes.io/component": "controller",
        "app.kubernetes.io/managed-by": "openmcp-operator",
        "app.kubernetes.io/name": "PlatformService",
        "app.kubernetes.io/instance": o.providerName,
      },
      ports: [{ name: "https", protocol: "TCP", port: o.servicePort, targetPort: o.webhookPort }],
    },
  }) as unknown as KubeObject

const describe = (ref: ResourceRef, o: KubeObject) =>
  `${ref.kind} ${o.metadata.namespace === undefined ? "" : `${o.metadata.namespace}/`}${o.metadata.name ?? ""}`

/** Runs the init; each object it writes is logged with what happened to it. */
export const ipamInit = (client: KubeClientShape, o: IpamInitOptions): Effect.Effect<void, IpamInitError> =>
  Effect.gen(function* () {
    const write = (ref: ResourceRef, object: KubeObject) =>
      createOrUpdate(client, ref, object).pipe(
        Effect.tap((what) => Effect.logInfo(`${describe(ref, object)} ${what}`)),
        Effect.mapError(
          (e) => new IpamInitError({ message: `${describe(ref, object)}: ${e._tag}: ${e.message}` }),
        ),
      )
    for (const crd of ipamCrds()) yield* write(Resources.customResourceDefinitions, crd)
    const configurations = [
      { ref: MutatingWebhookConfigurationResource, name: IpamWebhooks.clusterDefaulting.configuration },
      { ref: ValidatingWebhookConfigurationResource, name: IpamWebhooks.configValidation.configuration },
    ]
    if (!o.webhooks) {
      for (const c of configurations)
        yield* client.delete(c.ref, { name: c.name }).pipe(
          Effect.tap(() => Effect.logInfo(`${c.ref.kind} ${c.name} deleted`)),
          Effect.catchTag("NotFound", () => Effect.void),
          Effect.mapError(
            (e) => new IpamInitError({ message: `${c.ref.kind} ${c.name}: ${e._tag}: ${e.message}` }),
          ),
        )
      return
    }
    const certificate = yield* ensureCertificate(client, o).pipe(
      Effect.mapError((e) => new IpamInitError({ message: `the webhook Secret: ${e._tag}: ${e.message}` })),
    )
    if (o.baseUrl === undefined) yield* write(ServiceResource, webhookService(o))
    const { mutating, validating } = webhookConfigurations(o, certificate)
    yield* write(MutatingWebhookConfigurationResource, mutating)
    yield* write(ValidatingWebhookConfigurationResource, validating)
  })
