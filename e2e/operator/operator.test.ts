// The operator as users run it: `node bin/krtt.js run --kubeconfig <restricted> --leader-elect
// ...` in a process of its own, on a management cluster of its own (started here, so that no other
// test's Clusters or operator meet this one), with the shared control plane's clusters as
// workload clusters. One operator, several Clusters, the scenarios concurrently; SIGTERM last.
//
// The ClusterCache's documented numbers are at their defaults: probe every 10 s, disconnect after
// 5 consecutive failures (so ~50 s for an unreachable cluster), at once on a 401, reconnect no
// sooner than 30 s after a failed connect.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Cluster, type ControlPlane, startControlPlane } from "../../testenv/index.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import {
  type AccessCheck,
  CLUSTER_FINALIZER,
  CLUSTER_NAME_LABEL,
  type ClusterSetup,
  canI,
  create,
  createCluster,
  createNamespace,
  endpointOf,
  expectStatus,
  getObject,
  type Identity,
  initializeControlPlane,
  installManagement,
  type KubeObject,
  MANAGER_NEEDS,
  managerIdentity,
  mergePatch,
  type OperatorProcess,
  paths,
  provisionInfrastructure,
  rotateKubeconfig,
  type Sample,
  sampleValue,
  startOperator,
  startTcpProxy,
  sumOf,
  type TcpProxy,
  tokenKubeconfig,
  waitFor,
  workloadAdmin,
} from "../fixtures/index.ts"

const shared = sharedControlPlane()
const workload = (i: number): Cluster => {
  const c = shared.clusters[i]
  if (c === undefined) throw new Error(`the shared control plane has no cluster ${i}`)
  return c
}

let dir: string
let controlPlane: ControlPlane
let mgmt: Cluster
let op: OperatorProcess
let identity: Identity
const proxies: Array<TcpProxy> = []

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "krtt-e2e-operator-"))
  controlPlane = await startControlPlane({ clusters: 1 })
  mgmt = controlPlane.clusters[0] as Cluster
  await installManagement(mgmt)
  identity = await managerIdentity(mgmt, dir)
  op = await startOperator({ kubeconfigPath: identity.kubeconfigPath, dir })
}, 300_000)

afterAll(async () => {
  await op?.kill()
  for (const p of proxies) await p.down()
  await controlPlane?.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

/** The tail of the operator's log, for failure messages. */
const context = () => op.tail(30)

/** The ClusterCache's metrics of one Cluster. */
const cacheMetrics = (samples: ReadonlyArray<Sample>, c: { namespace: string; name: string }) => {
  const labels = { cluster_name: c.name, cluster_namespace: c.namespace }
  return {
    up: sampleValue(samples, "capi_cluster_cache_connection_up", labels),
    healthcheck: sampleValue(samples, "capi_cluster_cache_healthcheck", labels),
    success: sumOf(samples, "capi_cluster_cache_healthchecks_total", { ...labels, status: "success" }),
    error: sumOf(samples, "capi_cluster_cache_healthchecks_total", { ...labels, status: "error" }),
  }
}
type CacheMetrics = ReturnType<typeof cacheMetrics>

/** Polls the metrics of `c` until `done` holds; returns what was seen at each poll. */
const watchMetrics = async (
  what: string,
  c: { namespace: string; name: string },
  done: (m: CacheMetrics) => boolean,
  timeoutMs: number,
): Promise<ReadonlyArray<CacheMetrics>> => {
  const seen: Array<CacheMetrics> = []
  await waitFor(
    what,
    async () => {
      const m = cacheMetrics(await op.metrics(), c)
      seen.push(m)
      return done(m) ? true : undefined
    },
    { timeoutMs, context: () => `metrics seen last: ${JSON.stringify(seen.at(-1))}\n${context()}` },
  )
  return seen
}

let namespaces = 0
const namespace = () => createNamespace(mgmt, `e2e-op-${++namespaces}-${Date.now().toString(36)}`)

const condition = (cluster: KubeObject | undefined, type: string) =>
  (
    cluster?.status?.conditions as ReadonlyArray<{ type: string; status: string; reason: string }> | undefined
  )?.find((c) => c.type === type)
const v1beta1Condition = (cluster: KubeObject | undefined, type: string) =>
  (
    cluster?.status?.deprecated?.v1beta1?.conditions as
      | ReadonlyArray<{ type: string; status: string; reason?: string }>
      | undefined
  )?.find((c) => c.type === type)

describe("krtt run, on a management cluster of its own", () => {
  describe.concurrent("while it runs", () => {
    it("answers its probes, leads through a Lease, and connects to a provisioned Cluster's workload cluster", async ({
      expect,
    }) => {
      await waitFor(
        "/healthz and /readyz to answer ok",
        async () => {
          const [healthz, readyz] = await Promise.all([op.probe("/healthz"), op.probe("/readyz")])
          return healthz.status === 200 && readyz.status === 200 ? { healthz, readyz } : undefined
        },
        { context },
      ).then(({ healthz, readyz }) => {
        expect(healthz.text).toBe("ok")
        expect(readyz.text).toBe("ok")
      })

      const w = workload(0)
      const ns = await namespace()
      const c = await createCluster(mgmt, {
        namespace: ns,
        name: "connected",
        kubeconfig: w.admin.kubeconfig,
        endpoint: endpointOf(w.server),
        markInfrastructureProvisioned: true,
      })
      // The first probe follows the connection by the probe interval (10 s).
      const seen = await watchMetrics(
        "connection_up 1 and a successful health check",
        c,
        (m) => m.up === 1 && m.success >= 1,
        60_000,
      )
      const last = seen.at(-1) as CacheMetrics
      expect(last.healthcheck).toBe(1)
      expect(last.error).toBe(0)

      const samples = await op.metrics()
      expect(
        sampleValue(samples, "leader_election_master_status", { name: "controller-leader-election-capi" }),
      ).toBe(1)
      const lease = await getObject(mgmt, paths.lease("krtt-system", "controller-leader-election-capi"))
      expect(lease?.spec?.holderIdentity).toMatch(/.+_.+/)
      expect(lease?.spec?.leaseDurationSeconds).toBe(15)
    }, 120_000)

    it("runs with the project's RBAC: the krtt-manager ServiceAccount may do its work and no more", async ({
      expect,
    }) => {
      const may = (check: AccessCheck) => canI(mgmt, identity.user, check)
      expect(identity.user).toBe("system:serviceaccount:krtt-system:krtt-manager")
      for (const check of MANAGER_NEEDS) expect(await may(check), JSON.stringify(check)).toBe(true)
      const refused: ReadonlyArray<AccessCheck> = [
        { verb: "create", group: "rbac.authorization.k8s.io", resource: "clusterrolebindings" },
        { verb: "delete", group: "", resource: "namespaces" },
        { verb: "update", group: "", resource: "secrets" },
        { verb: "delete", group: "cluster.x-k8s.io", resource: "clusters" },
        { verb: "update", group: "coordination.k8s.io", resource: "leases", namespace: "default" },
        { verb: "update", group: "apiextensions.k8s.io", resource: "customresourcedefinitions" },
      ]
      for (const check of refused) expect(await may(check), JSON.stringify(check)).toBe(false)
      // The process uses that identity: its requests are made as the ServiceAccount.
      const whoami = await expectStatus(
        mgmt.request("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
          body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
          as: { token: identity.token },
        }),
        [201],
        "SelfSubjectReview",
      )
      expect((whoami.body as { status: { userInfo: { username: string } } }).status.userInfo.username).toBe(
        identity.user,
      )
      expect(op.command).toContain(identity.kubeconfigPath)
    })

    it("a 401 on the probe (credentials revoked, Secret rotated to a wrong token) disconnects at once; fixing the Secret reconnects", async ({
      expect,
    }) => {
      const w = workload(1)
      const ns = await namespace()
      const sa = await workloadAdmin(w, ns, "first")
      const c = await createCluster(mgmt, {
        namespace: ns,
        name: "rotated",
        kubeconfig: tokenKubeconfig(w, `system:serviceaccount:${ns}:first`, sa.token),
        endpoint: endpointOf(w.server),
        markInfrastructureProvisioned: true,
      })
      await watchMetrics("the first connection", c, (m) => m.up === 1 && m.success >= 1, 60_000)
      const before = cacheMetrics(await op.metrics(), c)

      // The token is revoked: the next probe gets a 401.
      await sa.revoke()
      const down = await watchMetrics("connection_up 0 after a 401", c, (m) => m.up === 0, 45_000)
      const atDown = down.at(-1) as CacheMetrics
      // At once: one failed probe, not the five of an unreachable cluster.
      expect(atDown.error - before.error).toBeGreaterThanOrEqual(1)
      expect(atDown.error - before.error).toBeLessThan(5)
      // A rotation gone wrong: the Secret gets a wrong token; the reconnect reads it and is refused.
      await rotateKubeconfig(mgmt, ns, c.name, tokenKubeconfig(w, "wrong", "not-a-valid-token"))
      await waitFor(
        "a failed reconnect with the wrong token in the log",
        () =>
          op
            .logs()
            .some(
              (l) =>
                l.msg === "connection to the workload cluster failed" &&
                (l as Record<string, string>).cluster === `${ns}/${c.name}` &&
                /Unauthorized/.test((l as Record<string, string>).err ?? ""),
            )
            ? true
            : undefined,
        { timeoutMs: 30_000, context },
      )

      // Fixed: a valid token in the Secret. Reconnects within the retry interval (30 s) and a probe.
      const second = await workloadAdmin(w, ns, "second")
      await rotateKubeconfig(
        mgmt,
        ns,
        c.name,
        tokenKubeconfig(w, `system:serviceaccount:${ns}:second`, second.token),
      )
      await watchMetrics("connection_up 1 again", c, (m) => m.up === 1, 75_000)
      await second.revoke()
    }, 200_000)

    it("a rotated kubeconfig Secret is used at once, while the old credentials still work", async ({
      expect,
    }) => {
      const w = workload(1)
      const ns = await namespace()
      const first = await workloadAdmin(w, ns, "first")
      const c = await createCluster(mgmt, {
        namespace: ns,
        name: "rotation",
        kubeconfig: tokenKubeconfig(w, `system:serviceaccount:${ns}:first`, first.token),
        endpoint: endpointOf(w.server),
        markInfrastructureProvisioned: true,
      })
      await watchMetrics("the first connection", c, (m) => m.up === 1 && m.success >= 1, 60_000)
      const second = await workloadAdmin(w, ns, "second")
      await rotateKubeconfig(
        mgmt,
        ns,
        c.name,
        tokenKubeconfig(w, `system:serviceaccount:${ns}:second`, second.token),
      )
      await waitFor(
        "a reconnect because the kubeconfig Secret changed",
        () =>
          op
            .logs()
            .some(
              (l) =>
                String(l.msg).startsWith("the kubeconfig Secret changed") &&
                (l as Record<string, string>).cluster === `${ns}/${c.name}`,
            )
            ? true
            : undefined,
        { timeoutMs: 30_000, context },
      )
      // The old credentials can go now: the connection already uses the new ones.
      await first.revoke()
      const after = cacheMetrics(await op.metrics(), c)
      await watchMetrics(
        "probes succeed with the new token",
        c,
        (m) => m.up === 1 && m.success >= after.success + 2,
        45_000,
      )
      const last = cacheMetrics(await op.metrics(), c)
      expect(last.error).toBe(after.error)
      await second.revoke()
    }, 150_000)

    it("an unreachable workload API server gives consecutive failures, a disconnect after the fifth, and a reconnect once it is back", async ({
      expect,
    }) => {
      const w = workload(2)
      const proxy = await startTcpProxy(w.server)
      proxies.push(proxy)
      const ns = await namespace()
      const c = await createCluster(mgmt, {
        namespace: ns,
        name: "unreachable",
        kubeconfig: tokenKubeconfig(w, "admin", w.admin.token, proxy.url),
        endpoint: endpointOf(proxy.url),
        markInfrastructureProvisioned: true,
      })
      await watchMetrics("the connection through the proxy", c, (m) => m.up === 1 && m.success >= 1, 60_000)
      expect(proxy.accepted()).toBeGreaterThan(0)
      const before = cacheMetrics(await op.metrics(), c)

      await proxy.down()
      // Five probes, 10 s apart, each failing: about 40-50 s.
      const seen = await watchMetrics(
        "connection_up 0 after consecutive failures",
        c,
        (m) => m.up === 0,
        110_000,
      )
      const errors = (m: CacheMetrics) => m.error - before.error
      const whileUp = seen.filter((m) => m.up === 1)
      const atDown = seen.at(-1) as CacheMetrics
      expect(errors(atDown)).toBeGreaterThanOrEqual(5)
      // Failures were seen while the connection was still up, up to the fourth.
      expect(Math.max(...whileUp.map(errors))).toBeGreaterThanOrEqual(4)
      expect(whileUp.filter((m) => errors(m) >= 1).every((m) => m.healthcheck === 0)).toBe(true)
      expect(atDown.success).toBe(before.success)

      await proxy.up()
      await watchMetrics("connection_up 1 once the API server is back", c, (m) => m.up === 1, 75_000)
    }, 260_000)

    it("Cluster controller: finalizer, owner references and labels, Provisioned once the providers are ready, consistent conditions", async ({
      expect,
    }) => {
      const w = workload(0)
      const ns = await namespace()
      const endpoint = endpointOf(w.server)
      const c = await createCluster(mgmt, {
        namespace: ns,
        name: "provisioned",
        kubeconfig: w.admin.kubeconfig,
        endpoint,
        provisioned: false,
      })
      const clusterPath = paths.cluster(ns, c.name)
      const owned = (o: KubeObject | undefined, uid: string) =>
        o?.metadata.labels?.[CLUSTER_NAME_LABEL] === c.name &&
        (o.metadata.ownerReferences ?? []).some(
          (r) =>
            r.kind === "Cluster" &&
            r.apiVersion === "cluster.x-k8s.io/v1beta2" &&
            r.name === c.name &&
            r.uid === uid,
        )

      const pending = await waitFor(
        "the finalizer, owner references and labels, and phase Provisioning",
        async () => {
          const cluster = await getObject(mgmt, clusterPath)
          const uid = cluster?.metadata.uid ?? ""
          const [infra, cp] = await Promise.all([
            getObject(mgmt, paths.infra(ns, c.infra)),
            getObject(mgmt, paths.controlPlane(ns, c.controlPlane)),
          ])
          return cluster?.metadata.finalizers?.includes(CLUSTER_FINALIZER) &&
            owned(infra, uid) &&
            owned(cp, uid) &&
            cluster.status?.phase === "Provisioning"
            ? cluster
            : undefined
        },
        { context },
      )
      // Upstream only ever sets the flags to true: neither is there yet.
      expect(pending.status.initialization).toBeUndefined()
      expect(condition(pending, "InfrastructureReady")).toMatchObject({ status: "False", reason: "NotReady" })
      expect(condition(pending, "ControlPlaneInitialized")?.status).toBe("False")
      expect(condition(pending, "Deleting")?.status).toBe("False")

      // The infrastructure provider is done: the Cluster takes the endpoint and failure domains.
      await provisionInfrastructure(mgmt, ns, c.infra)
      const provisioning = await waitFor(
        "infrastructureProvisioned",
        async () => {
          const cluster = await getObject(mgmt, clusterPath)
          return cluster?.status?.initialization?.infrastructureProvisioned === true ? cluster : undefined
        },
        { context },
      )
      // As upstream's setPhase: a provisioned infrastructure and a valid endpoint make it Provisioned.
      expect(provisioning.status.phase).toBe("Provisioned")
      expect(condition(provisioning, "InfrastructureReady")).toMatchObject({ status: "True" })
      expect(provisioning.status.failureDomains).toEqual([
        { name: "fd-a", controlPlane: true, attributes: { zone: "a" } },
        { name: "fd-b", controlPlane: false },
      ])

      // The control-plane provider is done: initialized.
      await initializeControlPlane(mgmt, ns, c.controlPlane)
      const provisioned = await waitFor(
        "controlPlaneInitialized",
        async () => {
          const cluster = await getObject(mgmt, clusterPath)
          return cluster?.status?.initialization?.controlPlaneInitialized === true ? cluster : undefined
        },
        { context },
      )
      expect(provisioned.spec.controlPlaneEndpoint).toEqual(endpoint)
      expect(provisioned.status.initialization).toEqual({
        infrastructureProvisioned: true,
        controlPlaneInitialized: true,
      })
      expect(condition(provisioned, "InfrastructureReady")?.status).toBe("True")
      expect(condition(provisioned, "ControlPlaneInitialized")?.status).toBe("True")
      expect(condition(provisioned, "Deleting")?.status).toBe("False")
      expect(condition(provisioned, "Paused")?.status).toBe("False")
      expect(v1beta1Condition(provisioned, "InfrastructureReady")?.status).toBe("True")
      expect(v1beta1Condition(provisioned, "ControlPlaneInitialized")?.status).toBe("True")
      expect(provisioned.status.controlPlane).toMatchObject({
        desiredReplicas: 1,
        replicas: 1,
        readyReplicas: 1,
      })
      expect(provisioned.status.observedGeneration).toBe(provisioned.metadata.generation)
      // The ClusterCache reached the workload cluster; the Cluster controller says so.
      await waitFor(
        "RemoteConnectionProbe True",
        async () =>
          condition(await getObject(mgmt, clusterPath), "RemoteConnectionProbe")?.status === "True"
            ? true
            : undefined,
        { context },
      )
    }, 150_000)

    it("Cluster controller: a provider of the v1beta1 contract (status.ready, failureReason, failure domains as a map) provisions the Cluster", async ({
      expect,
    }) => {
      const ns = await namespace()
      const group = "infrastructure.e2e.krtt.dev"
      const infraPath = (name = "", sub = "") =>
        `/apis/${group}/v1beta1/namespaces/${ns}/e2ev1beta1infraclusters${name && `/${name}`}${sub && `/${sub}`}`
      await create(mgmt, infraPath(), {
        apiVersion: `${group}/v1beta1`,
        kind: "E2EV1Beta1InfraCluster",
        metadata: { name: "legacy", namespace: ns },
        spec: { controlPlaneEndpoint: { host: "10.9.0.1", port: 6443 } },
      })
      await create(mgmt, paths.cluster(ns), {
        apiVersion: "cluster.x-k8s.io/v1beta2",
        kind: "Cluster",
        metadata: { name: "legacy", namespace: ns },
        spec: { infrastructureRef: { apiGroup: group, kind: "E2EV1Beta1InfraCluster", name: "legacy" } },
      })
      await mergePatch(mgmt, infraPath("legacy", "status"), {
        status: {
          ready: true,
          failureDomains: { "fd-b": { controlPlane: false }, "fd-a": { controlPlane: true } },
          failureReason: "UpdateError",
          failureMessage: "quota exceeded",
        },
      })
      const provisioned = await waitFor(
        "the v1beta1 provider's readiness on the Cluster",
        async () => {
          const c = await getObject(mgmt, paths.cluster(ns, "legacy"))
          return c?.status?.initialization?.infrastructureProvisioned === true &&
            c.status.phase === "Provisioned"
            ? c
            : undefined
        },
        { context },
      )
      expect(condition(provisioned, "InfrastructureReady")?.status).toBe("True")
      expect(provisioned.spec.controlPlaneEndpoint).toEqual({ host: "10.9.0.1", port: 6443 })
      expect(provisioned.status.failureDomains).toEqual([
        { name: "fd-a", controlPlane: true },
        { name: "fd-b", controlPlane: false },
      ])
      expect(provisioned.status.deprecated?.v1beta1).toMatchObject({
        failureReason: "UpdateError",
        failureMessage: expect.stringContaining("quota exceeded"),
      })
      const infra = await getObject(mgmt, infraPath("legacy"))
      expect(infra?.metadata.labels?.[CLUSTER_NAME_LABEL]).toBe("legacy")
    }, 120_000)

    it("Cluster controller: deletion waits for the control plane, then the infrastructure, and removes the finalizer last", async ({
      expect,
    }) => {
      const w = workload(0)
      const ns = await namespace()
      const hold = "e2e.krtt.dev/hold"
      const c: ClusterSetup = await createCluster(mgmt, {
        namespace: ns,
        name: "deleted",
        kubeconfig: w.admin.kubeconfig,
        endpoint: endpointOf(w.server),
        controlPlaneFinalizers: [hold],
        infraFinalizers: [hold],
      })
      const clusterPath = paths.cluster(ns, c.name)
      const infraPath = paths.infra(ns, c.infra)
      const cpPath = paths.controlPlane(ns, c.controlPlane)
      await waitFor(
        "phase Provisioned and the finalizer",
        async () => {
          const cluster = await getObject(mgmt, clusterPath)
          return cluster?.status?.phase === "Provisioned" &&
            cluster.metadata.finalizers?.includes(CLUSTER_FINALIZER)
            ? true
            : undefined
        },
        { context },
      )

      // Every version of the Cluster from here on, in order.
      const watch = await mgmt.watch(
        `${paths.cluster(ns)}?watch=1&fieldSelector=${encodeURIComponent(`metadata.name=${c.name}`)}`,
      )
      expect(watch.status).toBe(200)
      const versions: Array<{ type: string; reason: string | undefined; finalizer: boolean; phase: string }> =
        []
      const recorded = (async () => {
        for await (const event of watch.events) {
          const o = event.object as KubeObject
          versions.push({
            type: event.type,
            reason: condition(o, "Deleting")?.reason,
            finalizer: o.metadata.finalizers?.includes(CLUSTER_FINALIZER) ?? false,
            phase: o.status?.phase,
          })
          if (event.type === "DELETED") return
        }
      })()

      /** The control plane and the infrastructure, read in that order of risk: infra first. */
      const violations: Array<string> = []
      const check = async () => {
        const infra = await getObject(mgmt, infraPath)
        const cp = await getObject(mgmt, cpPath)
        if (infra?.metadata.deletionTimestamp !== undefined && cp !== undefined)
          violations.push("the infrastructure was being deleted while the control plane existed")
        return { infra, cp }
      }

      await expectStatus(mgmt.request("DELETE", clusterPath), [200, 202], "delete the Cluster")
      await waitFor(
        "the control plane to be deleted (it stays, held by its finalizer)",
        async () => ((await check()).cp?.metadata.deletionTimestamp !== undefined ? true : undefined),
        { context },
      )
      const deleting = await waitFor(
        "the Deleting condition WaitingForControlPlaneDeletion",
        async () => {
          const cluster = await getObject(mgmt, clusterPath)
          return condition(cluster, "Deleting")?.reason === "WaitingForControlPlaneDeletion"
            ? cluster
            : undefined
        },
        { context },
      )
      expect(deleting.status.phase).toBe("Deleting")
      expect(condition(deleting, "Deleting")?.status).toBe("True")
      expect(deleting.metadata.finalizers).toContain(CLUSTER_FINALIZER)
      // The control plane stays Deleting a while; the Cluster keeps waiting, the infrastructure stays.
      for (let i = 0; i < 10; i++) {
        const { infra } = await check()
        expect(infra?.metadata.deletionTimestamp).toBeUndefined()
        await new Promise((resolve) => setTimeout(resolve, 300))
      }

      // The control-plane provider finishes: the infrastructure goes next.
      await mergePatch(mgmt, cpPath, { metadata: { finalizers: null } })
      await waitFor(
        "the infrastructure to be deleted once the control plane is gone",
        async () => {
          const { infra, cp } = await check()
          return cp === undefined && infra?.metadata.deletionTimestamp !== undefined ? true : undefined
        },
        { context },
      )
      const waitingForInfra = await waitFor(
        "the Deleting condition WaitingForInfrastructureDeletion",
        async () => {
          const cluster = await getObject(mgmt, clusterPath)
          return condition(cluster, "Deleting")?.reason === "WaitingForInfrastructureDeletion"
            ? cluster
            : undefined
        },
        { context },
      )
      expect(waitingForInfra.metadata.finalizers).toContain(CLUSTER_FINALIZER)

      // The infrastructure provider finishes: the finalizer goes, and with it the Cluster.
      await mergePatch(mgmt, infraPath, { metadata: { finalizers: null } })
      await waitFor(
        "the Cluster to be gone",
        async () => ((await getObject(mgmt, clusterPath)) === undefined ? true : undefined),
        {
          context,
        },
      )
      await recorded
      watch.close()
      expect(violations).toEqual([])

      // The order of the Deleting reasons over every version of the Cluster.
      const reasons = versions
        .map((v) => v.reason)
        .filter((r, i, all): r is string => r !== undefined && r !== all[i - 1] && r !== "NotDeleting")
      expect(reasons.slice(0, 2)).toEqual([
        "WaitingForControlPlaneDeletion",
        "WaitingForInfrastructureDeletion",
      ])
      expect(reasons.slice(2).every((r) => r === "DeletionCompleted")).toBe(true)
      // The finalizer was there in every version but the last ones (its removal, then DELETED).
      const lastWithFinalizer = versions.findLastIndex((v) => v.finalizer)
      expect(versions.slice(0, lastWithFinalizer + 1).every((v) => v.finalizer)).toBe(true)
      expect(versions.at(-1)?.type).toBe("DELETED")
      expect(versions.length - 1 - lastWithFinalizer).toBeLessThanOrEqual(2)
    }, 150_000)
  })

  it("takes upstream Cluster API's manager arguments unchanged: HTTPS diagnostics with TokenReview and SubjectAccessReview, one notice for what krtt does not run", async () => {
    // A second manager with upstream's arguments and its default HTTPS diagnostics. It does not
    // elect (--leader-elect=false, the last value wins as with pflag) so that its controllers run
    // and publish metrics; the first manager keeps upstream's Lease.
    const second = await startOperator({
      kubeconfigPath: identity.kubeconfigPath,
      dir,
      secureDiagnostics: true,
      args: [
        "-v=2",
        "--feature-gates=MachinePool=true,ClusterTopology=false,RuntimeSDK=false,PriorityQueue=false",
        "--machine-concurrency=10",
        "--sync-period=10m",
        "--remote-connection-grace-period=50s",
        "--tls-min-version=VersionTLS12",
        "--webhook-port=9443",
        "--leader-elect=false",
      ],
    })
    try {
      expect((await second.scrape()).status, second.tail()).toBe(401)
      expect((await second.scrape(mgmt.info.noAccess.token)).status, second.tail()).toBe(403)
      const allowed = await waitFor(
        "an authorized scrape with the controllers' metrics",
        async () => {
          const r = await second.scrape(mgmt.info.admin.token)
          return r.status === 200 && r.text.includes("controller_runtime_active_workers") ? r : undefined
        },
        { context: second.tail },
      )
      expect(allowed.text).toContain("workqueue_depth")
      const messages = second.logs().map((l) => String(l.msg))
      expect(messages.filter((m) => m.includes("--machine-concurrency"))).toHaveLength(1)
      expect(messages.filter((m) => m.includes("PriorityQueue=false"))).toHaveLength(1)
      // The first manager holds upstream's Lease.
      const lease = await getObject(mgmt, paths.lease("krtt-system", "controller-leader-election-capi"))
      expect(lease?.spec?.holderIdentity ?? "").not.toBe("")
    } finally {
      await second.kill()
    }
  }, 120_000)

  it("SIGTERM ends the process cleanly: exit code 0 within 30 s, the Lease released", async () => {
    const ended = await op.terminate(30_000)
    expect(ended.killed, op.tail()).toBe(false)
    expect(ended.code, op.tail()).toBe(0)
    expect(ended.ms).toBeLessThan(30_000)
    const lease = await getObject(mgmt, paths.lease("krtt-system", "controller-leader-election-capi"))
    expect(lease?.spec?.holderIdentity ?? "").toBe("")
  }, 60_000)
})
