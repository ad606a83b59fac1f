// krtt propagate on real API servers (seed 003, Goals 1, a uniform
// controller sourcing from the hub): the run's shared hub (cluster-0) and workloads cluster-1 and
// cluster-2, plus a control plane of this file's own for a third workload and a fourth added
// live; the kubeconfig-secrets provider; every workload cluster on the scoped cache. cluster-1
// is reached as a user whose only permission is config/propagate/workload/role.yaml's Role in
// the propagated namespace.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll } from "vitest"
import {
  PropagatedFromLabel,
  PropagatedToAnnotation,
  PropagateFinalizer,
  propagateConfig,
} from "../../core/propagate/index.ts"
import {
  addToManager,
  kubeconfigSecretLabels,
  makePropagateCacheFactory,
  PendingConfigMap,
} from "../../shell/fleet/propagate/index.ts"
import type { KubeClientShape } from "../../shell/kube/client.ts"
import { mergePatch } from "../../shell/kube/patch.ts"
import { type KubeObject, type ResourceRef, Resources } from "../../shell/kube/resource.ts"
import { makeCluster, makeManager } from "../../shell/multicluster/index.ts"
import { makeKubeconfigSecretsProvider } from "../../shell/multicluster/providers/index.ts"
import { type Cluster, type ControlPlane, startControlPlane } from "../../testenv/index.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import { readManifests, repoRoot } from "../fixtures/manifests.ts"
import { clientOf, createNamespace, tcpProxy } from "../shell/support.ts"

const plane = sharedControlPlane()
let own: ControlPlane | undefined
beforeAll(async () => {
  own = await startControlPlane({ clusters: 2, controllerManager: false })
}, 300_000)
afterAll(async () => {
  await own?.stop()
}, 60_000)

const rbac = (resource: string, kind: string, namespaced = true): ResourceRef => ({
  group: "rbac.authorization.k8s.io",
  version: "v1",
  resource,
  kind,
  namespaced,
})
const Roles = rbac("roles", "Role")
const RoleBindings = rbac("rolebindings", "RoleBinding")

/**
 * config/propagate/workload/role.yaml as the file has it, for namespace `ns` and user `user`
 * (the RoleBinding and ClusterRoleBinding name the user; NAMESPACE becomes `ns`).
 */
const workloadManifests = (ns: string, user: string, suffixed: string): ReadonlyArray<KubeObject> =>
  readManifests(`${repoRoot}config/propagate/workload/role.yaml`).map((o) => {
    const namespaced = o.metadata.namespace === "NAMESPACE"
    const metadata = namespaced
      ? { ...o.metadata, namespace: ns }
      : { ...o.metadata, name: `${o.metadata.name}-${suffixed}` }
    const subjects = (o.subjects as ReadonlyArray<Record<string, unknown>> | undefined)?.map((s) => ({
      ...s,
      name: user,
    }))
    const roleRef = o.roleRef as Record<string, string> | undefined
    return {
      ...o,
      metadata,
      ...(subjects === undefined ? {} : { subjects }),
      ...(roleRef === undefined || namespaced
        ? {}
        : { roleRef: { ...roleRef, name: `${roleRef.name}-${suffixed}` } }),
    }
  })
const resourceOfKind: Readonly<Record<string, ResourceRef>> = {
  Role: Roles,
  RoleBinding: RoleBindings,
  ClusterRole: rbac("clusterroles", "ClusterRole", false),
  ClusterRoleBinding: rbac("clusterrolebindings", "ClusterRoleBinding", false),
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64")
const clusterSecret = (ns: string, name: string, kubeconfig: string) => ({
  metadata: { namespace: ns, name, labels: { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" } },
  data: { kubeconfig: b64(kubeconfig) },
})

type Obj = KubeObject & { readonly data?: Record<string, string>; readonly type?: string }
const read = (client: KubeClientShape, resource: ResourceRef, namespace: string, name: string) =>
  client
    .get<Obj>(resource, { namespace, name })
    .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))

/** Waits (real time) for `check`, polling every 200 ms; fails naming `what` after `ms`. */
const until = (what: string, check: Effect.Effect<boolean, unknown>, ms = 60_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + ms
    while (Date.now() < deadline) {
      if (yield* check.pipe(Effect.orElseSucceed(() => false))) return
      yield* Effect.sleep("200 millis")
    }
    assert.fail(`timed out after ${ms} ms: ${what}`)
  })

const labelled = (ns: string, name: string, extra: Record<string, unknown> = {}): Obj => ({
  metadata: {
    namespace: ns,
    name,
    labels: { "krtt.io/propagate": "true", team: "a" },
    annotations: { owner: "ops" },
  },
  data: { color: "blue" },
  ...extra,
})

/** The fleet: hub, w1 (restricted to a Role), w2 (through a proxy that can go down), w3; w4 kept for later. */
const fleet = Effect.gen(function* () {
  const [hub, c1, c2] = plane.clusters as [Cluster, Cluster, Cluster]
  const [c3, c4] = (own as ControlPlane).clusters as [Cluster, Cluster]
  const hubClient = yield* clientOf(hub)
  const ns = yield* createNamespace(hubClient, "propagate")
  const fleetNs = yield* createNamespace(hubClient, "fleet")
  const admins = {
    w1: yield* clientOf(c1),
    w2: yield* clientOf(c2),
    w3: yield* clientOf(c3),
    w4: yield* clientOf(c4),
  }
  // w1: the propagated namespace exists, and the identity has the documented Role there only.
  yield* admins.w1.create(Resources.namespaces, { metadata: { name: ns } })
  const user = yield* Effect.promise(() => c1.newUser())
  const manifests = workloadManifests(ns, user.user, user.user)
  for (const o of manifests) yield* admins.w1.create(resourceOfKind[o.kind ?? ""] as ResourceRef, o)
  const binding = manifests.find((o) => o.kind === "RoleBinding") as KubeObject
  const proxy = yield* tcpProxy(new URL(c2.server))
  yield* hubClient.create(Resources.secrets, clusterSecret(fleetNs, "w1", user.kubeconfig))
  yield* hubClient.create(
    Resources.secrets,
    clusterSecret(fleetNs, "w2", c2.admin.kubeconfig.replace(c2.server, proxy.url)),
  )
  // w3's Secret carries a label the selector of only-w3 names (the cluster's labels are its Secret's).
  yield* hubClient.create(Resources.secrets, {
    ...clusterSecret(fleetNs, "w3", c3.admin.kubeconfig),
    metadata: {
      namespace: fleetNs,
      name: "w3",
      labels: { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true", env: "prod" },
    },
  })
  const provider = yield* makeKubeconfigSecretsProvider(hubClient, {
    namespace: fleetNs,
    health: { interval: "500 millis", timeout: "2 seconds", failureThreshold: 3 },
    cacheFactory: makePropagateCacheFactory(propagateConfig({ permissionRecheckInterval: 1_000 })),
  })
  const manager = yield* makeManager({ hub: yield* makeCluster({ client: hubClient }), provider })
  yield* addToManager(manager, hubClient, {
    pendingNamespace: fleetNs,
    config: {
      retryInterval: 500,
      clusterPollInterval: 200,
      clusterTimeout: 5_000,
      permissionRecheckInterval: 1_000,
    },
    clusterLabels: kubeconfigSecretLabels(manager, fleetNs),
  })
  yield* manager.start
  const engaged = (name: string) =>
    Effect.map(provider.clusters, (cs) => cs.some((c) => c.name === name && c.engaged))
  return { hubClient, ns, fleetNs, admins, proxy, provider, engaged, binding, c4 }
})

const copyIn = (client: KubeClientShape, resource: ResourceRef, ns: string, name: string) =>
  Effect.map(
    read(client, resource, ns, name),
    (o) => o?.metadata.labels?.[PropagatedFromLabel] === `${ns}.${name}`,
  )
const annotationOf = (hub: KubeClientShape, resource: ResourceRef, ns: string, name: string) =>
  Effect.map(read(hub, resource, ns, name), (o) => o?.metadata.annotations?.[PropagatedToAnnotation])

describe("krtt propagate on a real control plane (a hub and three workload API servers)", () => {
  it.live(
    "propagates to all (a namespace Role plus GET / is enough), restores drift, follows the selector, survives a revoked Role, and serves a fourth cluster added live",
    () =>
      Effect.gen(function* () {
        const f = yield* fleet
        const { hubClient: hub, ns, admins } = f
        const workloads = [admins.w1, admins.w2, admins.w3]
        yield* hub.create(Resources.configMaps, labelled(ns, "settings"))
        yield* hub.create(
          Resources.secrets,
          labelled(ns, "creds", {
            type: "kubernetes.io/basic-auth",
            data: { username: b64("u"), password: b64("p") },
          }),
        )
        yield* hub.create(
          Resources.configMaps,
          labelled(ns, "only-w3", {
            metadata: {
              ...labelled(ns, "only-w3").metadata,
              annotations: { "krtt.io/propagation": "env=prod" },
            },
          }),
        )
        // Propagation to all (propagate.copy#1 in w2 and w3, where the namespace is created; #2 in w1).
        for (const [resource, name] of [
          [Resources.configMaps, "settings"],
          [Resources.secrets, "creds"],
        ] as const)
          yield* until(
            `${name} in w1, w2, w3`,
            Effect.map(Effect.all(workloads.map((c) => copyIn(c, resource, ns, name))), (ok) =>
              ok.every(Boolean),
            ),
          )
        const copy = (yield* read(admins.w2, Resources.secrets, ns, "creds")) as Obj
        assert.strictEqual(copy.type, "kubernetes.io/basic-auth")
        assert.deepStrictEqual(copy.data, { username: b64("u"), password: b64("p") })
        assert.deepStrictEqual(copy.metadata.labels, { team: "a", [PropagatedFromLabel]: `${ns}.creds` })
        assert.deepStrictEqual(copy.metadata.annotations, { owner: "ops" })
        yield* until(
          "3/3 on settings",
          Effect.map(annotationOf(hub, Resources.configMaps, ns, "settings"), (a) => a === "3/3"),
        )
        const source = (yield* read(hub, Resources.configMaps, ns, "settings")) as Obj
        assert.include(source.metadata.finalizers ?? [], PropagateFinalizer)

        // The selector: only w3 (propagate.copy#6 elsewhere), 1/1.
        yield* until("only-w3 in w3", copyIn(admins.w3, Resources.configMaps, ns, "only-w3"))
        yield* until(
          "1/1 on only-w3",
          Effect.map(annotationOf(hub, Resources.configMaps, ns, "only-w3"), (a) => a === "1/1"),
        )
        assert.isUndefined(yield* read(admins.w1, Resources.configMaps, ns, "only-w3"))
        assert.isUndefined(yield* read(admins.w2, Resources.configMaps, ns, "only-w3"))

        // Drift: an edit (#3) and a deletion (#2) in a cluster are restored.
        yield* admins.w2.patch(
          Resources.configMaps,
          { namespace: ns, name: "settings" },
          mergePatch({ data: { color: "red" } }),
        )
        yield* admins.w3.delete(Resources.secrets, { namespace: ns, name: "creds" })
        yield* until(
          "edit restored in w2",
          Effect.map(read(admins.w2, Resources.configMaps, ns, "settings"), (o) => o?.data?.color === "blue"),
        )
        yield* until("deletion restored in w3", copyIn(admins.w3, Resources.secrets, ns, "creds"))

        // A Role revoked in w1: an Event on the sources (#7), 2/3, the others go on.
        yield* admins.w1.delete(RoleBindings, { namespace: ns, name: "krtt-propagate" })
        yield* until(
          "PropagationForbidden Event on settings",
          Effect.map(hub.list(Resources.events, { namespace: ns }), (l) =>
            l.items.some(
              (e) =>
                e.reason === "PropagationForbidden" &&
                (e.involvedObject as { name?: string } | undefined)?.name === "settings" &&
                String(e.message).includes("w1"),
            ),
          ),
        )
        yield* until(
          "2/3 on settings",
          Effect.map(annotationOf(hub, Resources.configMaps, ns, "settings"), (a) => a === "2/3"),
        )
        yield* hub.patch(
          Resources.configMaps,
          { namespace: ns, name: "settings" },
          mergePatch({ data: { color: "green" } }),
        )
        yield* until(
          "the edit reaches w2 and w3 while w1 is forbidden",
          Effect.map(
            Effect.all([admins.w2, admins.w3].map((c) => read(c, Resources.configMaps, ns, "settings"))),
            (os) => os.every((o) => o?.data?.color === "green"),
          ),
        )
        assert.strictEqual(
          (yield* read(admins.w1, Resources.configMaps, ns, "settings"))?.data?.color,
          "blue",
        )
        // ... and restored: w1 catches up, 3/3.
        yield* admins.w1.create(RoleBindings, f.binding)
        yield* until(
          "w1 catches up once the Role is back",
          Effect.map(
            read(admins.w1, Resources.configMaps, ns, "settings"),
            (o) => o?.data?.color === "green",
          ),
        )
        yield* until(
          "3/3 again",
          Effect.map(annotationOf(hub, Resources.configMaps, ns, "settings"), (a) => a === "3/3"),
        )

        // A fourth cluster added live gets every source (and the selector keeps only-w3 out).
        yield* hub.create(Resources.secrets, clusterSecret(f.fleetNs, "w4", f.c4.admin.kubeconfig))
        yield* until("settings in w4", copyIn(admins.w4, Resources.configMaps, ns, "settings"))
        yield* until("creds in w4", copyIn(admins.w4, Resources.secrets, ns, "creds"))
        yield* until(
          "4/4 on creds",
          Effect.map(annotationOf(hub, Resources.secrets, ns, "creds"), (a) => a === "4/4"),
        )
        assert.isUndefined(yield* read(admins.w4, Resources.configMaps, ns, "only-w3"))
        yield* hub.delete(Resources.secrets, { namespace: f.fleetNs, name: "w4" })
      }).pipe(Effect.scoped),
    240_000,
  )

  it.live(
    "a deleted source is removed everywhere, a cluster down during the delete included: the finalizer goes once the engaged clusters are clean, the one down is cleaned when it comes back",
    () =>
      Effect.gen(function* () {
        const f = yield* fleet
        const { hubClient: hub, ns, admins } = f
        yield* hub.create(Resources.configMaps, labelled(ns, "doomed"))
        yield* until(
          "doomed in w1, w2, w3",
          Effect.map(
            Effect.all(
              [admins.w1, admins.w2, admins.w3].map((c) => copyIn(c, Resources.configMaps, ns, "doomed")),
            ),
            (ok) => ok.every(Boolean),
          ),
        )
        yield* f.proxy.down
        yield* until(
          "w2 disengaged",
          Effect.map(f.engaged("w2"), (e) => !e),
        )
        yield* hub.delete(Resources.configMaps, { namespace: ns, name: "doomed" })
        yield* until(
          "the source is gone (finalizer released)",
          Effect.map(read(hub, Resources.configMaps, ns, "doomed"), (o) => o === undefined),
        )
        assert.isUndefined(yield* read(admins.w1, Resources.configMaps, ns, "doomed"))
        assert.isUndefined(yield* read(admins.w3, Resources.configMaps, ns, "doomed"))
        // w2 (reached directly, not through the proxy) still has its copy, remembered as pending.
        assert.isTrue(yield* copyIn(admins.w2, Resources.configMaps, ns, "doomed"))
        const pending = yield* read(hub, Resources.configMaps, f.fleetNs, PendingConfigMap)
        assert.deepStrictEqual(JSON.parse(pending?.data?.[`ConfigMap.${ns}.doomed`] ?? "[]"), ["w2"])
        yield* f.proxy.up
        yield* until("w2 engaged again", f.engaged("w2"))
        yield* until(
          "w2 cleaned when it came back",
          Effect.map(read(admins.w2, Resources.configMaps, ns, "doomed"), (o) => o === undefined),
        )
        yield* until(
          "nothing pending",
          Effect.map(
            read(hub, Resources.configMaps, f.fleetNs, PendingConfigMap),
            (o) => o?.data?.[`ConfigMap.${ns}.doomed`] === undefined,
          ),
        )
      }).pipe(Effect.scoped),
    180_000,
  )
})
