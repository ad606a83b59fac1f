// `krtt ipam init` on the in-memory API server: what it installs (CRDs, Secret, Service, the two
// webhook configurations as upstream's init writes them), that a second run keeps the
// certificate, and that --disable-webhooks removes the configurations.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { IpamWebhooks } from "../../core/ipam/index.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { type KubeObject, type ResourceRef, Resources } from "../kube/resource.ts"
import {
  type IpamInitOptions,
  ipamCrds,
  ipamInit,
  MutatingWebhookConfigurationResource,
  ValidatingWebhookConfigurationResource,
  webhookSecretName,
  webhookServiceName,
} from "./init.ts"

const Services: ResourceRef = {
  group: "",
  version: "v1",
  resource: "services",
  kind: "Service",
  namespaced: true,
}
const options: IpamInitOptions = {
  providerName: "ipam",
  namespace: "openmcp-system",
  webhooks: true,
  baseUrl: undefined,
  additionalSans: [],
  webhookPort: 9443,
  servicePort: 443,
  certificateValidity: 10 * 365 * 24 * 3_600_000,
}

const setup = Effect.gen(function* () {
  const fake = yield* FakeApiServer.make({
    resources: [
      ...Object.values(Resources),
      Services,
      MutatingWebhookConfigurationResource,
      ValidatingWebhookConfigurationResource,
    ],
  })
  return yield* makeMemoryClient(fake)
})

type Webhooks = KubeObject & { readonly webhooks: ReadonlyArray<Record<string, unknown>> }

describe("krtt ipam init", () => {
  it("names the Secret and the Service as upstream, shortened to 63 characters", () => {
    assert.strictEqual(webhookServiceName("ipam"), "ipam-webhook")
    assert.strictEqual(webhookSecretName("ipam"), "ipam-webhook-tls")
    assert.strictEqual(webhookSecretName("x".repeat(80)).length, 63)
    assert.isTrue(webhookSecretName("x".repeat(80)).endsWith("-webhook-tls"))
  })

  it("reads the three CRDs of config/ipam/crds", () => {
    assert.deepStrictEqual(
      ipamCrds()
        .map((c) => c.metadata.name)
        .sort(),
      [
        "clusterconfigs.gardener.clusters.openmcp.cloud",
        "clusters.clusters.openmcp.cloud",
        "ipamconfigs.gardener.clusters.openmcp.cloud",
      ],
    )
  })

  it.effect(
    "installs the CRDs, the certificate, the Service and both webhook configurations; a second run keeps the certificate",
    () =>
      Effect.gen(function* () {
        const client = yield* setup
        yield* ipamInit(client, options)
        const crds = yield* client.listAll(Resources.customResourceDefinitions)
        assert.strictEqual(crds.items.length, 3)
        const secret = (yield* client.get(Resources.secrets, {
          namespace: "openmcp-system",
          name: "ipam-webhook-tls",
        })) as KubeObject & { data: Record<string, string> }
        const cert = Buffer.from(secret.data["tls.crt"] ?? "", "base64").toString("utf8")
        assert.match(cert, /BEGIN CERTIFICATE/)
        assert.match(Buffer.from(secret.data["tls.key"] ?? "", "base64").toString("utf8"), /PRIVATE KEY/)
        const service = (yield* client.get(Services, {
          namespace: "openmcp-system",
          name: "ipam-webhook",
        })) as KubeObject & {
          spec: {
            ports: ReadonlyArray<{ port: number; targetPort: number }>
            selector: Record<string, string>
          }
        }
        assert.deepStrictEqual(
          service.spec.ports.map((p) => [p.port, p.targetPort]),
          [[443, 9443]],
        )
        assert.strictEqual(service.spec.selector["app.kubernetes.io/instance"], "ipam")
        const mutating = (yield* client.get(MutatingWebhookConfigurationResource, {
          name: IpamWebhooks.clusterDefaulting.configuration,
        })) as Webhooks
        assert.deepStrictEqual(mutating.webhooks[0], {
          name: "mcluster.clusters.openmcp.cloud",
          failurePolicy: "Fail",
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          clientConfig: {
            caBundle: secret.data["tls.crt"],
            service: {
              name: "ipam-webhook",
              namespace: "openmcp-system",
              path: "/mutate-clusters-openmcp-cloud-v1alpha1-cluster",
              port: 443,
            },
          },
          rules: [
            {
              operations: ["CREATE", "UPDATE"],
              apiGroups: ["clusters.openmcp.cloud"],
              apiVersions: ["v1alpha1"],
              resources: ["clusters"],
            },
          ],
        })
        const validating = (yield* client.get(ValidatingWebhookConfigurationResource, {
          name: IpamWebhooks.configValidation.configuration,
        })) as Webhooks
        assert.strictEqual(validating.webhooks[0]?.failurePolicy, "Ignore")
        assert.deepStrictEqual(
          (validating.webhooks[0]?.rules as ReadonlyArray<{ operations: unknown }> | undefined)?.[0]
            ?.operations,
          ["CREATE", "UPDATE", "DELETE"],
        )
        yield* ipamInit(client, options)
        const again = (yield* client.get(Resources.secrets, {
          namespace: "openmcp-system",
          name: "ipam-webhook-tls",
        })) as KubeObject & { data: Record<string, string> }
        assert.strictEqual(again.data["tls.crt"], secret.data["tls.crt"])
      }),
  )

  it.effect(
    "with a base URL: URLs instead of the Service; with webhooks disabled: the configurations removed",
    () =>
      Effect.gen(function* () {
        const client = yield* setup
        yield* ipamInit(client, {
          ...options,
          baseUrl: "https://localhost:9443/",
          additionalSans: ["localhost"],
        })
        const mutating = (yield* client.get(MutatingWebhookConfigurationResource, {
          name: IpamWebhooks.clusterDefaulting.configuration,
        })) as Webhooks
        assert.strictEqual(
          (mutating.webhooks[0]?.clientConfig as { url: string } | undefined)?.url,
          "https://localhost:9443/mutate-clusters-openmcp-cloud-v1alpha1-cluster",
        )
        assert.strictEqual((yield* client.listAll(Services)).items.length, 0)
        yield* ipamInit(client, { ...options, webhooks: false })
        assert.strictEqual((yield* client.listAll(MutatingWebhookConfigurationResource)).items.length, 0)
        assert.strictEqual((yield* client.listAll(ValidatingWebhookConfigurationResource)).items.length, 0)
        // twice: nothing left to remove is no error
        yield* ipamInit(client, { ...options, webhooks: false })
      }),
  )
})
