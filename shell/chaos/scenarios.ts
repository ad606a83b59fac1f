/**
 * The chaos campaign's scenarios, taken from the controllers' e2e situations
 * (e2e/operator/operator.test.ts): provisioning a Cluster with the test providers' objects,
 * deletion with a lingering control plane and infrastructure, a kubeconfig rotation, and a
 * workload API server outage. Each scenario is a list of stimuli (what users and providers do),
 * played through the in-memory API server directly (never through the operator's perturbed
 * client), each followed by a settle period of virtual time.
 *
 * The providers are the e2e test providers' kinds (an InfraCluster and a ControlPlane whose CRDs
 * carry the `cluster.x-k8s.io/v1beta2` contract label), under a group of their own.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import {
  ClusterApiVersion,
  ClusterNameLabel,
  ContractLabel,
  KubeconfigSecretType,
} from "../../core/cluster/contract.ts"
import type { Verb } from "../apiserver/faults.ts"
import type { FakeApiServer } from "../apiserver/server.ts"
import { ClusterResource } from "../clustercache/service.ts"
import type { KubeError } from "../kube/errors.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, type ResourceRef, Resources } from "../kube/resource.ts"
import { clusterCa, GeneratedCluster } from "./clusterCa.ts"
import { FOREIGN_FINALIZER, releaseForeignFinalizer } from "./foreignFinalizer.ts"

export const INFRA_GROUP = "infrastructure.chaos.krtt.dev"
export const CONTROL_PLANE_GROUP = "controlplane.chaos.krtt.dev"
export const INFRA: ResourceRef = {
  group: INFRA_GROUP,
  version: "v1alpha1",
  resource: "chaosinfraclusters",
  kind: "ChaosInfraCluster",
  namespaced: true,
}
export const CONTROL_PLANE: ResourceRef = {
  group: CONTROL_PLANE_GROUP,
  version: "v1alpha1",
  resource: "chaoscontrolplanes",
  kind: "ChaosControlPlane",
  namespaced: true,
}
/** The finalizer the test providers hold their objects with (the e2e's `e2e.krtt.dev/hold`). */
export const HOLD = "chaos.krtt.dev/hold"
export const NAMESPACE = "chaos"

const crd = (ref: ResourceRef): KubeObject => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${ref.resource}.${ref.group}`, labels: { [ContractLabel]: ref.version } },
  spec: {
    group: ref.group,
    scope: "Namespaced",
    names: { kind: ref.kind, plural: ref.resource, listKind: `${ref.kind}List` },
    versions: [{ name: ref.version, served: true, storage: true, subresources: { status: {} } }],
  },
})

/** What a scenario's stimuli act on. */
export interface Stage {
  readonly mgmt: FakeApiServer
  /** The workload API server behind a server URL (made on first use). */
  readonly workload: (url: string) => FakeApiServer
}

/** One stimulus and the virtual time the operator gets to react to it. */
export interface Step {
  readonly name: string
  readonly run: (stage: Stage) => Effect.Effect<void, KubeError>
  /** Virtual milliseconds to advance after the stimulus. */
  readonly settleMillis: number
}

export interface Scenario {
  readonly name: string
  readonly description: string
  /** Where it comes from (the e2e test it replays). */
  readonly source: string
  readonly steps: ReadonlyArray<Step>
}

/** A kubeconfig for `server` (a URL) with a bearer `token`, base64 as a Secret holds it. */
export const kubeconfig = (server: string, token: string) =>
  Buffer.from(
    `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}"}}]
users: [{name: u, user: {token: ${token}}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`,
  ).toString("base64")

const workloadUrl = (name: string) => `https://${name}.chaos.example:6443`
const endpoint = (name: string) => ({ host: `${name}.chaos.example`, port: 6443 })

/** The CRDs of the test providers (installed before the operator starts). */
export const installProviders = (mgmt: FakeApiServer) =>
  Effect.gen(function* () {
    mgmt.register(ClusterResource)
    mgmt.register(INFRA)
    mgmt.register(CONTROL_PLANE)
    const c = mgmt.client()
    yield* c.create(Resources.customResourceDefinitions, crd(INFRA))
    yield* c.create(Resources.customResourceDefinitions, crd(CONTROL_PLANE))
  })

const key = (name: string) => ({ namespace: NAMESPACE, name })

/** createCluster of e2e/fixtures/objects.ts: provider objects, kubeconfig Secret, then the Cluster. */
const createCluster = (
  name: string,
  options: {
    readonly provisioned: boolean
    readonly hold?: boolean | undefined
    /** The Cluster is created with another controller's finalizer (`foreignFinalizer.ts`). */
    readonly foreign?: boolean | undefined
    /**
     * Only the Cluster, or only the objects it refers to (manifests applied in two goes, the
     * Cluster first: until its references exist, it is reconciled again after a while).
     */
    readonly only?: "cluster" | "providers" | undefined
  },
): Step => ({
  name:
    options.only === "cluster"
      ? `create Cluster ${name} before the objects it refers to`
      : `create ${options.only === "providers" ? `the objects Cluster ${name} refers to` : `Cluster ${name}`}${options.provisioned ? " (providers ready)" : ""}`,
  settleMillis: options.only === "cluster" ? 5_000 : options.only === "providers" ? 30_000 : 20_000,
  run: ({ mgmt }) =>
    Effect.gen(function* () {
      const c = mgmt.client()
      if (options.only !== "cluster") yield* createProviderObjects(mgmt, name, options)
      if (options.only === "providers") return
      yield* c.create(ClusterResource, {
        apiVersion: ClusterApiVersion,
        kind: "Cluster",
        metadata: { ...key(name), ...(options.foreign === true ? { finalizers: [FOREIGN_FINALIZER] } : {}) },
        spec: {
          infrastructureRef: { apiGroup: INFRA_GROUP, kind: INFRA.kind, name },
          controlPlaneRef: { apiGroup: CONTROL_PLANE_GROUP, kind: CONTROL_PLANE.kind, name },
        },
      })
    }),
})

/** The provider objects of createCluster and the kubeconfig Secret. */
const createProviderObjects = (
  mgmt: FakeApiServer,
  name: string,
  options: { readonly provisioned: boolean; readonly hold?: boolean | undefined },
) =>
  Effect.gen(function* () {
    const c = mgmt.client()
    const finalizers = options.hold === true ? { finalizers: [HOLD] } : {}
    yield* c.create(INFRA, {
      apiVersion: `${INFRA_GROUP}/v1alpha1`,
      kind: INFRA.kind,
      metadata: { ...key(name), ...finalizers },
      spec: { controlPlaneEndpoint: endpoint(name) },
    })
    yield* c.create(CONTROL_PLANE, {
      apiVersion: `${CONTROL_PLANE_GROUP}/v1alpha1`,
      kind: CONTROL_PLANE.kind,
      metadata: { ...key(name), ...finalizers },
      spec: { replicas: 1, version: "v1.34.4", controlPlaneEndpoint: endpoint(name) },
    })
    if (options.provisioned) {
      yield* provisionInfrastructure(name).run({ mgmt, workload: () => mgmt })
      yield* initializeControlPlane(name).run({ mgmt, workload: () => mgmt })
    }
    yield* c.create(Resources.secrets, {
      apiVersion: "v1",
      kind: "Secret",
      type: KubeconfigSecretType,
      metadata: { ...key(`${name}-kubeconfig`), labels: { [ClusterNameLabel]: name } },
      data: { value: kubeconfig(workloadUrl(name), `${name}-token-1`) },
    })
  })

/** provisionInfrastructure of e2e/fixtures/objects.ts. */
const provisionInfrastructure = (name: string): Step => ({
  name: `infrastructure provider: ${name} provisioned`,
  settleMillis: 15_000,
  run: ({ mgmt }) =>
    Effect.asVoid(
      mgmt.client().patchStatus(
        INFRA,
        key(name),
        mergePatch({
          status: {
            initialization: { provisioned: true },
            failureDomains: [
              { name: "fd-a", controlPlane: true, attributes: { zone: "a" } },
              { name: "fd-b", controlPlane: false },
            ],
          },
        }),
      ),
    ),
})

/** initializeControlPlane of e2e/fixtures/objects.ts. */
const initializeControlPlane = (name: string): Step => ({
  name: `control-plane provider: ${name} initialized`,
  settleMillis: 30_000,
  run: ({ mgmt }) =>
    Effect.asVoid(
      mgmt.client().patchStatus(
        CONTROL_PLANE,
        key(name),
        mergePatch({
          status: {
            initialization: { controlPlaneInitialized: true },
            replicas: 1,
            readyReplicas: 1,
            availableReplicas: 1,
            upToDateReplicas: 1,
          },
        }),
      ),
    ),
})

const deleteCluster = (name: string): Step => ({
  name: `delete Cluster ${name}`,
  settleMillis: 15_000,
  run: ({ mgmt }) => Effect.asVoid(mgmt.client().delete(ClusterResource, key(name))),
})

/** A provider finishes its deletion: it removes its finalizer (the object then goes). */
const release = (ref: ResourceRef, name: string): Step => ({
  name: `${ref.kind} provider releases ${name}`,
  settleMillis: 15_000,
  run: ({ mgmt }) =>
    Effect.gen(function* () {
      const c = mgmt.client()
      const found = yield* Effect.result(c.get(ref, key(name)))
      if (found._tag === "Failure") return
      yield* c.patch(ref, key(name), mergePatch({ metadata: { finalizers: null } }))
    }),
})

/**
 * The management server answers the next `times` calls of `verb` on one object with `error`
 * (another writer's contention, or a race the controller lost), then answers normally again.
 */
const answers = (
  what: string,
  ref: ResourceRef,
  name: string | undefined,
  fault: { readonly verb: Verb; readonly error: KubeError["_tag"]; readonly times: number },
): Step => ({
  name: what,
  settleMillis: 1_000,
  run: ({ mgmt }) =>
    Effect.sync(() => mgmt.inject({ ...fault, resource: ref.resource, namespace: NAMESPACE, name })),
})

/** A step that merge-patches one object of the management server. */
export const patchStep = (
  name: string,
  settleMillis: number,
  ref: ResourceRef,
  at: { readonly namespace?: string | undefined; readonly name: string },
  body: unknown,
): Step => ({
  name,
  settleMillis,
  run: ({ mgmt }) => Effect.asVoid(mgmt.client().patch(ref, at, mergePatch(body))),
})

const rotateKubeconfig = (name: string, to: string): Step =>
  patchStep(`rotate ${name}'s kubeconfig to ${to}`, 30_000, Resources.secrets, key(`${name}-kubeconfig`), {
    data: { value: kubeconfig(workloadUrl(to), `${name}-token-2`) },
  })

const outage = (name: string, up: boolean, settleMillis: number): Step => ({
  name: up ? `workload API server of ${name} back` : `workload API server of ${name} down`,
  settleMillis,
  run: ({ workload }) =>
    Effect.sync(() => {
      const w = workload(workloadUrl(name))
      if (up) w.start()
      else w.stop()
    }),
})

/**
 * A Cluster without a control plane provider (no controlPlaneRef) and its `-ca` Secret: once the
 * infrastructure is provisioned, the Cluster controller makes `<cluster>-kubeconfig` itself,
 * signed by that CA (upstream's reconcileKubeconfig). With `withKey: false` the CA Secret lacks
 * its `tls.key` (the controller cannot sign until it is repaired: `repairCa`).
 */
const createClusterWithoutControlPlane = (name: string, withKey = true): Step => ({
  name: `create Cluster ${name} without a control plane provider, with its CA${withKey ? "" : " lacking its key"}`,
  settleMillis: 20_000,
  run: ({ mgmt }) =>
    Effect.gen(function* () {
      const c = mgmt.client()
      const ca = clusterCa()
      const keyData = withKey ? { "tls.key": Buffer.from(ca.key).toString("base64") } : {}
      yield* c.create(INFRA, {
        apiVersion: `${INFRA_GROUP}/v1alpha1`,
        kind: INFRA.kind,
        metadata: key(name),
        spec: { controlPlaneEndpoint: endpoint(name) },
      })
      yield* c.create(Resources.secrets, {
        apiVersion: "v1",
        kind: "Secret",
        type: KubeconfigSecretType,
        metadata: { ...key(`${name}-ca`), labels: { [ClusterNameLabel]: name } },
        data: { "tls.crt": Buffer.from(ca.certificate).toString("base64"), ...keyData },
      })
      yield* c.create(ClusterResource, {
        apiVersion: ClusterApiVersion,
        kind: "Cluster",
        metadata: key(name),
        spec: { infrastructureRef: { apiGroup: INFRA_GROUP, kind: INFRA.kind, name } },
      })
    }),
})

/** The `-ca` Secret of `name` damaged: its data replaced by `data` (`null`: no data at all). */
const damageCa = (
  name: string,
  what: string,
  settleMillis: number,
  data: Record<string, string | null> | null,
): Step =>
  patchStep(`the CA Secret of ${name} ${what}`, settleMillis, Resources.secrets, key(`${name}-ca`), { data })

const base64 = (text: string) => Buffer.from(text).toString("base64")

/**
 * The CA Secret defects the controller must answer with a failed action (`ClusterCaError`, its
 * message in the warning), never a dead reconcile. Each lasts past the next retry of the failing
 * reconcile (its backoff doubles: retries near 40, 61 and 102 s into the scenario).
 */
const caDefects = (name: string): ReadonlyArray<Step> => [
  damageCa(name, "left without data", 15_000, null),
  damageCa(name, "given a key but no certificate", 30_000, { "tls.key": base64(clusterCa().key) }),
  damageCa(name, "given its certificate and an unusable key", 30_000, {
    "tls.crt": base64(clusterCa().certificate),
    "tls.key": base64("not a PEM key"),
  }),
]

/** The `-ca` Secret of `name` given its key back. */
const repairCa = (name: string): Step =>
  patchStep(`the CA Secret of ${name} given its key`, 120_000, Resources.secrets, key(`${name}-ca`), {
    data: { "tls.key": Buffer.from(clusterCa().key).toString("base64") },
  })

/** The scenarios of the operator suite (ClusterCache and Cluster controller). */
export const OperatorScenarios: ReadonlyArray<Scenario> = [
  {
    name: "provision",
    description: "a Cluster whose providers become ready one after the other",
    source:
      "e2e/operator/operator.test.ts: Cluster controller: finalizer, owner references and labels, Provisioned once the providers are ready",
    steps: [
      createCluster("p1", { provisioned: false }),
      provisionInfrastructure("p1"),
      initializeControlPlane("p1"),
    ],
  },
  {
    name: "delete",
    description: "deletion with a lingering control plane, then infrastructure (held by provider finalizers)",
    source:
      "e2e/operator/operator.test.ts: Cluster controller: deletion waits for the control plane, then the infrastructure, and removes the finalizer last",
    steps: [
      createCluster("d1", { provisioned: true, hold: true }),
      deleteCluster("d1"),
      release(CONTROL_PLANE, "d1"),
      release(INFRA, "d1"),
    ],
  },
  {
    name: "rotate",
    description: "a kubeconfig Secret rotated to another server and token",
    source: "e2e/operator/operator.test.ts: a rotated kubeconfig Secret is used at once",
    steps: [createCluster("r1", { provisioned: true }), rotateKubeconfig("r1", "r1b")],
  },
  {
    name: "kubeconfig",
    description:
      "a Cluster without a control plane provider: the controller makes its kubeconfig Secret from the cluster CA, and the ClusterCache connects with it",
    source:
      "e2e/operator/operator.test.ts: the Cluster controller's reconcileKubeconfig (a kubeconfig Secret signed by <cluster>-ca)",
    steps: [
      createClusterWithoutControlPlane(GeneratedCluster, false),
      provisionInfrastructure(GeneratedCluster),
      ...caDefects(GeneratedCluster),
      // A create names no object in its path: this one refuses the next Secret created in the
      // namespace, which is the kubeconfig the controller signs once the CA is repaired.
      answers("the kubeconfig Secret of g1 created by another client first", Resources.secrets, undefined, {
        verb: "create",
        error: "AlreadyExists",
        times: 1,
      }),
      repairCa(GeneratedCluster),
    ],
  },
  {
    name: "outage",
    description: "the workload API server down past the disconnect threshold, then back",
    source:
      "e2e/operator/operator.test.ts: an unreachable workload API server gives consecutive failures, a disconnect after the fifth, and a reconnect once it is back",
    steps: [
      createCluster("o1", { provisioned: true }),
      outage("o1", false, 90_000),
      outage("o1", true, 60_000),
    ],
  },
  {
    name: "concurrent",
    description:
      "two Clusters at once: one provisioned, one deleted while the other comes up; another controller's finalizer on the first, the second applied before the objects it refers to, their API calls contended",
    source: "e2e/operator/operator.test.ts: one operator, several Clusters, the scenarios concurrently",
    steps: [
      createCluster("m1", { provisioned: true, foreign: true }),
      // The infrastructure provider rewrites its object all the time: the owner-reference patch
      // conflicts more often than the controller retries at once, so that action fails and the
      // reconcile is retried.
      answers("m2's infrastructure object busy: its next 4 patches conflict", INFRA, "m2", {
        verb: "patch",
        error: "Conflict",
        times: 4,
      }),
      createCluster("m2", { provisioned: false, only: "cluster" }),
      createCluster("m2", { provisioned: false, only: "providers" }),
      // Another client's delete of the control plane gets there first: the controller's own
      // delete is answered NotFound, which is its success.
      answers("m1's control plane deleted by another client first", CONTROL_PLANE, "m1", {
        verb: "delete",
        error: "NotFound",
        times: 1,
      }),
      deleteCluster("m1"),
      provisionInfrastructure("m2"),
      initializeControlPlane("m2"),
      releaseForeignFinalizer("the backup controller lets Cluster m1 go", 15_000, ClusterResource, key("m1")),
    ],
  },
]
