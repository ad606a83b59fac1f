// The soak: the operator (`krtt run`), the IPAM controller (`krtt ipam`) and a multi-cluster
// controller (`krtt propagate`) run together against a control plane of their own while, cycle
// after cycle, a workload cluster's kube-apiserver is killed and started again, the workload
// credentials are rotated (the old ServiceAccount deleted: its token refused) or `krtt
// propagate`'s RBAC there revoked and restored, and Cluster API Clusters, openmcp Clusters and
// propagated ConfigMaps come and go. After each cycle the fleet must settle (e2e/soak/settled.ts:
// no stuck object, no CIDR lost or handed out twice, every copy current) and each process's
// memory and open sockets are sampled; once warm they must stay flat. At the end each process
// stops with exit code 0 on SIGTERM.
//
// `npm test` runs five minutes of it (SOAK_FAST); `KRTT_SOAK=1` the hour (SOAK_DEFAULTS), figures
// in docs/reliability-e2e.md.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Managed, stopProcess } from "../../testenv/processes.ts"
import { spread } from "../chaos/support.ts"
import { waitFor } from "../fixtures/index.ts"
import { changeSource, churn, emptyLedger, type Ledger, populate } from "./churn.ts"
import { restartWorkload, revokeRbac, rotateCredentials } from "./damage.ts"
import { type Fleet, startFleet } from "./fleet.ts"
import { figureSpread, flatnessProblems, type Sample, sampleProcess } from "./samples.ts"
import { soakSettings } from "./settings.ts"
import { unsettled } from "./settled.ts"

const settings = soakSettings()
let fleet: Fleet
const ledger: Ledger = emptyLedger()

beforeAll(async () => {
  fleet = await startFleet()
}, 600_000)

afterAll(async () => {
  await fleet?.stop()
})

/** SIGTERM, and the exit code (SIGKILL after 60 s: then the code is null). */
const terminated = async (p: Managed): Promise<number | null> => {
  process.kill(p.pid, "SIGTERM")
  const timer = setTimeout(() => void stopProcess(p), 60_000)
  const exit = await p.exited
  clearTimeout(timer)
  return exit.code
}

/** Waits until nothing is unsettled; the milliseconds it took. */
const settle = async (what: string): Promise<number> => {
  const start = Date.now()
  await waitFor(
    what,
    async () => {
      const left = await unsettled(fleet, ledger)
      if (left.length > 0) throw new Error(`${left.length} unsettled: ${left.slice(0, 8).join("; ")}`)
      return true
    },
    { timeoutMs: settings.settleTimeoutMs, intervalMs: 500, context: () => fleet.context() },
  )
  return Date.now() - start
}

describe("the operator, IPAM and a multi-cluster controller under a soak of workload damage", () => {
  it(
    `settles after every cycle for ${settings.durationMs / 60_000} minutes, flat once warm, and stops cleanly`,
    async () => {
      await populate(fleet, ledger, settings)
      await settle("the first population")
      const processes = { operator: fleet.operator.pid, ipam: fleet.ipam.pid, propagate: fleet.propagate.pid }
      const samples: Record<keyof typeof processes, Array<Sample>> = { operator: [], ipam: [], propagate: [] }
      const settles: Array<number> = []
      const restarts: Array<number> = []
      let rotations = 0
      let revocations = 0
      const start = Date.now()
      for (let cycle = 0; Date.now() - start < settings.durationMs; cycle++) {
        const k = cycle % fleet.workloads.length
        restarts.push(await restartWorkload(fleet, k, settings.workloadDownMs))
        await churn(fleet, ledger)
        if (cycle % 4 < 2) {
          await rotateCredentials(fleet, ledger, k, cycle + 1)
          rotations++
        } else {
          await revokeRbac(fleet, k, settings.revokeMs, () => changeSource(fleet, ledger))
          revocations++
        }
        settles.push(await settle(`the fleet to settle after cycle ${cycle}`))
        for (const [name, pid] of Object.entries(processes) as Array<[keyof typeof processes, number]>) {
          const sample = sampleProcess(pid, Date.now() - start)
          if (sample === undefined)
            throw new Error(`${name} (pid ${pid}) is gone after cycle ${cycle}\n${fleet.context()}`)
          samples[name].push(sample)
        }
      }
      const problems = Object.entries(samples).flatMap(([name, s]) => flatnessProblems(name, s, settings))
      const exits = {
        operator: (await fleet.operator.terminate(60_000)).code,
        ipam: (await fleet.ipam.terminate()).code,
        propagate: await terminated(fleet.propagate),
      }
      console.log(
        JSON.stringify({
          figures: "soak",
          minutes: Math.round((Date.now() - start) / 6_000) / 10,
          cycles: settles.length,
          restarts: restarts.length,
          rotations,
          revocations,
          created: ledger.created,
          deleted: ledger.deleted,
          settleMs: spread(settles),
          apiserverStartMs: spread(restarts),
          rssMiB: Object.fromEntries(Object.entries(samples).map(([n, s]) => [n, figureSpread(s, "rssMiB")])),
          sockets: Object.fromEntries(
            Object.entries(samples).map(([n, s]) => [n, figureSpread(s, "sockets")]),
          ),
          exits,
        }),
      )
      expect(problems).toEqual([])
      expect(exits).toEqual({ operator: 0, ipam: 0, propagate: 0 })
    },
    settings.durationMs + 1_200_000,
  )
})
