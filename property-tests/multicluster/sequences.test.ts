/**
 * Model-based sequences over a model manager: three controllers, the hub and three provider
 * clusters that come and go, rotate their credentials and turn unhealthy, with the engagement
 * table (`multicluster.engagement`) deciding per (controller, cluster) pair and a model shell
 * interpreting its actions as `core/multicluster/index.ts` documents them: each step runs in
 * the pair's engage scope (opened by `StartCache`, closed by `CancelEngageScope`) and reports
 * its outcome later, in any order with the other commands; a step whose scope closed reports
 * nothing.
 *
 * After every command the checks of seed 003 hold: no reconcile while disengaged; every
 * engaged pair has exactly one live source per watch and no other pair has any; engagements
 * follow the world's current credentials; start → cache synced → indexes applied → sources
 * started, in that order; one log line per departure for dropped requests. Loops fail (a
 * bounded number of steps), they never hang.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  absent,
  type Engagement,
  type EngagementAction,
  EngagementDefaults,
  type EngagementOptions,
  type EngagementTrigger,
  engagementTransition,
  IN_PROGRESS_TAGS,
  SCOPE_OPEN_TAGS,
  sourcesFor,
  verdict,
} from "../../core/multicluster/index.ts"

const T0 = 1_700_000_000_000
const PROVIDER_CLUSTERS = ["a", "b", "c"] as const
const CLUSTERS = ["", ...PROVIDER_CLUSTERS] as const
/** More settle steps than any sequence of pending outcomes can need: a loop fails instead of hanging. */
const MAX_SETTLE_STEPS = 10_000

type ControllerName = "uniform" | "hub" | "mixed"
interface Controller {
  readonly name: ControllerName
  readonly options: (cluster: string) => EngagementOptions
}

const controllers: ReadonlyArray<Controller> = [
  {
    // a uniform multi-cluster controller: Watches only, the hub left out (the default with a provider)
    name: "uniform",
    options: (cluster) => ({
      cluster,
      hasProvider: true,
      watches: [
        { name: "Watches(v1/ConfigMap)", kind: "Watches" },
        { name: "Watches(v1/Secret)", kind: "Watches" },
      ],
    }),
  },
  {
    // an aggregating hub controller: For/Owns on the hub only
    name: "hub",
    options: (cluster) => ({
      cluster,
      hasProvider: true,
      engageWithLocalCluster: true,
      engageWithProviderClusters: false,
      watches: [
        { name: "For(apps/v1/Deployment)", kind: "For" },
        { name: "Owns(apps/v1/ReplicaSet)", kind: "Owns" },
      ],
    }),
  },
  {
    // both: For on the hub, Watches everywhere, a filter that rejects cluster "c"
    name: "mixed",
    options: (cluster) => ({
      cluster,
      hasProvider: true,
      engageWithLocalCluster: true,
      clusterFilter: cluster === "c" ? "reject" : "accept",
      watches: [
        { name: "For(apps/v1/Deployment)", kind: "For" },
        { name: "Watches(v1/Pod)", kind: "Watches" },
      ],
    }),
  },
]

type StepKind = "StartCache" | "WaitForCacheSync" | "ApplyIndexes" | "StartSources"
const ORDER: ReadonlyArray<StepKind> = ["StartCache", "WaitForCacheSync", "ApplyIndexes", "StartSources"]

/** One engage scope of a pair: opened by StartCache, closed by CancelEngageScope. */
interface Scope {
  readonly id: number
  readonly controller: ControllerName
  readonly cluster: string
  readonly generation: string
  open: boolean
  /** The steps run in it, in order. */
  readonly steps: Array<StepKind>
  /** Live sources (watch names), started by StartSources. */
  sources: Array<string>
}

/** A step under way: its outcome is reported later. */
interface Pending {
  readonly scope: Scope
  readonly step: StepKind
}

interface Timer {
  readonly controller: ControllerName
  readonly cluster: string
  readonly dueAt: number
}

const key = (controller: string, cluster: string) => `${controller}|${cluster}`

/** The provider's clusters, the pairs, the model shell, and what the checks remember. */
class Manager {
  now = T0
  /** The provider's clusters: name → generation (credentials); the hub is always there. */
  readonly world = new Map<string, string>([["", "hub-1"]])
  readonly unhealthy = new Set<string>()
  readonly pairs = new Map<string, Engagement>()
  readonly scopes: Array<Scope> = []
  readonly current = new Map<string, Scope>()
  pending: Array<Pending> = []
  timers: Array<Timer> = []
  requeued: Array<{ controller: ControllerName; cluster: string; name: string }> = []
  readonly droppedLogs = new Map<string, number>()
  reconciles = 0
  credentialCounter = 1
  private scopeIds = 0

  constructor() {
    this.provider("", (c) => this.feed(c, "", { _tag: "ClusterAdded", generation: "hub-1" }))
  }

  pair(c: ControllerName, cluster: string): Engagement {
    return this.pairs.get(key(c, cluster)) ?? absent
  }

  /** Runs `f` for every controller (the manager engaging each of them in turn). */
  provider(_cluster: string, f: (c: Controller) => void): void {
    for (const c of controllers) f(c)
  }

  /** Feeds one trigger to one pair and interprets the actions. */
  feed(c: Controller, cluster: string, trigger: EngagementTrigger): ReadonlyArray<EngagementAction> {
    const before = this.pair(c.name, cluster)
    const result = engagementTransition(
      { observed: before, desired: c.options(cluster), trigger, now: this.now },
      EngagementDefaults,
    )
    this.pairs.set(key(c.name, cluster), result.status)
    for (const action of result.actions) this.perform(c, cluster, before, result.status, action)
    if (result.status.state._tag === "Engaged" && before.state._tag !== "Engaged") {
      this.droppedLogs.set(key(c.name, cluster), 0)
    }
    return result.actions
  }

  private perform(
    c: Controller,
    cluster: string,
    before: Engagement,
    after: Engagement,
    action: EngagementAction,
  ): void {
    const k = key(c.name, cluster)
    const scope = this.current.get(k)
    switch (action._tag) {
      case "StartCache": {
        // a new engagement never starts while the pair still has an open scope (it would leak sources)
        expect(scope?.open ?? false, `${k}: StartCache with a scope still open`).toBe(false)
        // re-engagement uses the credentials the provider has now
        expect(action.generation, `${k}: StartCache for old credentials`).toBe(this.world.get(cluster))
        const s: Scope = {
          id: ++this.scopeIds,
          controller: c.name,
          cluster,
          generation: action.generation,
          open: true,
          steps: ["StartCache"],
          sources: [],
        }
        this.scopes.push(s)
        this.current.set(k, s)
        this.pending.push({ scope: s, step: "StartCache" })
        return
      }
      case "WaitForCacheSync":
      case "ApplyIndexes":
      case "StartSources": {
        expect(scope?.open, `${k}: ${action._tag} outside an open engage scope`).toBe(true)
        if (scope === undefined) return
        expect(action.generation).toBe(scope.generation)
        scope.steps.push(action._tag)
        // start → cache synced → indexes applied → sources: each step only after the one before it
        expect(scope.steps, `${k}: steps out of order`).toEqual(ORDER.slice(0, scope.steps.length))
        if (action._tag === "WaitForCacheSync")
          expect(action.timeout).toBe(EngagementDefaults.cacheSyncTimeout)
        if (action._tag === "StartSources") expect(action.watches).toEqual(sourcesFor(c.options(cluster)))
        this.pending.push({ scope, step: action._tag })
        return
      }
      case "CancelEngageScope": {
        expect(scope?.open, `${k}: cancel without an open scope`).toBe(true)
        if (scope === undefined) return
        expect(action.generation).toBe(scope.generation)
        scope.open = false
        scope.sources = []
        return
      }
      case "Reconcile": {
        // never while disengaged: the pair was engaged, its scope is open with every source live,
        // and the provider has the cluster, healthy, with the engaged credentials
        expect(before.state._tag, `${k}: reconcile while ${before.state._tag}`).toBe("Engaged")
        expect(scope?.open).toBe(true)
        expect(scope?.sources).toEqual(sourcesFor(c.options(cluster)))
        expect(this.world.get(cluster)).toBe(scope?.generation)
        expect(this.unhealthy.has(cluster)).toBe(false)
        this.reconciles++
        return
      }
      case "RequeueRequest": {
        expect(IN_PROGRESS_TAGS).toContain(before.state._tag)
        expect(action.after).toBe(EngagementDefaults.requeueWhileEngaging)
        this.requeued.push({ controller: c.name, cluster, name: action.name })
        return
      }
      case "DropRequest": {
        expect(["Absent", "Excluded", "Failed", "Unhealthy"]).toContain(before.state._tag)
        expect(action.reason).toBe(before.state._tag === "Absent" ? "ClusterNotFound" : "ClusterNotEngaged")
        if (action.log) {
          const n = (this.droppedLogs.get(k) ?? 0) + 1
          this.droppedLogs.set(k, n)
          // one log line per departure, however many requests are dropped
          expect(n, `${k}: more than one logged drop since the last engagement`).toBe(1)
        }
        expect(after.dropped).toBe(before.dropped + 1)
        return
      }
      case "RetryAfter": {
        expect(action.after).toBeGreaterThan(0)
        expect(action.after).toBeLessThanOrEqual(EngagementDefaults.engageRetry.max)
        this.timers.push({ controller: c.name, cluster, dueAt: this.now + action.after })
        return
      }
      case "Log":
        return
    }
  }

  /** Reports the outcome of pending step `i` (success or failure); a step of a closed scope reports nothing. */
  deliver(i: number, ok: boolean): void {
    const p = this.pending[i]
    if (p === undefined) return
    this.pending.splice(i, 1)
    const { scope, step } = p
    if (!scope.open) return
    const c = controllers.find((x) => x.name === scope.controller)
    if (c === undefined) return
    const generation = scope.generation
    if (step === "StartSources" && ok) {
      // the sources run in the scope: one per watch, started once
      expect(scope.sources).toEqual([])
      scope.sources = [...sourcesFor(c.options(scope.cluster))]
    }
    const trigger: EngagementTrigger = ok
      ? step === "StartCache"
        ? { _tag: "CacheStarted", generation }
        : step === "WaitForCacheSync"
          ? { _tag: "CacheSynced", generation }
          : step === "ApplyIndexes"
            ? { _tag: "IndexesApplied", generation }
            : { _tag: "SourcesStarted", generation }
      : step === "WaitForCacheSync"
        ? { _tag: "CacheSyncFailed", generation, timedOut: true, error: "" }
        : {
            _tag: "EngageFailed",
            generation,
            step: step === "StartCache" ? "startCache" : step === "ApplyIndexes" ? "indexes" : "sources",
            error: "connection refused",
          }
    this.feed(c, scope.cluster, trigger)
  }

  /** Delivers every pending outcome successfully. */
  settle(): void {
    let steps = 0
    while (this.pending.length > 0) {
      if (++steps > MAX_SETTLE_STEPS)
        throw new Error(`settle: still ${this.pending.length} pending after ${steps} steps`)
      this.deliver(0, true)
    }
  }

  /** Fires timer `i`, at its due time or 1 ms before it. */
  fire(i: number, early: boolean): void {
    const t = this.timers[i]
    if (t === undefined) return
    this.timers.splice(i, 1)
    this.now = Math.max(this.now, early ? t.dueAt - 1 : t.dueAt)
    const c = controllers.find((x) => x.name === t.controller)
    if (c !== undefined) this.feed(c, t.cluster, { _tag: "RetryDue" })
  }

  /** The checks that hold between any two commands. */
  check(): void {
    for (const c of controllers) {
      for (const cluster of CLUSTERS) {
        const k = key(c.name, cluster)
        const e = this.pair(c.name, cluster)
        const s = e.state
        const open = this.scopes.filter((x) => x.controller === c.name && x.cluster === cluster && x.open)
        const generation = this.world.get(cluster)
        // the pair follows the provider: gone is Absent, present carries the current credentials
        if (generation === undefined) expect(s._tag, k).toBe("Absent")
        else
          expect("generation" in s ? s.generation : undefined, `${k}: engaged with old credentials`).toBe(
            generation,
          )
        // at most one engage scope per pair, open exactly in the states that may hold one
        expect(open.length, `${k}: open scopes`).toBe(SCOPE_OPEN_TAGS.includes(s._tag) ? 1 : 0)
        if (open[0] !== undefined && "generation" in s) expect(open[0].generation).toBe(s.generation)
        if (s._tag === "Engaged") {
          // exactly one live source per watch, of the current credentials, on a healthy cluster
          expect(open[0]?.sources, `${k}: live sources`).toEqual(sourcesFor(c.options(cluster)))
          expect(this.unhealthy.has(cluster), `${k}: engaged while unhealthy`).toBe(false)
        } else {
          for (const x of open) expect(x.sources, `${k}: sources live while ${s._tag}`).toEqual([])
        }
        if (s._tag === "Excluded") expect(verdict(c.options(cluster)).engage).toBe(false)
      }
    }
  }
}

type Cmd = fc.Command<object, Manager>
const cmd = (name: string, run: (m: Manager) => void): Cmd => ({
  check: () => true,
  run: (_model, m) => {
    run(m)
    m.check()
  },
  toString: () => name,
})

const clusterArb = fc.constantFrom(...PROVIDER_CLUSTERS)
const anyClusterArb = fc.constantFrom(...CLUSTERS)
const controllerArb = fc.constantFrom(...controllers)

const deliverArb = fc
  .tuple(fc.nat(), fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, fc.constant(false)))
  .map(([i, ok]) =>
    cmd(`deliver(${i}, ${ok ? "ok" : "fail"})`, (m) => m.deliver(i % Math.max(1, m.pending.length), ok)),
  )
const requestArb = fc
  .tuple(controllerArb, anyClusterArb, fc.constantFrom("a", "b"))
  .map(([c, cluster, name]) =>
    cmd(`request(${c.name}, ${cluster}, ${name})`, (m) => {
      m.feed(c, cluster, { _tag: "RequestArrived", namespace: "default", name })
    }),
  )

/** Steps and requests are drawn more often than the rest, so that requests meet every state. */
const commands = [
  deliverArb,
  deliverArb,
  deliverArb,
  requestArb,
  requestArb,
  requestArb,
  clusterArb.map((cluster) =>
    cmd(`add(${cluster})`, (m) => {
      const generation = m.world.get(cluster) ?? `${cluster}-${++m.credentialCounter}`
      m.world.set(cluster, generation)
      m.provider(cluster, (c) => m.feed(c, cluster, { _tag: "ClusterAdded", generation }))
    }),
  ),
  clusterArb.map((cluster) =>
    cmd(`remove(${cluster})`, (m) => {
      m.world.delete(cluster)
      m.unhealthy.delete(cluster)
      m.provider(cluster, (c) => m.feed(c, cluster, { _tag: "ClusterRemoved" }))
    }),
  ),
  anyClusterArb.map((cluster) =>
    cmd(`rotateCredentials(${cluster})`, (m) => {
      if (!m.world.has(cluster)) return
      const generation = `${cluster === "" ? "hub" : cluster}-${++m.credentialCounter}`
      m.world.set(cluster, generation)
      // a new cluster object: its health is presumed until a probe says otherwise
      m.unhealthy.delete(cluster)
      m.provider(cluster, (c) => m.feed(c, cluster, { _tag: "CredentialsChanged", generation }))
    }),
  ),
  anyClusterArb.map((cluster) =>
    cmd(`unhealthy(${cluster})`, (m) => {
      if (!m.world.has(cluster)) return
      m.unhealthy.add(cluster)
      m.provider(cluster, (c) =>
        m.feed(c, cluster, { _tag: "ClusterUnhealthy", reason: "probe failed 5 times" }),
      )
    }),
  ),
  anyClusterArb.map((cluster) =>
    cmd(`healthy(${cluster})`, (m) => {
      if (!m.world.has(cluster)) return
      m.unhealthy.delete(cluster)
      m.provider(cluster, (c) => m.feed(c, cluster, { _tag: "ClusterHealthy" }))
    }),
  ),
  fc.constant(cmd("settle", (m) => m.settle())),
  fc
    .tuple(fc.nat(), fc.boolean())
    .map(([i, early]) =>
      cmd(`fire(${i}${early ? ", 1 ms early" : ""})`, (m) => m.fire(i % Math.max(1, m.timers.length), early)),
    ),
  fc.constant(
    cmd("requeueDue", (m) => {
      const due = m.requeued
      m.requeued = []
      m.now += EngagementDefaults.requeueWhileEngaging
      for (const r of due) {
        const c = controllers.find((x) => x.name === r.controller)
        if (c !== undefined)
          m.feed(c, r.cluster, { _tag: "RequestArrived", namespace: "default", name: r.name })
      }
    }),
  ),
  fc.tuple(controllerArb, anyClusterArb).map(([c, cluster]) =>
    cmd(`sourceDies(${c.name}, ${cluster})`, (m) => {
      const e = m.pair(c.name, cluster)
      if (e.state._tag === "Engaged") {
        m.feed(c, cluster, {
          _tag: "EngageFailed",
          generation: e.state.generation,
          step: "sources",
          error: "watch ended",
        })
      }
    }),
  ),
]

/** After the sequence: with every cluster healthy and every step succeeding, every wanted pair ends engaged. */
const converge = (m: Manager): void => {
  for (const cluster of [...m.unhealthy]) {
    m.unhealthy.delete(cluster)
    m.provider(cluster, (c) => m.feed(c, cluster, { _tag: "ClusterHealthy" }))
  }
  for (let round = 0; ; round++) {
    if (round > 100) throw new Error("converge: pairs still not engaged after 100 rounds")
    m.settle()
    m.check()
    if (m.timers.length === 0) break
    while (m.timers.length > 0) m.fire(0, false)
    m.check()
  }
  for (const c of controllers) {
    for (const cluster of CLUSTERS) {
      const s = m.pair(c.name, cluster).state
      const wanted = m.world.has(cluster) && verdict(c.options(cluster)).engage
      expect(s._tag, `${c.name}|${cluster}`).toBe(
        wanted ? "Engaged" : m.world.has(cluster) ? "Excluded" : "Absent",
      )
    }
  }
}

describe("multicluster.engagement sequences over a model manager (seed 003)", () => {
  it("no reconcile while disengaged, one live source per watch, new credentials used, steps in order", () => {
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 120, size: "max" }), (cmds) => {
        const m = new Manager()
        m.check()
        fc.modelRun(() => ({ model: {}, real: m }), cmds)
        converge(m)
      }),
      { numRuns: 150 },
    )
  })

  it("re-engagement after a credential change cancels the old sources and starts the new credentials' cache", () => {
    const m = new Manager()
    m.world.set("a", "a-1")
    m.provider("a", (c) => m.feed(c, "a", { _tag: "ClusterAdded", generation: "a-1" }))
    m.settle()
    expect(m.pair("uniform", "a").state).toEqual({ _tag: "Engaged", generation: "a-1" })
    m.world.set("a", "a-2")
    const uniform = controllers[0] as Controller
    const actions = m.feed(uniform, "a", { _tag: "CredentialsChanged", generation: "a-2" })
    for (const c of controllers.slice(1)) m.feed(c, "a", { _tag: "CredentialsChanged", generation: "a-2" })
    expect(actions).toEqual([
      { _tag: "CancelEngageScope", cluster: "a", generation: "a-1" },
      { _tag: "StartCache", cluster: "a", generation: "a-2" },
    ])
    m.settle()
    m.check()
    expect(m.pair("uniform", "a").state).toEqual({ _tag: "Engaged", generation: "a-2" })
    expect(
      m.scopes
        .filter((s) => s.controller === "uniform" && s.cluster === "a" && s.open)
        .map((s) => s.generation),
    ).toEqual(["a-2"])
  })

  it("requests of a removed cluster are dropped with one log line, never requeued", () => {
    const m = new Manager()
    m.world.set("b", "b-1")
    const uniform = controllers[0] as Controller
    m.feed(uniform, "b", { _tag: "ClusterAdded", generation: "b-1" })
    m.settle()
    m.world.delete("b")
    m.feed(uniform, "b", { _tag: "ClusterRemoved" })
    const drops = [1, 2, 3, 4, 5].flatMap((i) =>
      m.feed(uniform, "b", { _tag: "RequestArrived", namespace: "default", name: `o${i}` }),
    )
    expect(drops.map((a) => (a._tag === "DropRequest" ? a.log : a._tag))).toEqual([
      true,
      false,
      false,
      false,
      false,
    ])
    expect(m.requeued).toEqual([])
    expect(m.pair("uniform", "b").dropped).toBe(5)
  })

  it("a settle loop that cannot finish fails instead of hanging", () => {
    const m = new Manager()
    // a shell that re-queues every outcome forever: the bounded loop must throw
    m.deliver = function (this: Manager, i: number) {
      const p = this.pending[i]
      if (p !== undefined) this.pending.push(p)
    }
    m.pending.push({
      scope: {
        id: 0,
        controller: "uniform",
        cluster: "a",
        generation: "x",
        open: true,
        steps: [],
        sources: [],
      },
      step: "StartCache",
    })
    expect(() => m.settle()).toThrow(/settle: still \d+ pending after 10001 steps/)
  })
})
