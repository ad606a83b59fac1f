// The providers on a real control plane of their own: a hub (cluster-0) and three workload API
// servers (cluster-1..3). Each provider engages clusters added live and disengages clusters
// removed live; rotated credentials re-engage with the new ones (seed 003, Proposal: "the engage
// scope cancelled when the cluster leaves"). kubeconfig-file also reads directories and globs;
// cluster-inventory-api reads ClusterProfiles through an access provider's exec plugin.
import { chmod, mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { stringify } from "yaml"
import { clusterCacheConfig } from "../../core/clustercache/index.ts"
import { ClusterResource } from "../../shell/clustercache/service.ts"
import type { KubeClientShape } from "../../shell/kube/client.ts"
import { type KubeObject, Resources } from "../../shell/kube/resource.ts"
import { makeClusterApiProvider } from "../../shell/multicluster/providers/clusterApi.ts"
import { makeClusterProfileProvider } from "../../shell/multicluster/providers/clusterProfile.ts"
import { ClusterProfiles } from "../../shell/multicluster/providers/clusterProfileAccess.ts"
import { makeKubeconfigFileProvider } from "../../shell/multicluster/providers/kubeconfigFile.ts"
import { makeKubeconfigSecretsProvider } from "../../shell/multicluster/providers/kubeconfigSecrets.ts"
import { makeNamespacesProvider } from "../../shell/multicluster/providers/namespaces.ts"
import { eventually, recordingAware } from "../../shell/multicluster/providers/testing.ts"
import type { Cluster as McCluster } from "../../shell/multicluster/types.ts"
import { ClusterName } from "../../shell/workqueue/request.ts"
import type { Cluster, ControlPlane, Credentials } from "../../testenv/index.ts"
import { startControlPlane } from "../../testenv/index.ts"
import { apply, readManifests, repoRoot, waitForCrd } from "../fixtures/index.ts"
import { clientOf, createNamespace, tcpProxy } from "../shell/support.ts"

let plane: ControlPlane | undefined
beforeAll(async () => {
  plane = await startControlPlane({ clusters: 4 })
}, 600_000)
afterAll(async () => {
  await plane?.stop()
})

const clusters = (): { readonly hub: Cluster; readonly workloads: ReadonlyArray<Cluster> } => {
  const all = plane?.clusters ?? []
  const [hub, ...workloads] = all
  if (hub === undefined || workloads.length < 3)
    throw new Error("the control plane has no hub and three workloads")
  return { hub, workloads }
}

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64")

/** Rules a provider's user needs: the probe (`GET /`), reading namespaces, and who am I. */
const userRules = [
  { nonResourceURLs: ["/"], verbs: ["get"] },
  { apiGroups: [""], resources: ["namespaces"], verbs: ["get", "list", "watch"] },
]

/** The user name the API server sees for this Cluster's client (SelfSubjectReview). */
const whoami = (c: McCluster): Effect.Effect<string, unknown> =>
  Effect.map(
    c.client.raw({
      method: "POST",
      path: "/apis/authentication.k8s.io/v1/selfsubjectreviews",
      body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
    }),
    (body) => (body as { status?: { userInfo?: { username?: string } } }).status?.userInfo?.username ?? "",
  )

/** The engaged Cluster works: its client and its cache both reach its API server. */
const works = (c: McCluster) =>
  Effect.gen(function* () {
    yield* c.client.get(Resources.namespaces, { name: "default" })
    const listed = yield* c.cache.list<KubeObject>(Resources.namespaces)
    assert.isTrue(listed.some((n) => n.metadata.name === "default"))
  })

const secretOf = (ns: string, name: string, kubeconfig: string) => ({
  metadata: { namespace: ns, name, labels: { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" } },
  data: { kubeconfig: b64(kubeconfig) },
})

describe("providers on a real control plane (hub + 3 workload API servers)", () => {
  it.live(
    "kubeconfig-secrets: Secrets added and removed live engage and disengage; a rotated kubeconfig re-engages as the new user",
    () =>
      Effect.gen(function* () {
        const { hub, workloads } = clusters()
        const hubClient = yield* clientOf(hub)
        const ns = yield* createNamespace(hubClient, "mc-secrets")
        const provider = yield* makeKubeconfigSecretsProvider(hubClient, { namespace: ns })
        const aware = recordingAware()
        yield* provider.run(aware)
        for (const w of workloads)
          yield* hubClient.create(Resources.secrets, secretOf(ns, w.name, w.admin.kubeconfig))
        yield* eventually("three engaged", () => aware.open().size === 3, 60_000)
        for (const w of workloads) yield* works(yield* provider.get(ClusterName(w.name)))
        // Removed live.
        yield* hubClient.delete(Resources.secrets, { namespace: ns, name: "cluster-2" })
        yield* eventually("cluster-2 disengaged", () => !aware.open().has("cluster-2"), 30_000)
        assert.strictEqual(aware.engagements.find((e) => e.cluster.name === "cluster-2")?.closed, 1)
        assert.strictEqual(
          (yield* Effect.flip(provider.get(ClusterName("cluster-2"))))._tag,
          "ClusterNotFound",
        )
        // Rotated: user A, then user B, without a restart.
        const w1 = workloads[0] as Cluster
        const a: Credentials = yield* Effect.promise(() => w1.userWithRules(userRules))
        const b: Credentials = yield* Effect.promise(() => w1.userWithRules(userRules))
        yield* hubClient.update(Resources.secrets, secretOf(ns, w1.name, a.kubeconfig))
        yield* eventually(
          "cluster-1 engaged as user A",
          () =>
            aware.engagements.filter((e) => e.cluster.name === "cluster-1" && e.closed === 0).length === 1 &&
            aware.engagements.filter((e) => e.cluster.name === "cluster-1").length === 2,
          30_000,
        )
        assert.strictEqual(yield* whoami(yield* provider.get(ClusterName("cluster-1"))), a.user)
        yield* hubClient.update(Resources.secrets, secretOf(ns, w1.name, b.kubeconfig))
        yield* eventually(
          "cluster-1 engaged as user B",
          () =>
            aware.engagements.filter((e) => e.cluster.name === "cluster-1").length === 3 &&
            aware.open().has("cluster-1"),
          30_000,
        )
        assert.strictEqual(yield* whoami(yield* provider.get(ClusterName("cluster-1"))), b.user)
        assert.deepStrictEqual(
          aware.engagements.filter((e) => e.cluster.name === "cluster-1").map((e) => e.closed),
          [1, 1, 0],
        )
        // A refused token is never engaged, and says why.
        yield* hubClient.create(
          Resources.secrets,
          secretOf(ns, "refused", w1.kubeconfigFor("nobody", "not-a-valid-token")),
        )
        yield* Effect.gen(function* () {
          for (let i = 0; i < 300; i++) {
            const state = (yield* provider.clusters).find((c) => c.name === "refused")
            if (state?.reason.includes("401") === true) {
              assert.isFalse(state.engaged)
              return
            }
            yield* Effect.sleep("100 millis")
          }
          assert.fail("the refused cluster never reported the 401")
        })
        // Added back live.
        yield* hubClient.create(
          Resources.secrets,
          secretOf(ns, "cluster-2", (workloads[1] as Cluster).admin.kubeconfig),
        )
        yield* eventually("cluster-2 engaged again", () => aware.open().has("cluster-2"), 30_000)
      }).pipe(Effect.scoped),
    180_000,
  )

  it.live(
    "kubeconfig-file: contexts added and removed by editing the file live; a context's new token re-engages as that user",
    () =>
      Effect.gen(function* () {
        const { workloads } = clusters()
        const dir = yield* Effect.acquireRelease(
          Effect.promise(() => mkdtemp(join(tmpdir(), "krtt-e2e-kubeconfig-file-"))),
          (d) => Effect.promise(() => rm(d, { recursive: true, force: true })),
        )
        const path = join(dir, "config")
        const fileOf = (
          entries: ReadonlyArray<{
            readonly cluster: Cluster
            readonly user: string
            readonly token: string
          }>,
        ) =>
          stringify({
            apiVersion: "v1",
            kind: "Config",
            clusters: entries.map((e) => ({
              name: e.cluster.name,
              cluster: { server: e.cluster.server, "certificate-authority-data": b64(e.cluster.info.ca) },
            })),
            users: entries.map((e) => ({ name: `${e.cluster.name}-${e.user}`, user: { token: e.token } })),
            contexts: entries.map((e) => ({
              name: e.cluster.name,
              context: { cluster: e.cluster.name, user: `${e.cluster.name}-${e.user}` },
            })),
            "current-context": entries[0]?.cluster.name ?? "",
          })
        const save = (text: string) =>
          Effect.promise(async () => {
            await writeFile(`${path}.tmp`, text)
            await rename(`${path}.tmp`, path)
          })
        const admins = workloads.map((cluster) => ({ cluster, user: "admin", token: cluster.admin.token }))
        yield* save(fileOf(admins))
        const provider = yield* makeKubeconfigFileProvider({ paths: [path] })
        const aware = recordingAware()
        yield* provider.run(aware)
        yield* eventually("three contexts engaged", () => aware.open().size === 3, 60_000)
        yield* works(yield* provider.get(ClusterName("cluster-3")))
        yield* save(fileOf(admins.slice(0, 2)))
        yield* eventually("cluster-3 disengaged", () => !aware.open().has("cluster-3"), 30_000)
        yield* save(fileOf(admins))
        yield* eventually("cluster-3 engaged again", () => aware.open().has("cluster-3"), 30_000)
        const w1 = workloads[0] as Cluster
        const a = yield* Effect.promise(() => w1.userWithRules(userRules))
        yield* save(fileOf([{ cluster: w1, user: a.user, token: a.token }, ...admins.slice(1)]))
        yield* eventually(
          "cluster-1 re-engaged",
          () =>
            aware.engagements.filter((e) => e.cluster.name === "cluster-1").length === 2 &&
            aware.open().has("cluster-1"),
          30_000,
        )
        assert.strictEqual(yield* whoami(yield* provider.get(ClusterName("cluster-1"))), a.user)
      }).pipe(Effect.scoped),
    180_000,
  )

  it.live(
    "kubeconfig-file over a directory and a glob: files added engage <file>+<context>, files removed disengage",
    () =>
      Effect.gen(function* () {
        const { workloads } = clusters()
        const dir = yield* Effect.acquireRelease(
          Effect.promise(() => mkdtemp(join(tmpdir(), "krtt-e2e-kubeconfig-dirs-"))),
          (d) => Effect.promise(() => rm(d, { recursive: true, force: true })),
        )
        const fleet = join(dir, "fleet")
        const extra = join(dir, "extra")
        yield* Effect.promise(() => Promise.all([mkdir(fleet), mkdir(extra)]))
        const one = (cluster: Cluster) =>
          stringify({
            apiVersion: "v1",
            kind: "Config",
            clusters: [
              {
                name: cluster.name,
                cluster: { server: cluster.server, "certificate-authority-data": b64(cluster.info.ca) },
              },
            ],
            users: [{ name: "admin", user: { token: cluster.admin.token } }],
            contexts: [{ name: "admin", context: { cluster: cluster.name, user: "admin" } }],
            "current-context": "admin",
          })
        const save = (path: string, cluster: Cluster) =>
          Effect.promise(async () => {
            await writeFile(`${path}.tmp`, one(cluster))
            await rename(`${path}.tmp`, path)
          })
        const [w1, w2, w3] = workloads as [Cluster, Cluster, Cluster]
        yield* save(join(fleet, "w1.kubeconfig"), w1)
        yield* save(join(extra, "w2.yaml"), w2)
        const provider = yield* makeKubeconfigFileProvider({
          paths: [fleet, join(extra, "*.yaml")],
          pollInterval: "1 hour",
        })
        const aware = recordingAware()
        yield* provider.run(aware)
        const w1Name = `${join(fleet, "w1.kubeconfig")}+admin`
        const w2Name = `${join(extra, "w2.yaml")}+admin`
        const w3Name = `${join(fleet, "kubeconfig.yaml")}+admin`
        yield* eventually(
          "w1 and w2 engaged",
          () => aware.open().has(w1Name) && aware.open().has(w2Name),
          60_000,
        )
        yield* works(yield* provider.get(ClusterName(w2Name)))
        yield* save(join(fleet, "kubeconfig.yaml"), w3)
        yield* eventually("a file added to the directory engages", () => aware.open().has(w3Name), 30_000)
        yield* works(yield* provider.get(ClusterName(w3Name)))
        yield* Effect.promise(() => rm(join(extra, "w2.yaml")))
        yield* eventually("a file removed disengages", () => !aware.open().has(w2Name), 30_000)
        assert.deepStrictEqual([...aware.open().keys()].sort(), [w3Name, w1Name].sort())
      }).pipe(Effect.scoped),
    180_000,
  )

  it.live(
    "cluster-inventory-api: ready ClusterProfiles engage through an access provider's exec plugin; not ready, rotated and deleted follow",
    () =>
      Effect.gen(function* () {
        const { hub, workloads } = clusters()
        const hubClient = yield* clientOf(hub)
        for (const crd of readManifests(join(repoRoot, "e2e/multicluster/clusterprofiles.crd.yaml")))
          yield* Effect.promise(() => apply(hub, crd))
        yield* Effect.promise(() => waitForCrd(hub, "clusterprofiles.multicluster.x-k8s.io"))
        const ns = yield* createNamespace(hubClient, "profiles")
        const dir = yield* Effect.acquireRelease(
          Effect.promise(() => mkdtemp(join(tmpdir(), "krtt-e2e-profiles-"))),
          (d) => Effect.promise(() => rm(d, { recursive: true, force: true })),
        )
        // The consumer's exec plugin: prints the token the profile hands it in KRTT_TOKEN.
        const plugin = join(dir, "token-plugin.sh")
        yield* Effect.promise(async () => {
          await writeFile(
            plugin,
            `#!/bin/sh\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$KRTT_TOKEN"\n`,
          )
          await chmod(plugin, 0o755)
        })
        const provider = yield* makeClusterProfileProvider(hubClient, {
          namespace: ns,
          accessConfig: {
            providers: [
              {
                name: "token-env",
                execConfig: { apiVersion: "client.authentication.k8s.io/v1", command: plugin },
                profileSourcedEnvVarsPolicy: "AppendIfNotExists",
              },
            ],
          },
        })
        const status = (cluster: Cluster, token: string, ready: boolean) => ({
          conditions: [
            {
              type: "ControlPlaneHealthy",
              status: ready ? "True" : "False",
              reason: "E2E",
              message: "",
              lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
            },
          ],
          accessProviders: [
            {
              name: "token-env",
              cluster: {
                server: cluster.server,
                "certificate-authority-data": b64(cluster.info.ca),
                extensions: [
                  {
                    name: "clusterprofiles.multicluster.x-k8s.io/exec/additional-envs",
                    extension: { KRTT_TOKEN: token },
                  },
                ],
              },
            },
          ],
        })
        const publish = (name: string, cluster: Cluster, token: string, ready: boolean) =>
          Effect.gen(function* () {
            const existing = yield* hubClient
              .get(ClusterProfiles, { namespace: ns, name })
              .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
            const object =
              existing ??
              (yield* hubClient.create(ClusterProfiles, {
                apiVersion: "multicluster.x-k8s.io/v1alpha1",
                kind: "ClusterProfile",
                metadata: { namespace: ns, name, labels: { "x-k8s.io/cluster-manager": "e2e" } },
                spec: { displayName: name, clusterManager: { name: "e2e" } },
              } as KubeObject))
            yield* hubClient.updateStatus(ClusterProfiles, {
              ...object,
              status: status(cluster, token, ready),
            })
          })
        const [w1, w2] = workloads as [Cluster, Cluster]
        yield* publish("one", w1, w1.admin.token, true)
        yield* publish("two", w2, w2.admin.token, false)
        const aware = recordingAware()
        yield* provider.run(aware)
        yield* eventually("one engaged", () => aware.open().has(`${ns}/one`), 60_000)
        const one = yield* provider.get(ClusterName(`${ns}/one`))
        yield* works(one)
        const two = (yield* provider.clusters).find((c) => c.name === `${ns}/two`)
        assert.include(two?.reason ?? "", "not ready: ControlPlaneHealthy is not True")
        yield* publish("two", w2, w2.admin.token, true)
        yield* eventually("two engaged once ready", () => aware.open().has(`${ns}/two`), 60_000)
        // The cluster manager rotates one's credentials: re-engaged as the new user.
        const a = yield* Effect.promise(() => w1.userWithRules(userRules))
        yield* publish("one", w1, a.token, true)
        yield* eventually(
          "one re-engaged",
          () =>
            aware.engagements.filter((e) => e.cluster.name === `${ns}/one`).length === 2 &&
            aware.open().has(`${ns}/one`),
          30_000,
        )
        assert.strictEqual(yield* whoami(yield* provider.get(ClusterName(`${ns}/one`))), a.user)
        yield* hubClient.delete(ClusterProfiles, { namespace: ns, name: "two" })
        yield* eventually("two disengaged when deleted", () => !aware.open().has(`${ns}/two`), 30_000)
      }).pipe(Effect.scoped),
    180_000,
  )

  it.live(
    "namespaces: namespaces created and deleted live engage and disengage; each facade sees only its namespace",
    () =>
      Effect.gen(function* () {
        const { hub } = clusters()
        const hubClient = yield* clientOf(hub)
        const tenant = `t${Date.now().toString(36)}`
        const makeNs = (name: string) =>
          hubClient.create(Resources.namespaces, {
            metadata: { name, labels: { "e2e.krtt.dev/tenant": tenant } },
          })
        yield* makeNs(`${tenant}-a`)
        yield* makeNs(`${tenant}-b`)
        for (const n of ["a", "b"]) {
          yield* hubClient.create(Resources.configMaps, {
            metadata: { namespace: `${tenant}-${n}`, name: `cm-${n}` },
          })
        }
        const provider = yield* makeNamespacesProvider(hubClient, {
          labelSelector: `e2e.krtt.dev/tenant=${tenant}`,
        })
        const aware = recordingAware()
        yield* provider.run(aware)
        yield* eventually("a and b engaged", () => aware.open().size === 2, 60_000)
        const a = yield* provider.get(ClusterName(`${tenant}-a`))
        const inA = yield* a.cache.list<KubeObject>(Resources.configMaps)
        assert.deepStrictEqual(
          inA.map((o) => o.metadata.name),
          ["cm-a"],
        )
        assert.strictEqual(
          (yield* Effect.flip(a.client.get(Resources.configMaps, { namespace: `${tenant}-b`, name: "cm-b" })))
            ._tag,
          "Forbidden",
        )
        yield* makeNs(`${tenant}-c`)
        yield* eventually("c engaged", () => aware.open().has(`${tenant}-c`), 30_000)
        // Terminating is enough to leave; the namespace controller removes it afterwards.
        yield* hubClient.delete(Resources.namespaces, { name: `${tenant}-b` })
        yield* eventually("b disengaged", () => !aware.open().has(`${tenant}-b`), 30_000)
        assert.strictEqual(aware.engagements.find((e) => e.cluster.name === `${tenant}-b`)?.closed, 1)
      }).pipe(Effect.scoped),
    180_000,
  )

  it.live(
    "cluster-api: Clusters created and deleted live engage and disengage; a fixed kubeconfig Secret engages with the new credentials",
    () =>
      Effect.gen(function* () {
        const { hub, workloads } = clusters()
        const hubClient: KubeClientShape = yield* clientOf(hub)
        for (const crd of readManifests(join(repoRoot, "config/crd/bases/cluster.x-k8s.io_clusters.yaml")))
          yield* Effect.promise(() => apply(hub, crd))
        yield* Effect.promise(() => waitForCrd(hub, "clusters.cluster.x-k8s.io"))
        const ns = yield* createNamespace(hubClient, "mc-capi")
        const addCluster = (name: string, kubeconfig: string) =>
          Effect.gen(function* () {
            yield* hubClient.create(Resources.secrets, {
              metadata: { namespace: ns, name: `${name}-kubeconfig` },
              type: "cluster.x-k8s.io/secret",
              data: { value: b64(kubeconfig) },
            } as KubeObject)
            yield* hubClient.create(ClusterResource, {
              apiVersion: "cluster.x-k8s.io/v1beta2",
              kind: "Cluster",
              metadata: { namespace: ns, name },
              spec: {},
            } as KubeObject)
            yield* hubClient.patchStatus(
              ClusterResource,
              { namespace: ns, name },
              { type: "merge", body: { status: { initialization: { infrastructureProvisioned: true } } } },
            )
          })
        const [w1, w2, w3] = workloads as [Cluster, Cluster, Cluster]
        yield* addCluster("one", w1.admin.kubeconfig)
        yield* addCluster("two", w2.admin.kubeconfig)
        const provider = yield* makeClusterApiProvider(hubClient, {
          namespace: ns,
          // A refused connection is retried after 2 s here instead of seed 000's 30 s.
          clusterCache: clusterCacheConfig({ connectionCreationRetryInterval: 2_000 }),
        })
        const aware = recordingAware()
        yield* provider.run(aware)
        yield* eventually("one and two engaged", () => aware.open().size === 2, 60_000)
        yield* works(yield* provider.get(ClusterName(`${ns}/one`)))
        // A Cluster whose kubeconfig is refused is not engaged; fixing the Secret engages it.
        yield* addCluster("three", w3.kubeconfigFor("nobody", "not-a-valid-token"))
        yield* Effect.sleep("3 seconds")
        assert.isFalse(aware.open().has(`${ns}/three`))
        const user = yield* Effect.promise(() => w3.userWithRules(userRules))
        yield* hubClient.patch(
          Resources.secrets,
          { namespace: ns, name: "three-kubeconfig" },
          { type: "merge", body: { data: { value: b64(user.kubeconfig) } } },
        )
        yield* eventually("three engaged", () => aware.open().has(`${ns}/three`), 60_000)
        assert.strictEqual(yield* whoami(yield* provider.get(ClusterName(`${ns}/three`))), user.user)
        // Deleted live.
        yield* hubClient.delete(ClusterResource, { namespace: ns, name: "two" })
        yield* eventually("two disengaged", () => !aware.open().has(`${ns}/two`), 30_000)
        assert.strictEqual(aware.engagements.find((e) => e.cluster.name === `${ns}/two`)?.closed, 1)
      }).pipe(Effect.scoped),
    180_000,
  )

  it.live(
    "health gate: an API server that goes away is disengaged at the 5th failed probe, the others stay; it is re-engaged when it returns",
    () =>
      Effect.gen(function* () {
        const { hub, workloads } = clusters()
        const hubClient = yield* clientOf(hub)
        const ns = yield* createNamespace(hubClient, "mc-health")
        const [w1, w2] = workloads as [Cluster, Cluster]
        const proxy = yield* tcpProxy(new URL(w1.server))
        // Probes every 500 ms instead of 10 s (configurable; seed 000's values are unit-tested).
        const provider = yield* makeKubeconfigSecretsProvider(hubClient, {
          namespace: ns,
          health: { interval: "500 millis", timeout: "2 seconds" },
        })
        const aware = recordingAware()
        yield* provider.run(aware)
        yield* hubClient.create(
          Resources.secrets,
          secretOf(ns, "flaky", w1.admin.kubeconfig.replace(w1.server, proxy.url)),
        )
        yield* hubClient.create(Resources.secrets, secretOf(ns, "steady", w2.admin.kubeconfig))
        yield* eventually("both engaged", () => aware.open().size === 2, 60_000)
        yield* proxy.down
        yield* eventually("flaky disengaged", () => !aware.open().has("flaky"), 30_000)
        const state = (yield* provider.clusters).find((c) => c.name === "flaky")
        assert.deepStrictEqual([state?.engaged, state?.healthy], [false, false])
        assert.include(state?.reason, "probe failed 5 times in a row (threshold 5)")
        assert.isTrue(aware.open().has("steady"))
        yield* works(yield* provider.get(ClusterName("steady")))
        yield* proxy.up
        yield* eventually("flaky engaged again", () => aware.open().has("flaky"), 30_000)
        yield* works(yield* provider.get(ClusterName("flaky")))
        assert.deepStrictEqual(
          aware.engagements.filter((e) => e.cluster.name === "flaky").map((e) => e.closed),
          [1, 0],
        )
      }).pipe(Effect.scoped),
    180_000,
  )

  it.live(
    "cluster-api: rotated credentials of an engaged Cluster re-engage as the new user once the ClusterCache drops the old ones",
    () =>
      Effect.gen(function* () {
        const { hub, workloads } = clusters()
        const hubClient: KubeClientShape = yield* clientOf(hub)
        for (const crd of readManifests(join(repoRoot, "config/crd/bases/cluster.x-k8s.io_clusters.yaml")))
          yield* Effect.promise(() => apply(hub, crd))
        yield* Effect.promise(() => waitForCrd(hub, "clusters.cluster.x-k8s.io"))
        const ns = yield* createNamespace(hubClient, "mc-capi-rotate")
        const w2 = workloads[1] as Cluster
        const a = yield* Effect.promise(() => w2.userWithRules(userRules))
        const b = yield* Effect.promise(() => w2.userWithRules(userRules))
        yield* hubClient.create(Resources.secrets, {
          metadata: { namespace: ns, name: "rot-kubeconfig" },
          type: "cluster.x-k8s.io/secret",
          data: { value: b64(a.kubeconfig) },
        } as KubeObject)
        yield* hubClient.create(ClusterResource, {
          apiVersion: "cluster.x-k8s.io/v1beta2",
          kind: "Cluster",
          metadata: { namespace: ns, name: "rot" },
          spec: {},
        } as KubeObject)
        yield* hubClient.patchStatus(
          ClusterResource,
          { namespace: ns, name: "rot" },
          { type: "merge", body: { status: { initialization: { infrastructureProvisioned: true } } } },
        )
        const provider = yield* makeClusterApiProvider(hubClient, {
          namespace: ns,
          // Probes every 500 ms and a 1 s retry instead of seed 000's 10 s and 30 s.
          clusterCache: clusterCacheConfig({
            connectionCreationRetryInterval: 1_000,
            healthProbe: { interval: 500 },
          }),
          resyncInterval: "500 millis",
        })
        const aware = recordingAware()
        yield* provider.run(aware)
        const name = `${ns}/rot`
        yield* eventually("rot engaged", () => aware.open().has(name), 60_000)
        assert.strictEqual(yield* whoami(yield* provider.get(ClusterName(name))), a.user)
        // Rotate: the Secret now holds user B, and user A loses its access (its probes fail).
        yield* hubClient.patch(
          Resources.secrets,
          { namespace: ns, name: "rot-kubeconfig" },
          { type: "merge", body: { data: { value: b64(b.kubeconfig) } } },
        )
        const removed = yield* Effect.promise(() =>
          w2.request(
            "DELETE",
            `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/krtt-testenv-${a.user}`,
          ),
        )
        assert.strictEqual(removed.status, 200)
        yield* eventually(
          "rot re-engaged",
          () =>
            aware.engagements.filter((e) => e.cluster.name === name).length === 2 && aware.open().has(name),
          60_000,
        )
        assert.strictEqual(yield* whoami(yield* provider.get(ClusterName(name))), b.user)
        assert.deepStrictEqual(
          aware.engagements.filter((e) => e.cluster.name === name).map((e) => e.closed),
          [1, 0],
        )
      }).pipe(Effect.scoped),
    180_000,
  )
})
