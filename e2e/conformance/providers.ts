/**
 * The provider objects of the differential suite. The v1beta2 contract is played by the e2e
 * fixtures' E2EInfraCluster and E2EControlPlane; the v1beta1 contract by E2EV1Beta1InfraCluster
 * (e2e/fixtures/providers.yaml) and by the E2EV1Beta1ControlPlane defined here (`status.ready`,
 * `status.initialized`, `status.failureReason` / `failureMessage`). The suite plays the providers:
 * it writes these objects' status itself.
 *
 * @module
 */

import type { Cluster } from "../../testenv/index.ts"
import { apply, CONTROL_PLANE_GROUP, INFRA_GROUP, type KubeObject, waitForCrd } from "../fixtures/index.ts"

export const V1BETA1_INFRA_KIND = "E2EV1Beta1InfraCluster"
export const V1BETA1_CONTROL_PLANE_KIND = "E2EV1Beta1ControlPlane"

/** A provider kind of the suite: its group, version, kind and plural. */
export interface ProviderKind {
  readonly group: string
  readonly version: string
  readonly kind: string
  readonly plural: string
}

export const PROVIDERS = {
  infraV1beta2: {
    group: INFRA_GROUP,
    version: "v1alpha1",
    kind: "E2EInfraCluster",
    plural: "e2einfraclusters",
  },
  cpV1beta2: {
    group: CONTROL_PLANE_GROUP,
    version: "v1alpha1",
    kind: "E2EControlPlane",
    plural: "e2econtrolplanes",
  },
  infraV1beta1: {
    group: INFRA_GROUP,
    version: "v1beta1",
    kind: V1BETA1_INFRA_KIND,
    plural: "e2ev1beta1infraclusters",
  },
  cpV1beta1: {
    group: CONTROL_PLANE_GROUP,
    version: "v1beta1",
    kind: V1BETA1_CONTROL_PLANE_KIND,
    plural: "e2ev1beta1controlplanes",
  },
} as const satisfies Record<string, ProviderKind>

/** The API path of a provider object (or of its kind's collection without `name`). */
export const providerPath = (p: ProviderKind, ns: string, name = "", sub = ""): string =>
  `/apis/${p.group}/${p.version}/namespaces/${ns}/${p.plural}${name && `/${name}`}${sub && `/${sub}`}`

const object = { type: "object" } as const
const str = { type: "string" } as const

/** The CRD of a control plane that declares only the v1beta1 contract. */
const v1beta1ControlPlaneCrd: KubeObject = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: {
    name: `e2ev1beta1controlplanes.${CONTROL_PLANE_GROUP}`,
    labels: { "cluster.x-k8s.io/v1beta1": "v1beta1" },
  },
  spec: {
    group: CONTROL_PLANE_GROUP,
    names: {
      kind: V1BETA1_CONTROL_PLANE_KIND,
      listKind: `${V1BETA1_CONTROL_PLANE_KIND}List`,
      plural: "e2ev1beta1controlplanes",
      singular: "e2ev1beta1controlplane",
    },
    scope: "Namespaced",
    versions: [
      {
        name: "v1beta1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            ...object,
            properties: {
              apiVersion: str,
              kind: str,
              metadata: object,
              spec: { ...object, "x-kubernetes-preserve-unknown-fields": true },
              status: {
                ...object,
                properties: {
                  ready: { type: "boolean" },
                  initialized: { type: "boolean" },
                  failureReason: str,
                  failureMessage: str,
                  replicas: { type: "integer" },
                  readyReplicas: { type: "integer" },
                  updatedReplicas: { type: "integer" },
                  unavailableReplicas: { type: "integer" },
                },
              },
            },
          },
        },
      },
    ],
  },
}

/** Installs the suite's own provider CRD (the others come with the e2e fixtures). */
export const installConformanceProviders = async (mgmt: Cluster): Promise<void> => {
  await apply(mgmt, v1beta1ControlPlaneCrd)
  await waitForCrd(mgmt, v1beta1ControlPlaneCrd.metadata.name)
}
