// A workload cluster whose API server hangs: one Cluster's kubeconfig points at
// a TCP server that accepts connections and never answers (not even the TLS handshake). The other
// Clusters connect and are probed as usual: their time to connected and to RemoteConnectionProbe
// True stays within a bound of a reference run without the hanging one, measured first in the
// same operator. The hanging one fails its connect when the reachability check (`GET /`) times
// out: the health probe's timeout, 5 s ("ClusterCache Reconciler", row 1: the connection is made
// and checked with the probe's timeout, as upstream's createConnection; core/clustercache/config.ts),
// is logged, keeps RemoteConnectionProbe False ("Remote connection not established yet"), and
// the operator closes the sockets it opened rather than leaving them hanging.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ClusterCacheDefaults } from "../../core/clustercache/config.ts"
import type { Cluster } from "../../testenv/index.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import {
  createNamespace,
  endpointOf,
  type OperatorProcess,
  paths,
  sampleValue,
  startOperator,
  tokenKubeconfig,
  waitFor,
} from "../fixtures/index.ts"
import {
  conditionOf,
  type HangingServer,
  type Management,
  messageOf,
  spread,
  startHangingServer,
  startManagement,
  steadyCluster,
  steadyGet,
} from "./support.ts"

const workload = sharedControlPlane().clusters[2] as Cluster
/** How much slower than the reference run the others may connect (scheduling noise on 2 cores). */
const SLACK_MS = 5_000

let m: Management
let op: OperatorProcess
let hanging: HangingServer

beforeAll(async () => {
  m = await startManagement("hang")
  op = await startOperator({ kubeconfigPath: m.identity.kubeconfigPath, dir: m.dir })
  hanging = await startHangingServer()
}, 300_000)

afterAll(async () => {
  await op?.kill()
  await hanging?.close()
  await m?.stop()
})

const context = () => op.tail(30)

describe("a workload cluster that hangs on connect", () => {
  it("does not slow the others down, and gets its failure and condition in the documented time", async () => {
    const mgmt = m.mgmt
    const ns = await createNamespace(mgmt, `chaos-hang-${Date.now().toString(36)}`)
    const endpoint = endpointOf(workload.server)

    /** Creates Clusters at once; returns, per Cluster, ms to connection up and to RemoteConnectionProbe True. */
    const connect = async (names: ReadonlyArray<string>) => {
      const from = Date.now()
      await Promise.all(names.map((n) => steadyCluster(mgmt, ns, n, workload.admin.kubeconfig, endpoint)))
      return Promise.all(
        names.map(async (name) => {
          const labels = { cluster_name: name, cluster_namespace: ns }
          await waitFor(
            `${name} connected`,
            async () =>
              sampleValue(await op.metrics(), "capi_cluster_cache_connection_up", labels) === 1
                ? true
                : undefined,
            { intervalMs: 100, context },
          )
          const connectedMs = Date.now() - from
          await waitFor(
            `${name} RemoteConnectionProbe True`,
            async () =>
              conditionOf(await steadyGet(mgmt, paths.cluster(ns, name)), "RemoteConnectionProbe")?.status ===
              "True"
                ? true
                : undefined,
            { intervalMs: 200, context },
          )
          return { connectedMs, probedMs: Date.now() - from }
        }),
      )
    }

    // The reference: three Clusters, nothing hanging.
    const reference = await connect(["ref-0", "ref-1", "ref-2"])

    // Now with a hanging one created at the same moment as three others.
    const hangingKubeconfig = tokenKubeconfig(workload, "admin", workload.admin.token, hanging.url)
    const hangFrom = Date.now()
    const [withHanging] = await Promise.all([
      connect(["with-0", "with-1", "with-2"]),
      steadyCluster(mgmt, ns, "hang", hangingKubeconfig, endpointOf(hanging.url)),
    ])
    const ref = {
      connected: spread(reference.map((r) => r.connectedMs)),
      probed: spread(reference.map((r) => r.probedMs)),
    }
    const mixed = {
      connected: spread(withHanging.map((r) => r.connectedMs)),
      probed: spread(withHanging.map((r) => r.probedMs)),
    }
    expect(mixed.connected.max).toBeLessThanOrEqual(ref.connected.max + SLACK_MS)
    expect(mixed.probed.max).toBeLessThanOrEqual(ref.probed.max + SLACK_MS)

    // The hanging one: its connect fails at the probe's timeout, and the log says so.
    const timeoutMs = ClusterCacheDefaults.healthProbe.timeout
    const failure = await waitFor(
      "the hanging Cluster's connect failure in the log",
      () =>
        op
          .logs()
          .find(
            (l) =>
              messageOf(l) === "connection to the workload cluster failed" &&
              (l as Record<string, string>).cluster === `${ns}/hang`,
          ),
      { timeoutMs: timeoutMs + 30_000, context },
    )
    const failedAfterMs = Number(failure.ts) - hangFrom
    expect(hanging.accepted()).toBeGreaterThan(0)
    expect(failedAfterMs).toBeGreaterThanOrEqual(timeoutMs)
    expect(failedAfterMs).toBeLessThanOrEqual(timeoutMs + SLACK_MS + 5_000)
    const c = await steadyGet(mgmt, paths.cluster(ns, "hang"))
    expect(conditionOf(c, "RemoteConnectionProbe")).toMatchObject({ status: "False", reason: "ProbeFailed" })
    expect(
      sampleValue(await op.metrics(), "capi_cluster_cache_connection_up", {
        cluster_name: "hang",
        cluster_namespace: ns,
      }) ?? 0,
    ).toBe(0)
    // The operator gave up on the sockets it opened: none left open on the hanging server.
    await waitFor(
      "the hanging server's sockets closed by the operator",
      () => (hanging.open() === 0 ? true : undefined),
      {
        timeoutMs: 10_000,
        context: () => `${hanging.open()} sockets still open`,
      },
    )
    // The others are still fine.
    for (const name of ["ref-0", "with-0"])
      expect(
        conditionOf(await steadyGet(mgmt, paths.cluster(ns, name)), "RemoteConnectionProbe")?.status,
      ).toBe("True")
    expect(op.exit()).toBeUndefined()

    console.log(
      JSON.stringify({
        figures: "hanging-cluster",
        reference: ref,
        withHanging: mixed,
        hangingFailedAfterMs: failedAfterMs,
        hangingError: (failure as Record<string, string>).err,
        socketsAccepted: hanging.accepted(),
      }),
    )
  }, 240_000)
})
