/**
 * The resource and liveness oracles' bookkeeping, per operator process (an incarnation of a run):
 *
 * - `FiberCounter`: the process's live fibers (every fiber forked under it, through effect's
 *   `Metric.FiberRuntimeMetrics` hook); once its scope has closed, none may be left (a timer, an
 *   informer, a probe loop or a reconcile still running belongs to a scope that closed);
 * - `WorkLedger`: the process's work (`WorkObserver`): every request a queue accepted must be
 *   followed by a reconcile that started after it, unless one is running (no lost wake-up), and
 *   no request is reconciled by two workers at once, and a request's backoff starts over after a
 *   reconcile that did not ask to be retried (the first retry after it waits as long as any
 *   request's first retry);
 * - `untruthfulMetrics`: the process's reconcile and retry counters must say what the ledger saw
 *   (each booked reconcile counted once, under its result; each rate-limited retry once);
 * - `clientName`: the name the process's clients carry, under which the in-memory servers count
 *   their open watches (`FakeApiServer.openWatches`);
 * - `leakedWatches`: the watches a server holds open for a process that ended, or (for a workload
 *   server) for a cluster the live process has no reason to watch (not engaged, its accessor gone).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import type { FakeApiServer } from "../apiserver/server.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import type { BookedOutcome, WorkObserverShape } from "../workqueue/observer.ts"
import { type Request, requestKey } from "../workqueue/request.ts"
import { ChaosDefaults } from "./perturbations.ts"

/** The name of process `incarnation`'s clients. */
export const clientName = (incarnation: number) => `operator#${incarnation}`

/** Counts the live fibers forked under the process it is provided to. */
export class FiberCounter {
  live = 0
  readonly service: Metric.FiberRuntimeMetricsService = {
    recordFiberStart: () => {
      this.live++
    },
    recordFiberEnd: () => {
      this.live--
    },
  }
}

interface Entry {
  readonly queue: string
  readonly request: Request
  added: number
  started: number
  running: number
  /** The ticks its reconciles started in, within the last `busyWindowTicks`. */
  readonly recent: Array<number>
  /** Rate-limited retries since the controller last booked a reconcile that resets the backoff. */
  retries: number
}

/** A first retry (of a request's first failure, or its first since a reset), and its delay. */
interface FirstRetry {
  readonly request: Request
  readonly delayMillis: number
}

/** The gauges that read 0 once nothing is queued or running. */
const IDLE_GAUGES = new Set(["workqueue_depth", "controller_runtime_active_workers"])

/**
 * What a settled process's metrics (its own registry) say that is not so: a queue depth or a
 * count of active workers other than 0, while no request is ready and no reconcile runs.
 */
export const busyGauges = (registry: Metric.MetricRegistry): Effect.Effect<ReadonlyArray<string>> =>
  Effect.map(Effect.provideService(Metric.snapshot, Metric.MetricRegistry, registry), (snapshots) =>
    snapshots
      .flatMap((m) =>
        m.type === "Gauge" && IDLE_GAUGES.has(m.id) && Number(m.state.value) !== 0
          ? [
              `metrics: ${m.id}${JSON.stringify(m.attributes ?? {})} reads ${String(m.state.value)} once the run settled, with nothing queued or running`,
            ]
          : [],
      )
      .sort(),
  )

/** A process's work: accepted requests and reconciles, in one sequence. */
export class WorkLedger implements WorkObserverShape {
  private seq = 0
  private readonly entries = new Map<string, Entry>()
  /** Reconciles running now per queue, and the most a queue ran at once. */
  private readonly active = new Map<string, number>()
  peak = 0
  /** Requests reconciled twice at once (the queue promises one worker per request). */
  private readonly overlapping = new Set<string>()
  /** Per queue, how many reconciles were booked with each outcome, and how many retries. */
  readonly bookedCounts = new Map<string, Map<BookedOutcome, number>>()
  readonly retryCounts = new Map<string, number>()
  /** Per queue, the first retries of requests (see `retried`). */
  private readonly firstRetries = new Map<string, Array<FirstRetry>>()
  /** Requests reconciled more than `busyReconciles` times within `busyWindowTicks`. */
  private readonly busyLoops = new Set<string>()
  /** The most reconciles of one request that started within `busyWindowTicks`. */
  peakInWindow = 0

  private readonly tick: () => number
  private readonly busyReconciles: number

  /** `tick` reads the harness's virtual clock, in ticks. */
  constructor(tick: () => number = () => 0, busyReconciles: number = ChaosDefaults.busyReconciles) {
    this.tick = tick
    this.busyReconciles = busyReconciles
  }

  private entry(queue: string, request: Request): Entry {
    const k = `${queue} ${requestKey(request)}`
    let e = this.entries.get(k)
    if (e === undefined) {
      e = { queue, request, added: 0, started: 0, running: 0, recent: [], retries: 0 }
      this.entries.set(k, e)
    }
    return e
  }

  readonly added = (queue: string, request: Request) => {
    this.entry(queue, request).added = ++this.seq
  }

  readonly started = (queue: string, request: Request) => {
    const e = this.entry(queue, request)
    e.started = ++this.seq
    const now = this.tick()
    e.recent.push(now)
    while ((e.recent[0] ?? now) <= now - ChaosDefaults.busyWindowTicks) e.recent.shift()
    this.peakInWindow = Math.max(this.peakInWindow, e.recent.length)
    if (e.recent.length > this.busyReconciles)
      this.busyLoops.add(
        `busy loop: ${queue} reconciled ${describe(request)} more than ${this.busyReconciles} times within ${ChaosDefaults.busyWindowTicks} ticks (${(ChaosDefaults.busyWindowTicks * ChaosDefaults.tickMillis) / 1000} s)`,
      )
    if (e.running > 0) this.overlapping.add(`${queue} reconciled ${describe(request)} twice at once`)
    e.running++
    const active = (this.active.get(queue) ?? 0) + 1
    this.active.set(queue, active)
    this.peak = Math.max(this.peak, active)
  }

  readonly finished = (queue: string, request: Request) => {
    this.entry(queue, request).running--
    this.active.set(queue, (this.active.get(queue) ?? 1) - 1)
  }

  readonly booked = (queue: string, request: Request, outcome: BookedOutcome) => {
    const counts = this.bookedCounts.get(queue) ?? new Map<BookedOutcome, number>()
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1)
    this.bookedCounts.set(queue, counts)
    if (outcome === "success" || outcome === "requeue_after" || outcome === "terminal")
      this.entry(queue, request).retries = 0
  }

  readonly retried = (queue: string, request: Request, delayMillis: number) => {
    this.retryCounts.set(queue, (this.retryCounts.get(queue) ?? 0) + 1)
    const e = this.entry(queue, request)
    if (++e.retries !== 1) return
    const firsts = this.firstRetries.get(queue) ?? []
    firsts.push({ request, delayMillis })
    this.firstRetries.set(queue, firsts)
  }

  /**
   * First retries that waited at least twice as long as the queue's shortest first retry: a
   * backoff that kept growing across a reconcile that should have reset it (the limiter doubles
   * per retry, so one retry too many already doubles the wait).
   */
  unresetBackoffs(): ReadonlyArray<string> {
    const out: Array<string> = []
    for (const [queue, firsts] of this.firstRetries) {
      const shortest = Math.min(...firsts.map((f) => f.delayMillis))
      for (const f of firsts)
        if (f.delayMillis >= 2 * shortest && f.delayMillis > 0)
          out.push(
            `backoff: ${queue} retried ${describe(f.request)} after ${f.delayMillis} ms at its first failure since a reset, where a first failure waits ${shortest} ms: its backoff was not reset`,
          )
    }
    return [...new Set(out)].sort()
  }

  /** Requests reconciled in a busy loop (see `busyReconciles`), each once. */
  busy(): ReadonlyArray<string> {
    return [...this.busyLoops].sort()
  }

  /** Requests reconciled by two workers at once. */
  overlaps(): ReadonlyArray<string> {
    return [...this.overlapping].sort()
  }

  /** Requests accepted after their last reconcile started, with none running: lost work. */
  lost(): ReadonlyArray<string> {
    return [...this.entries.values()]
      .filter((e) => e.added > e.started && e.running === 0)
      .map(
        (e) =>
          `lost work: ${e.queue} accepted ${describe(e.request)} and never reconciled it after (${e.started === 0 ? "never reconciled" : "its last reconcile started before"})`,
      )
      .sort()
  }
}

/** A counter's total per value of attribute `by`, summed over its other attributes (e.g. clusters). */
const countersBy = (
  snapshots: ReadonlyArray<Metric.Metric.Snapshot>,
  id: string,
  by: string,
  where: (attributes: Readonly<Record<string, unknown>>) => boolean = () => true,
): Map<string, number> => {
  const out = new Map<string, number>()
  for (const m of snapshots) {
    if (m.type !== "Counter" || m.id !== id) continue
    const attributes = (m.attributes ?? {}) as Readonly<Record<string, unknown>>
    if (!where(attributes)) continue
    const key = String(attributes[by])
    out.set(key, (out.get(key) ?? 0) + Number((m.state as Metric.CounterState<number>).count))
  }
  return out
}

/** What the ledger expects of the counters of each controller (named after its queue). */
const expectedCounters = (work: WorkLedger) =>
  [...work.bookedCounts].flatMap(([queue, counts]) => {
    const n = (o: BookedOutcome) => counts.get(o) ?? 0
    return [
      ...(["success", "requeue", "requeue_after"] as const).map((r) => ({
        id: "controller_runtime_reconcile_total",
        what: `{controller=${queue},result=${r}}`,
        queue,
        result: r as string | undefined,
        want: n(r),
      })),
      {
        id: "controller_runtime_reconcile_total",
        what: `{controller=${queue},result=error}`,
        queue,
        result: "error",
        want: n("error") + n("terminal"),
      },
      {
        id: "controller_runtime_reconcile_errors_total",
        what: `{controller=${queue}}`,
        queue,
        result: undefined,
        want: n("error") + n("terminal"),
      },
      {
        id: "controller_runtime_terminal_reconcile_errors_total",
        what: `{controller=${queue}}`,
        queue,
        result: undefined,
        want: n("terminal"),
      },
    ]
  })

/**
 * Where a process's counters disagree with its ledger: `controller_runtime_reconcile_total` per
 * result, the error and terminal-error counters, and `workqueue_retries_total`.
 */
export const untruthfulMetrics = (
  registry: Metric.MetricRegistry,
  work: WorkLedger,
): Effect.Effect<ReadonlyArray<string>> =>
  Effect.map(Effect.provideService(Metric.snapshot, Metric.MetricRegistry, registry), (snapshots) => {
    const out: Array<string> = []
    for (const e of expectedCounters(work)) {
      const have =
        countersBy(snapshots, e.id, "controller", (a) => e.result === undefined || a.result === e.result).get(
          e.queue,
        ) ?? 0
      if (have !== e.want)
        out.push(`metrics: ${e.id}${e.what} reads ${have}, the controller booked ${e.want}`)
    }
    const retries = countersBy(snapshots, "workqueue_retries_total", "name")
    for (const [queue, want] of work.retryCounts) {
      const have = retries.get(queue) ?? 0
      if (have !== want)
        out.push(`metrics: workqueue_retries_total{name=${queue}} reads ${have}, the queue retried ${want}`)
    }
    return out.sort()
  })

const describe = (r: Request) =>
  `${r.cluster === "" ? "" : `${r.cluster}:`}${r.namespace === "" ? "" : `${r.namespace}/`}${r.name}`

/**
 * The watches `server` (at `url`, `""` for the management server) holds open for a process other
 * than `live` (one that ended), and, when `allowed` says the live process has no reason to watch
 * this server (a workload cluster not engaged, its accessor gone), for the live one too.
 */
export const leakedWatches = (
  url: string,
  server: FakeApiServer,
  live: string | undefined,
  allowed: boolean,
): ReadonlyArray<string> => {
  const where = url === "" ? "the management server" : `workload server ${url}`
  const byClient = new Map<string, Array<string>>()
  for (const w of server.openWatches()) {
    if (w.client === undefined) continue
    if (w.client === live && allowed) continue
    const list = byClient.get(w.client) ?? []
    list.push(`${w.resource}${w.namespace === undefined ? "" : ` in ${w.namespace}`}`)
    byClient.set(w.client, list)
  }
  return [...byClient.entries()].map(
    ([client, watches]) =>
      `leak: ${where} holds ${watches.length} watch${watches.length === 1 ? "" : "es"} open for ${client}${client === live ? ", which has no cluster engaged there" : ", whose process ended"} (${[...new Set(watches)].sort().join(", ")})`,
  )
}

/** The server URL of a base64 kubeconfig as the chaos scenarios write them. */
export const serverOfKubeconfig = (encoded: string | undefined): string | undefined =>
  encoded === undefined
    ? undefined
    : /server: "?([^"\s}]+)"?/.exec(Buffer.from(encoded, "base64").toString("utf8"))?.[1]

/** The servers named by the Secrets of `namespace` (data key `key`), e.g. a provider's kubeconfigs. */
export const serversOfSecrets = (
  mgmt: FakeApiServer,
  namespace: string,
  key: string,
  keep: (secret: KubeObject) => boolean = () => true,
): ReadonlyArray<string> =>
  mgmt
    .objects(Resources.secrets)
    .filter((s) => s.metadata.namespace === namespace && keep(s))
    .flatMap((s) => {
      const url = serverOfKubeconfig((s as { data?: Record<string, string> }).data?.[key])
      return url === undefined ? [] : [url]
    })
