// Leader failover with two replicas: two `krtt run --leader-elect` processes
// on one management cluster, upstream's Lease figures (lease 15 s, renew deadline 10 s, retry
// 2 s: the manager defaults, shell/manager/options.ts). The leader is killed (SIGKILL: no release,
// its Lease just stops being renewed); the second takes the Lease and acts. An observer writes
// down who acts: the Lease read every 250 ms (holder, acquire and renew times) and each replica's own
// JSON log of its reconciles with their timestamps. Never both: the standby reconciles nothing
// while the leader lives, and every reconcile of each replica falls inside its own tenure.
//
// The bound: the standby notices a Lease record change at its next poll (one retry period after
// the last renewal at worst), the Lease expires a lease duration after that observation, and the
// standby's next attempt follows within one more retry period: acquisition at most
// 15 s + 2 × 2 s after the leader's last renewal (which is before the kill), plus the latency of
// the standby's own requests (1.5 s allowed).
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Cluster } from "../../testenv/index.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import {
  createNamespace,
  endpointOf,
  type OperatorProcess,
  paths,
  sampleValue,
  sleep,
  startOperator,
  waitFor,
} from "../fixtures/index.ts"
import { type Management, messageOf, startManagement, steadyCluster, steadyGet } from "./support.ts"

/** Upstream's defaults (clusterctl's manager): what the replicas run with here. */
const LEASE = { durationMs: 15_000, renewDeadlineMs: 10_000, retryMs: 2_000 } as const
const LEASE_NAME = "controller-leader-election-capi"
/** The standby's two Lease reads in the bound take time too, on a loaded machine. */
const LATENCY_ALLOWANCE_MS = 1_500
const workload = sharedControlPlane().clusters[1] as Cluster

let m: Management
const replicas: Array<OperatorProcess> = []

beforeAll(async () => {
  m = await startManagement("failover")
}, 300_000)

afterAll(async () => {
  for (const r of replicas) await r.kill()
  await m?.stop()
})

const replica = async () => {
  const r = await startOperator({
    kubeconfigPath: m.identity.kubeconfigPath,
    dir: m.dir,
    args: [
      `--leader-elect-lease-duration=${LEASE.durationMs / 1000}s`,
      `--leader-elect-renew-deadline=${LEASE.renewDeadlineMs / 1000}s`,
      `--leader-elect-retry-period=${LEASE.retryMs / 1000}s`,
      "-v=4",
    ],
  })
  replicas.push(r)
  return r
}

const leading = async (r: OperatorProcess) =>
  // A candidate that never led has no sample yet: not leading.
  sampleValue(await r.metrics(), "leader_election_master_status", { name: LEASE_NAME }) ?? 0

/** When a replica acted: the timestamps of its reconciles of Clusters (its own log). */
const actsOf = (r: OperatorProcess): ReadonlyArray<number> =>
  r
    .logs()
    .filter((l) => messageOf(l) === "cluster reconciled" || messageOf(l) === "clustercache reconciled")
    .map((l) => Number(l.ts))

const identityOf = (r: OperatorProcess) =>
  r
    .logs()
    .filter((l) => messageOf(l) === "acquired the leader election lease")
    .map((l) => (l as Record<string, string>).identity)

describe("two replicas with --leader-elect", () => {
  it("the leader killed, the second takes the Lease within lease duration plus retry and acts; never both", async () => {
    const mgmt = m.mgmt
    const ns = await createNamespace(mgmt, `chaos-failover-${Date.now().toString(36)}`)
    const kubeconfig = workload.admin.kubeconfig
    const endpoint = endpointOf(workload.server)
    const context = () => replicas.map((r) => r.tail(15)).join("\n")

    const first = await replica()
    await waitFor(
      "the first replica to lead",
      async () => ((await leading(first)) === 1 ? true : undefined),
      {
        context,
      },
    )
    const second = await replica()

    // The observer: the Lease, read every 250 ms from here on.
    const tenures: Array<{ readonly holder: string; readonly renewedAt: number }> = []
    const lease = await steadyGet(mgmt, paths.lease("krtt-system", LEASE_NAME))
    let observing = true
    const observed = (async () => {
      while (observing) {
        const l = await steadyGet(mgmt, paths.lease("krtt-system", LEASE_NAME))
        tenures.push({
          holder: l?.spec?.holderIdentity ?? "",
          renewedAt: Date.parse(String(l?.spec?.renewTime)),
        })
        await sleep(250)
      }
    })()

    // The leader acts on three Clusters; the standby reconciles nothing.
    for (const name of ["a", "b", "c"]) await steadyCluster(mgmt, ns, name, kubeconfig, endpoint)
    for (const name of ["a", "b", "c"])
      await waitFor(
        `Cluster ${name} Provisioned by the leader`,
        async () =>
          (await steadyGet(mgmt, paths.cluster(ns, name)))?.status?.phase === "Provisioned"
            ? true
            : undefined,
        { context },
      )
    expect(await leading(second)).toBe(0)
    expect(actsOf(first).length).toBeGreaterThan(0)
    expect(actsOf(second), "the standby acted while the leader lived").toEqual([])
    // The first replica created the Lease (no "acquired" line for a create): its holder is it.
    const firstIdentity = String(lease?.spec?.holderIdentity)
    expect(firstIdentity).not.toBe("")

    // The leader dies without a word.
    await first.kill()
    const killedAt = Date.now()
    const lastOfFirst = Math.max(...actsOf(first))
    await steadyCluster(mgmt, ns, "after", kubeconfig, endpoint)
    await waitFor(
      "the second replica to lead",
      async () => ((await leading(second)) === 1 ? true : undefined),
      { timeoutMs: 60_000, context },
    )
    await waitFor(
      "the Cluster created after the kill Provisioned by the second replica",
      async () =>
        (await steadyGet(mgmt, paths.cluster(ns, "after")))?.status?.phase === "Provisioned"
          ? true
          : undefined,
      { timeoutMs: 60_000, context },
    )
    const [secondIdentity] = identityOf(second)
    expect(secondIdentity, second.tail()).toBeDefined()
    expect(secondIdentity).not.toBe(firstIdentity)
    expect(identityOf(first)).toEqual([])

    // The Lease says when: the second replica's acquireTime, against the first's last renewal.
    const now = await steadyGet(mgmt, paths.lease("krtt-system", LEASE_NAME))
    expect(now?.spec?.holderIdentity).toBe(secondIdentity)
    const acquiredAt = Date.parse(String(now?.spec?.acquireTime))
    const renewedByFirst = tenures.filter((t) => t.holder === firstIdentity).map((t) => t.renewedAt)
    const lastRenewal = Math.max(Date.parse(String(lease?.spec?.renewTime)), ...renewedByFirst)
    expect(lastRenewal).toBeLessThanOrEqual(killedAt)
    expect(acquiredAt - lastRenewal).toBeLessThanOrEqual(
      LEASE.durationMs + 2 * LEASE.retryMs + LATENCY_ALLOWANCE_MS,
    )
    // Not too early either: no takeover before the Lease expired.
    expect(acquiredAt - lastRenewal).toBeGreaterThanOrEqual(LEASE.durationMs)

    // Never both: the second acted only after the first was dead and it held the Lease.
    const secondActs = actsOf(second)
    expect(secondActs.length).toBeGreaterThan(0)
    const firstOfSecond = Math.min(...secondActs)
    expect(firstOfSecond).toBeGreaterThanOrEqual(acquiredAt)
    expect(firstOfSecond).toBeGreaterThan(lastOfFirst)
    expect(lastOfFirst).toBeLessThanOrEqual(killedAt)
    // The holder changed once, from the first to the second, with no one else in between.
    const holders = tenures.map((t) => t.holder).filter((h, i, all) => h !== all[i - 1])
    expect(holders).toEqual([firstIdentity, secondIdentity])

    console.log(
      JSON.stringify({
        figures: "leader-failover",
        lease: LEASE,
        killToAcquireMs: acquiredAt - killedAt,
        lastRenewalToAcquireMs: acquiredAt - lastRenewal,
        acquireToFirstActMs: firstOfSecond - acquiredAt,
        killToFirstActMs: firstOfSecond - killedAt,
        actsOfFirst: actsOf(first).length,
        actsOfSecond: secondActs.length,
      }),
    )
    const ended = await second.terminate(30_000)
    expect(ended.code, second.tail()).toBe(0)
    observing = false
    await observed
  }, 240_000)
})
