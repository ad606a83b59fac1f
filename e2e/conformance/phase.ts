/**
 * One side of the differential suite: every scenario's objects made in a namespace of its own,
 * then one controller (upstream's manager or `krtt run`) started on them, each scenario settled
 * (and its second step run and settled), snapshots read, and the controller stopped. The
 * scenarios run concurrently.
 *
 * @module
 */
import type { Cluster } from "../../testenv/index.ts"
import { createNamespace, sleep } from "../fixtures/index.ts"
import type { World } from "./objects.ts"
import type { Scenario } from "./scenario.ts"
import { settle } from "./settle.ts"
import { type Snapshot, snapshot } from "./snapshot.ts"

/** A running controller, as the phase stops it. */
export interface Controller {
  readonly stop: () => Promise<void>
}

export interface PhaseOptions {
  readonly mgmt: Cluster
  readonly workload: Cluster
  /** The namespaces' prefix: a scenario's namespace is `<prefix>-<scenario>`. */
  readonly prefix: string
  readonly clusterLabels: Readonly<Record<string, string>>
  readonly scenarios: ReadonlyArray<Scenario>
  readonly start: () => Promise<Controller>
  /** How long a scenario may take to reach each of its states. */
  readonly settleTimeoutMs: number
  /** Runs once every scenario has settled, before the controller stops. */
  readonly whileSettled?: () => Promise<void>
}

export interface ScenarioRun {
  readonly ns: string
  /** How long after the controller started the scenario settled (or gave up). */
  readonly settledMs: number
  readonly snapshot: Snapshot
}

/** Whether the scenario settled, and when (ms since the controller started). */
const settleScenario = async (o: PhaseOptions, s: Scenario, w: World, started: number) => {
  const first = await settle(o.mgmt, w.ns, s.settled, o.settleTimeoutMs)
  const settled = !first || s.next === undefined ? first : await settleNext(o, s, w)
  return { settled, ms: Date.now() - started }
}

const settleNext = async (o: PhaseOptions, s: Scenario, w: World): Promise<boolean> => {
  await s.next?.run(w)
  return settle(o.mgmt, w.ns, s.next?.settled ?? s.settled, o.settleTimeoutMs)
}

/**
 * How old the scenarios' objects are when the controller starts: the Machines*UpToDate
 * conditions leave out a Machine without an UpToDate condition for its first 10 s, and neither
 * controller reconciles again when that time has passed, so both must first see them older.
 */
const OBJECT_AGE_MS = 11_000

/** Runs every scenario under one controller; the snapshots by scenario name. */
export const runPhase = async (o: PhaseOptions): Promise<ReadonlyMap<string, ScenarioRun>> => {
  const created = Date.now()
  const worlds = await Promise.all(
    o.scenarios.map(async (s) => {
      const ns = await createNamespace(o.mgmt, `${o.prefix}-${s.name}`)
      const w: World = { mgmt: o.mgmt, workload: o.workload, ns, clusterLabels: o.clusterLabels }
      await s.setup(w)
      return w
    }),
  )
  await sleep(Math.max(0, created + OBJECT_AGE_MS - Date.now()))
  const controller = await o.start()
  const started = Date.now()
  try {
    const settled = await Promise.all(
      o.scenarios.map((s, i) => settleScenario(o, s, worlds[i] as World, started)),
    )
    await o.whileSettled?.()
    const runs = new Map<string, ScenarioRun>()
    for (const [i, s] of o.scenarios.entries()) {
      const ns = (worlds[i] as World).ns
      const done = settled[i] ?? { settled: false, ms: 0 }
      runs.set(s.name, { ns, settledMs: done.ms, snapshot: await snapshot(o.mgmt, ns, done.settled) })
    }
    return runs
  } finally {
    await controller.stop()
  }
}
