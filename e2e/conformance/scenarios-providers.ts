/**
 * The differential suite's scenarios about the Cluster's own objects: providers of the v1beta2
 * and v1beta1 contracts not ready, provisioned or failed, the control plane initialized or not,
 * a missing or broken kubeconfig Secret, pausing, topology, availability gates and deletion.
 *
 * @module
 */
import { create, paths } from "../fixtures/index.ts"
import { caSecret } from "./ca.ts"
import {
  cluster,
  clusterClass,
  cond,
  deleteCluster,
  HOLD_FINALIZER,
  kubeconfig,
  NAME,
  PAUSED_ANNOTATION,
  provider,
  type World,
} from "./objects.ts"
import { PROVIDERS } from "./providers.ts"
import { conditionStatus, deleting, hasFinalizer, inState, reconciled, type Scenario } from "./scenario.ts"

const { infraV1beta2, cpV1beta2, infraV1beta1, cpV1beta1 } = PROVIDERS

export const INFRA_PROVISIONED = {
  initialization: { provisioned: true },
  failureDomains: [
    { name: "fd-a", controlPlane: true, attributes: { zone: "a" } },
    { name: "fd-b", controlPlane: false },
  ],
}
export const CP_INITIALIZED = {
  initialization: { controlPlaneInitialized: true },
  replicas: 1,
  readyReplicas: 1,
  availableReplicas: 1,
  upToDateReplicas: 1,
}
const V1BETA1_INFRA_READY = { ready: true, failureDomains: { "fd-a": { controlPlane: true } } }

/** Providers of the v1beta2 contract with the given status, the Secret, and the Cluster. */
export const v1beta2Cluster = async (
  w: World,
  infra?: Record<string, unknown>,
  cp?: Record<string, unknown>,
): Promise<void> => {
  await provider(w, infraV1beta2, infra === undefined ? {} : { status: infra })
  await provider(w, cpV1beta2, cp === undefined ? {} : { status: cp })
  await kubeconfig(w)
  await cluster(w, { infra: infraV1beta2, controlPlane: cpV1beta2 })
}

const v1beta1Cluster = async (
  w: World,
  infra: Record<string, unknown>,
  cp: Record<string, unknown>,
): Promise<void> => {
  await provider(w, infraV1beta1, { status: infra })
  await provider(w, cpV1beta1, { status: cp })
  await kubeconfig(w)
  await cluster(w, { infra: infraV1beta1, controlPlane: cpV1beta1 })
}

const connected = inState("Provisioned", { RemoteConnectionProbe: "True", ControlPlaneInitialized: "True" })

const contracts: ReadonlyArray<Scenario> = [
  { name: "v1beta2-infra-pending", setup: (w) => v1beta2Cluster(w), settled: inState("Provisioning") },
  {
    name: "v1beta2-cp-pending",
    setup: (w) => v1beta2Cluster(w, INFRA_PROVISIONED),
    settled: inState("Provisioned", { InfrastructureReady: "True" }),
  },
  {
    name: "v1beta2-ready",
    setup: (w) => v1beta2Cluster(w, INFRA_PROVISIONED, CP_INITIALIZED),
    settled: connected,
  },
  {
    name: "v1beta2-infra-failed",
    setup: (w) =>
      v1beta2Cluster(w, {
        conditions: [cond("Ready", "False", "ProvisioningFailed", "the cloud refused the network")],
      }),
    settled: inState("Provisioning", { InfrastructureReady: "False" }),
  },
  {
    name: "v1beta2-provider-conditions",
    setup: (w) =>
      v1beta2Cluster(
        w,
        { ...INFRA_PROVISIONED, conditions: [cond("Ready", "True", "Provisioned")] },
        {
          ...CP_INITIALIZED,
          conditions: [cond("Available", "False", "NotAvailable", "1 of 3 control plane replicas available")],
        },
      ),
    settled: inState("Provisioned", { RemoteConnectionProbe: "True", ControlPlaneAvailable: "False" }),
  },
  {
    name: "v1beta1-pending",
    setup: (w) => v1beta1Cluster(w, { ready: false }, { ready: false, initialized: false }),
    settled: inState("Provisioning"),
  },
  {
    name: "v1beta1-infra-ready",
    setup: (w) => v1beta1Cluster(w, V1BETA1_INFRA_READY, { ready: false }),
    settled: inState("Provisioned", { InfrastructureReady: "True" }),
  },
  {
    name: "v1beta1-cp-initialized",
    setup: (w) => v1beta1Cluster(w, V1BETA1_INFRA_READY, { ready: false, initialized: true, replicas: 1 }),
    settled: connected,
  },
  {
    name: "v1beta1-ready",
    setup: (w) =>
      v1beta1Cluster(w, V1BETA1_INFRA_READY, {
        ready: true,
        initialized: true,
        replicas: 1,
        readyReplicas: 1,
      }),
    settled: connected,
  },
  {
    name: "v1beta1-infra-failed",
    setup: (w) =>
      v1beta1Cluster(
        w,
        { ready: false, failureReason: "InvalidConfiguration", failureMessage: "region xy-1 does not exist" },
        { ready: false },
      ),
    settled: (c) => inState("Failed")(c) || inState("Provisioning")(c),
  },
  {
    name: "v1beta1-cp-failed",
    setup: (w) =>
      v1beta1Cluster(w, V1BETA1_INFRA_READY, {
        ready: false,
        initialized: false,
        failureReason: "UpdateError",
        failureMessage: "etcd member unhealthy",
      }),
    settled: (c) => inState("Failed")(c) || inState("Provisioned")(c),
  },
]

const access: ReadonlyArray<Scenario> = [
  {
    name: "kubeconfig-missing",
    setup: async (w) => {
      await provider(w, infraV1beta2, { status: INFRA_PROVISIONED })
      await provider(w, cpV1beta2, { status: CP_INITIALIZED })
      await cluster(w, { infra: infraV1beta2, controlPlane: cpV1beta2 })
    },
    settled: inState("Provisioned", { ControlPlaneInitialized: "True" }),
  },
  {
    name: "kubeconfig-broken",
    setup: async (w) => {
      await provider(w, infraV1beta2, { status: INFRA_PROVISIONED })
      await provider(w, cpV1beta2, { status: CP_INITIALIZED })
      await kubeconfig(w, "this is not a kubeconfig: [")
      await cluster(w, { infra: infraV1beta2, controlPlane: cpV1beta2 })
    },
    settled: inState("Provisioned", { ControlPlaneInitialized: "True" }),
  },
  {
    name: "paused-spec",
    setup: async (w) => {
      await provider(w, infraV1beta2)
      await provider(w, cpV1beta2)
      await cluster(w, { infra: infraV1beta2, controlPlane: cpV1beta2, paused: true })
    },
    settled: (c) => conditionStatus(c, "Paused") === "True",
  },
  {
    name: "paused-annotation",
    setup: async (w) => {
      await provider(w, infraV1beta2)
      await provider(w, cpV1beta2)
      await cluster(w, {
        infra: infraV1beta2,
        controlPlane: cpV1beta2,
        annotations: { [PAUSED_ANNOTATION]: "" },
      })
    },
    settled: (c) => conditionStatus(c, "Paused") === "True",
  },
  {
    name: "topology-class-missing",
    setup: (w) => cluster(w, { topology: { classRef: { name: "class" }, version: "v1.34.4" } }),
    settled: (c) => hasFinalizer(c) && conditionStatus(c, "Paused") !== undefined,
  },
  {
    name: "topology-waiting",
    setup: async (w) => {
      await clusterClass(w, [{ conditionType: "E2EClassGate" }])
      await cluster(w, { topology: { classRef: { name: "class" }, version: "v1.34.4" } })
    },
    settled: reconciled,
  },
  { name: "no-refs", setup: (w) => cluster(w, { endpoint: true }), settled: reconciled },
  // `spec.paused: false` only because the CRD wants a spec with at least one field.
  { name: "no-refs-no-endpoint", setup: (w) => cluster(w, { paused: false }), settled: reconciled },
  {
    name: "infrastructure-only",
    setup: async (w) => {
      await provider(w, infraV1beta2, { status: INFRA_PROVISIONED })
      await cluster(w, { infra: infraV1beta2 })
    },
    settled: inState("Provisioned", { InfrastructureReady: "True" }),
  },
  {
    name: "kubeconfig-generated",
    setup: async (w) => {
      await create(w.mgmt, paths.secret(w.ns), caSecret(w.ns, NAME))
      await provider(w, infraV1beta2, { status: INFRA_PROVISIONED })
      await cluster(w, { infra: infraV1beta2 })
    },
    settled: inState("Provisioned", { InfrastructureReady: "True" }),
  },
  {
    name: "refs-not-found",
    setup: (w) => cluster(w, { infra: infraV1beta2, controlPlane: cpV1beta2 }),
    settled: inState("Provisioning", { InfrastructureReady: "False" }),
  },
]

const gates: ReadonlyArray<Scenario> = [
  {
    name: "availability-gate-missing",
    setup: async (w) => {
      await provider(w, infraV1beta2, { status: INFRA_PROVISIONED })
      await provider(w, cpV1beta2, { status: CP_INITIALIZED })
      await kubeconfig(w)
      await cluster(w, {
        infra: infraV1beta2,
        controlPlane: cpV1beta2,
        availabilityGates: [{ conditionType: "E2EGate" }],
      })
    },
    settled: connected,
  },
  {
    name: "availability-gates-reported",
    setup: async (w) => {
      await provider(w, infraV1beta2, { status: INFRA_PROVISIONED })
      await provider(w, cpV1beta2, { status: CP_INITIALIZED })
      await kubeconfig(w)
      await cluster(w, {
        infra: infraV1beta2,
        controlPlane: cpV1beta2,
        availabilityGates: [
          { conditionType: "E2EGate" },
          { conditionType: "E2EAlarm", polarity: "Negative" },
        ],
        status: {
          conditions: [
            cond("E2EGate", "True", "Passed"),
            cond("E2EAlarm", "True", "Firing", "disk pressure"),
          ],
        },
      })
    },
    settled: connected,
  },
]

const deletion: ReadonlyArray<Scenario> = [
  {
    name: "deleting-provider-finalizers",
    setup: async (w) => {
      await provider(w, infraV1beta2, { status: INFRA_PROVISIONED, finalizers: [HOLD_FINALIZER] })
      await provider(w, cpV1beta2, { status: CP_INITIALIZED, finalizers: [HOLD_FINALIZER] })
      await kubeconfig(w)
      await cluster(w, { infra: infraV1beta2, controlPlane: cpV1beta2 })
    },
    settled: connected,
    next: { run: deleteCluster, settled: deleting },
  },
  {
    name: "deleting-v1beta1-providers",
    setup: async (w) => {
      await provider(w, infraV1beta1, { status: V1BETA1_INFRA_READY, finalizers: [HOLD_FINALIZER] })
      await provider(w, cpV1beta1, {
        status: { ready: true, initialized: true },
        finalizers: [HOLD_FINALIZER],
      })
      await kubeconfig(w)
      await cluster(w, { infra: infraV1beta1, controlPlane: cpV1beta1 })
    },
    settled: connected,
    next: { run: deleteCluster, settled: deleting },
  },
  {
    name: "deleted",
    setup: (w) => v1beta2Cluster(w, INFRA_PROVISIONED, CP_INITIALIZED),
    settled: connected,
    next: { run: deleteCluster, settled: (c) => c === undefined },
  },
]

export const PROVIDER_SCENARIOS: ReadonlyArray<Scenario> = [...contracts, ...access, ...gates, ...deletion]
