// Every manifest of the manager's folders of config/ (crd, rbac, manager, webhook, certmanager, default) passes the real API server's
// validation and admission: server-side apply with dryRun=All and strict field validation, the
// Namespace first (applied for real, as namespaced objects can only be admitted into a namespace
// that exists), then the rest. The Deployment's Pod template is admitted by the namespace's
// `restricted` Pod Security level.
import { describe, expect, it } from "vitest"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import {
  apply,
  expectStatus,
  type KubeObject,
  MANAGER_NAMESPACE,
  operatorManifests,
  providerManifests,
} from "../fixtures/index.ts"

const cluster = sharedControlPlane().clusters[1]
if (cluster === undefined) throw new Error("the shared control plane has no cluster 1")

const manifests = operatorManifests()
const objects = manifests.flatMap((m) => m.objects)
const describeObject = (o: KubeObject) =>
  `${o.kind} ${o.metadata.namespace === undefined ? "" : `${o.metadata.namespace}/`}${o.metadata.name}`

describe("config/ of the manager against a real API server", () => {
  it("holds the CRD, the manager and its RBAC", () => {
    expect(manifests.map((m) => m.file)).toEqual([
      "config/certmanager/certificate.yaml",
      "config/crd/bases/cluster.x-k8s.io_clusters.yaml",
      "config/default/metrics_service.yaml",
      "config/manager/manager.yaml",
      "config/rbac/metrics_reader_role.yaml",
      "config/rbac/role.yaml",
      "config/rbac/service_account.yaml",
      "config/webhook/manifests.yaml",
      "config/webhook/service.yaml",
    ])
    expect(objects.map(describeObject)).toEqual(
      expect.arrayContaining([
        "CustomResourceDefinition clusters.cluster.x-k8s.io",
        `Namespace ${MANAGER_NAMESPACE}`,
        `ServiceAccount ${MANAGER_NAMESPACE}/krtt-manager`,
        `Deployment ${MANAGER_NAMESPACE}/krtt-manager`,
        "ClusterRole krtt-manager",
        "ClusterRoleBinding krtt-manager",
        `Role ${MANAGER_NAMESPACE}/krtt-leader-election`,
        `RoleBinding ${MANAGER_NAMESPACE}/krtt-leader-election`,
        `Service ${MANAGER_NAMESPACE}/krtt-webhook-service`,
        `Certificate ${MANAGER_NAMESPACE}/krtt-serving-cert`,
      ]),
    )
  })

  it("wires the webhook: the Service reaches the manager's webhook-server port, the Certificate names the Service and the Secret the Deployment mounts", () => {
    const service = objects.find((o) => o.kind === "Service" && o.metadata.name === "krtt-webhook-service")
    const certificate = objects.find((o) => o.kind === "Certificate")
    const deployment = objects.find((o) => o.kind === "Deployment")
    const pod = deployment?.spec?.template?.spec as {
      containers: Array<{
        ports: Array<{ name: string; containerPort: number }>
        volumeMounts: Array<{ name: string; mountPath: string }>
      }>
      volumes: Array<{ name: string; secret?: { secretName: string } }>
    }
    const container = pod.containers[0]
    expect(container?.ports.find((p) => p.name === "webhook-server")?.containerPort).toBe(9443)
    const ports = (service?.spec?.ports ?? []) as Array<{ targetPort: string }>
    expect(ports[0]?.targetPort).toBe("webhook-server")
    const mount = container?.volumeMounts.find((m) => m.mountPath === "/tmp/k8s-webhook-server/serving-certs")
    const volume = pod.volumes.find((v) => v.name === mount?.name)
    expect(volume?.secret?.secretName).toBe(certificate?.spec?.secretName)
    expect(certificate?.spec?.dnsNames).toContain(
      `${service?.metadata.name}.${service?.metadata.namespace}.svc`,
    )
    // Upstream's admission paths, against the Service, with the CA of the Certificate.
    const configs = objects.filter((o) => o.kind.endsWith("WebhookConfiguration"))
    expect(configs.map((c) => c.kind).sort()).toEqual([
      "MutatingWebhookConfiguration",
      "ValidatingWebhookConfiguration",
    ])
    for (const c of configs) {
      expect(c.metadata.annotations?.["cert-manager.io/inject-ca-from"]).toBe(
        `${certificate?.metadata.namespace}/${certificate?.metadata.name}`,
      )
      const hooks = (
        c as unknown as { webhooks: Array<{ clientConfig: { service: { name: string; path: string } } }> }
      ).webhooks
      for (const h of hooks) expect(h.clientConfig.service.name).toBe(service?.metadata.name)
    }
  })

  it("every manifest passes a server-side dry run with strict field validation, without warnings", async () => {
    const namespaces = objects.filter((o) => o.kind === "Namespace")
    expect(namespaces.map((o) => o.metadata.name)).toEqual([MANAGER_NAMESPACE])
    for (const ns of namespaces) {
      const dry = await apply(cluster, ns, { dryRun: true })
      expect(dry.headers.warning, describeObject(ns)).toBeUndefined()
      await apply(cluster, ns)
    }
    // cert-manager's kinds need cert-manager's CRDs, which testenv does not install.
    const rest = [
      ...objects.filter((o) => o.kind !== "Namespace" && !o.apiVersion.startsWith("cert-manager.io/")),
      ...providerManifests(),
    ]
    for (const o of rest) {
      const r = await apply(cluster, o, { dryRun: true })
      expect(r.headers.warning, describeObject(o)).toBeUndefined()
      const admitted = r.body as KubeObject
      expect(admitted.kind).toBe(o.kind)
      expect(admitted.metadata.name).toBe(o.metadata.name)
    }
  })

  it("the Deployment's Pod template is admitted by the restricted Pod Security level of its namespace, which rejects a privileged Pod", async () => {
    const deployment = objects.find((o) => o.kind === "Deployment")
    expect(deployment).toBeDefined()
    const namespace = await apply(cluster, objects.find((o) => o.kind === "Namespace") as KubeObject)
    expect((namespace.body as KubeObject).metadata.labels?.["pod-security.kubernetes.io/enforce"]).toBe(
      "restricted",
    )
    const template = deployment?.spec?.template as { metadata: unknown; spec: Record<string, unknown> }
    const pod = (name: string, spec: Record<string, unknown>) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name, namespace: MANAGER_NAMESPACE },
      spec,
    })
    const podsPath = `/api/v1/namespaces/${MANAGER_NAMESPACE}/pods?dryRun=All&fieldValidation=Strict`
    const ok = await expectStatus(
      cluster.request("POST", podsPath, { body: pod("krtt-manager-template", template.spec) }),
      [201],
      "dry-run create of a Pod from the Deployment's template",
    )
    expect(ok.headers.warning).toBeUndefined()
    // The check can fail: the same Pod without its security context is refused.
    const { securityContext: _, ...loose } = template.spec
    const containers = (template.spec.containers as ReadonlyArray<Record<string, unknown>>).map(
      ({ securityContext: __, ...c }) => c,
    )
    const refused = await cluster.request("POST", podsPath, {
      body: pod("krtt-manager-loose", { ...loose, containers }),
    })
    expect(refused.status).toBe(403)
    expect((refused.body as { message?: string }).message).toContain('violates PodSecurity "restricted')
  })
})
