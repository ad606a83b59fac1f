// The chaos campaign: the fixed fast campaign over the real ClusterCache and Cluster
// controllers, and the deliberately broken operators it must catch, each with a clear failure.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as References from "effect/References"
import { Faults } from "../apiserver/faults.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { CONFLICT_RETRIES } from "../cluster/interpret.ts"
import { Resources } from "../kube/resource.ts"
import { Baselines } from "./baselines.ts"
import {
  type CampaignOptions,
  type Failure,
  judge,
  points,
  prng,
  prngFrom,
  replayCommand,
  runCampaign,
  transientKind,
} from "./campaign.ts"
import { transientFault } from "./faultyClient.ts"
import { isKnown, KnownBugs, sameRun } from "./known.ts"
import { mutantNamed } from "./mutants.ts"
import { ChaosDefaults, PerturbationKinds, TransientKinds } from "./perturbations.ts"
import { Regressions } from "./regressions.ts"
import type { RunResult } from "./runPlan.ts"
import { eventLines, firstDifference, mask, stateDigest } from "./snapshot.ts"
import { Scenarios } from "./suites.ts"

const quiet = <A, E>(e: Effect.Effect<A, E>) =>
  e.pipe(Effect.provideService(References.MinimumLogLevel, "None"))

const campaign = (options: CampaignOptions) => quiet(runCampaign(options))

const show = (fs: ReadonlyArray<Failure>) =>
  fs.map((f) => `${f.scenario} ${f.perturbation} ${f.at} [${f.oracle}] ${f.message.slice(0, 300)}`).join("\n")

/** One run of a broken operator (and the same run of the real one), by its replay coordinates. */
const pinned = (scenario: string, kind: (typeof PerturbationKinds)[number], at: number, mutant?: string) =>
  campaign({
    seed: 1,
    depth: "full",
    scenarios: [scenario],
    perturbations: [kind],
    at,
    mutant: mutant === undefined ? undefined : mutantNamed(mutant),
  })

describe("bugs the campaign found, kept as regressions (docs/reliability.md)", () => {
  for (const { scenario, kind, at, what } of Regressions)
    it.effect(
      `${what}: ${scenario} ${kind} at ${at} passes`,
      () =>
        Effect.gen(function* () {
          const run = yield* pinned(scenario, kind, at)
          assert.deepStrictEqual(run.failures, [], show(run.failures))
          assert.isAbove(run.fired[kind], 0)
        }),
      60_000,
    )
})

describe("chaos campaign", () => {
  it("documents its numbers", () => {
    assert.deepStrictEqual(
      { ...ChaosDefaults },
      {
        tickMillis: 1_000,
        convergeTicks: 300,
        quietTicks: 10,
        keepTicks: 60,
        writeStorm: 300,
        busyReconciles: 20,
        busyWindowTicks: 10,
        busyWakeMillis: 10_000,
        maxObjectBytes: 262_144,
        transientBurst: 3,
        conflictBurst: 4,
        dropTicks: 5,
        slowMillis: 250,
        syncPeriod: 600_000,
        fastPoints: { crash: 4, drop: 1, stale: 1, transient: 3, reorder: 4, slow: 1 },
        fastPointsLater: { crash: 2, drop: 1, stale: 1, transient: 2, reorder: 2, slow: 1 },
      },
    )
  })

  it("skips a sampler's first draws", () => {
    const random = prng(1)
    const first = Array.from({ length: 5 }, () => random())
    const from = prngFrom(1, 3)
    assert.deepStrictEqual([from(), from()], first.slice(3))
  })

  it("digests a state, its creates and deletes and the states between", () => {
    const final = ["configmaps a/x {}", "configmaps a/y {}"]
    const digest = stateDigest(final, { "a/x": "+", "a/y": "+-+" })
    assert.strictEqual(stateDigest([...final], { "a/y": "+-+", "a/x": "+" }), digest)
    assert.notStrictEqual(stateDigest(final, { "a/x": "+", "a/y": "+" }), digest)
    assert.notStrictEqual(stateDigest(["configmaps a/x {}"], { "a/x": "+", "a/y": "+-+" }), digest)
    const lifecycle = { "a/x": "+", "a/y": "+-+" }
    assert.strictEqual(stateDigest(final, lifecycle, { steps: [], events: [], logs: [] }), digest)
    const traces = [
      { steps: [["configmaps a/x {}"]] },
      { events: ["e"] },
      { events: ["f"] },
      { logs: ["INFO x []"] },
    ]
    const digests = traces.map((t) => stateDigest(final, lifecycle, t))
    assert.strictEqual(new Set([digest, ...digests]).size, 5)
  })

  it.effect("lists each server's Events once, by what they say, times masked", () =>
    Effect.gen(function* () {
      const server = yield* FakeApiServer.make()
      const event = (name: string, reason: string, time: string) => ({
        metadata: { namespace: "a", name },
        involvedObject: { kind: "Cluster", namespace: "a", name: "c", uid: "u1" },
        type: "Warning",
        reason,
        message: "the write was refused",
        reportingComponent: "krtt",
        firstTimestamp: time,
      })
      yield* server.client().create(Resources.events, event("e1", "Failed", "2026-01-01T00:00:00Z"))
      yield* server.client().create(Resources.events, event("e2", "Failed", "2026-01-01T00:00:09Z"))
      yield* server.client().create(Resources.events, event("e3", "Other", "2026-01-01T00:00:09Z"))
      yield* server.client().create(Resources.configMaps, { metadata: { namespace: "a", name: "x" } })
      assert.deepStrictEqual(eventLines([["https://w", server]]), [
        'https://w ["Cluster","a","c","Warning","Failed","the write was refused","krtt"]',
        'https://w ["Cluster","a","c","Warning","Other","the write was refused","krtt"]',
      ])
    }),
  )

  it("masks what differs between equal runs, and nothing else", () => {
    const o = {
      metadata: {
        name: "c",
        uid: "fake-uid-3",
        resourceVersion: "12",
        labels: { "chaos.krtt.dev/touched": "1" },
        annotations: { keep: "x", "chaos.krtt.dev/note": "y" },
      },
      status: {
        conditions: [
          { type: "Ready", status: "True", lastTransitionTime: "1970-01-01T00:02:15Z" },
          { type: "ChaosForeignReady", status: "True" },
        ],
        phase: "Provisioned",
      },
    }
    assert.deepStrictEqual(mask(o), {
      metadata: { annotations: { keep: "x" }, name: "c", resourceVersion: "<masked>", uid: "<masked>" },
      status: {
        conditions: [{ lastTransitionTime: "<time>", status: "True", type: "Ready" }],
        phase: "Provisioned",
      },
    })
  })

  it("reports a duplicated object as a difference", () => {
    assert.strictEqual(firstDifference(["a"], ["a"]), "no difference")
    assert.strictEqual(firstDifference(["a"], ["a", "a"]), "expected (nothing more) but found a")
  })

  it("cycles every transient error kind and prints replay commands with seed and scenario", () => {
    const kinds = new Set(Array.from({ length: TransientKinds.length }, (_, i) => transientKind(5, i)))
    assert.strictEqual(kinds.size, TransientKinds.length)
    assert.strictEqual(
      replayCommand({ seed: 7, controllers: ["cluster"] }, "delete", "crash", 4, undefined),
      "krtt chaos --seed 7 --scenario delete --perturbation crash --at 4 --controllers cluster",
    )
  })

  it("bursts Conflicts on writes only, one more than a write is retried in place", () => {
    assert.strictEqual(ChaosDefaults.conflictBurst, CONFLICT_RETRIES + 1)
    const faults = new Faults()
    faults.add(transientFault("Conflict"))
    const target = (verb: "get" | "patch" | "update" | "create") => ({ verb, path: "/api/v1/x" })
    assert.isUndefined(faults.take(target("get")))
    assert.isUndefined(faults.take(target("create")))
    const tags = ["patch", "update", "patch", "patch", "patch"].map(
      (v) => faults.take(target(v as "patch"))?.error?._tag,
    )
    assert.deepStrictEqual(tags, ["Conflict", "Conflict", "Conflict", "Conflict", undefined])
    const timeouts = new Faults()
    timeouts.add(transientFault("Timeout"))
    const got = ["get", "create", "get", "get"].map((v) => timeouts.take(target(v as "get"))?.error?._tag)
    assert.deepStrictEqual(got, ["Timeout", "Timeout", "Timeout", undefined])
  })

  it("samples one burst of Conflicts among a fast campaign's transient points", () => {
    const reference = { writes: 12, requests: 60 } as RunResult
    const scenario = Scenarios[0] as (typeof Scenarios)[number]
    for (const seed of [1, 2, 3, 9]) {
      const at = points("transient", scenario, reference, "fast", prng(seed), ChaosDefaults.fastPoints, seed)
      assert.lengthOf(at, ChaosDefaults.fastPoints.transient)
      assert.deepStrictEqual(
        [...at].sort((a, b) => a - b),
        at,
      )
      assert.strictEqual(new Set(at).size, at.length)
      assert.isTrue(
        at.some((n) => transientKind(seed, n) === "Conflict"),
        `seed ${seed}: ${at}`,
      )
    }
    const full = points("transient", scenario, reference, "full", prng(1), ChaosDefaults.fastPoints, 1)
    assert.strictEqual(full.length, 60)
  })

  it("judges a run that never settles and one that deleted an object twice", () => {
    const ref = {
      final: ["x"],
      lifecycle: { a: "+" },
      steps: [],
      violations: [],
      writes: 1,
      requests: 1,
      fired: { crash: 0, drop: 0, stale: 0, transient: 0, reorder: 0, slow: 0 },
      convergedAfter: 3,
      unstable: undefined,
      leaks: [],
      lostWork: [],
      informers: [],
      busy: [],
      lists: [],
      metrics: [],
      peakConcurrency: 1,
      events: [],
      logs: [],
    }
    const bad = { ...ref, final: ["y"], lifecycle: { a: "+-+" }, convergedAfter: undefined }
    assert.deepStrictEqual(
      judge(ref, bad).map((f) => f.oracle),
      ["esr", "final-state", "lifecycle"],
    )
    assert.deepStrictEqual(judge(ref, ref), [])
  })

  it.effect(
    "the fast campaign: the real controllers break no oracle but the reported bugs, and every perturbation fires",
    () =>
      Effect.gen(function* () {
        const report = yield* campaign({ seed: 1, depth: "fast" })
        assert.strictEqual(report.scenarios, Scenarios.length)
        const unknown = report.failures.filter((f) => !isKnown(report.failures, f))
        assert.deepStrictEqual(unknown, [], show(unknown))
        for (const bug of KnownBugs)
          assert.isTrue(
            report.failures.some((f) => bug.matches(f, sameRun(report.failures, f))),
            `known bug ${bug.id} no longer reproduces: remove it from shell/chaos/known.ts`,
          )
        for (const kind of PerturbationKinds) assert.isAbove(report.fired[kind], 0, `${kind} never fired`)
        assert.isAbove(report.peakConcurrency, 1, "no controller ever ran two reconciles at once")
        // The mutation campaign holds each scenario to these digests of its runs.
        assert.deepStrictEqual(
          report.perScenario.map((s) => `${s.scenario} ${s.reference} ${s.perturbed}`),
          Baselines.map((b) => `${b.scenario} ${b.reference} ${b.perturbed}`),
          "a run changed (its states, Events, log or traffic): take the baselines of shell/chaos/baselines.ts again (KRTT_CHAOS_BASELINE=1 npx vitest run --config shell/chaos/vitest.mutation.config.ts)",
        )
      }),
    120_000,
  )

  describe("catches deliberately broken operators; the real one passes the same run", () => {
    it.effect(
      "a finalizer removed before the children are gone (safety; seed 001, Deletion Reconciliation row 8)",
      () =>
        Effect.gen(function* () {
          const broken = yield* pinned("delete", "transient", 1, "finalizer-early")
          const caught = broken.failures.filter(
            (f) =>
              f.oracle === "safety" &&
              /finalizer removed while ChaosInfraCluster and ChaosControlPlane exist/.test(f.message),
          )
          assert.isAbove(caught.length, 0, show(broken.failures))
          assert.include(caught[0]?.replay, "--mutant finalizer-early")
          const real = yield* pinned("delete", "transient", 1)
          assert.deepStrictEqual(real.failures, [], show(real.failures))
        }),
      60_000,
    )

    it.effect(
      "a status write without a resourceVersion loses another writer's condition (safety)",
      () =>
        Effect.gen(function* () {
          const broken = yield* pinned("provision", "reorder", 2, "status-no-rv")
          assert.isTrue(
            broken.failures.some(
              (f) =>
                f.oracle === "safety" &&
                f.message.includes("another writer's condition ChaosForeignReady lost"),
            ),
            show(broken.failures),
          )
          // The real controller keeps the condition (it retries on Conflict); its reported
          // duplication bug (shell/chaos/known.ts) is no loss.
          const real = yield* pinned("provision", "reorder", 2)
          assert.deepStrictEqual(
            real.failures.filter((f) => f.oracle === "safety"),
            [],
          )
        }),
      60_000,
    )

    it.effect(
      "state kept only in memory across a crash (per-object create counts)",
      () =>
        Effect.gen(function* () {
          const broken = yield* pinned("provision", "crash", 3, "memory-state")
          assert.isTrue(
            broken.failures.some(
              (f) =>
                f.oracle === "lifecycle" &&
                /p1-registration-<generated>: created\/deleted "\+\+"/.test(f.message),
            ),
            show(broken.failures),
          )
          const real = yield* pinned("provision", "crash", 3)
          assert.deepStrictEqual(real.failures, [], show(real.failures))
        }),
      60_000,
    )

    // The later controllers' broken variants: each caught by a safety invariant of its suite.
    for (const [what, scenario, kind, at, mutant, expected] of [
      [
        "an IPAM allocator that forgets its allocations after a restart hands a CIDR out twice (seed 004)",
        "ipam-delete",
        "crash",
        8,
        "ipam-forgets",
        "CIDR allocated twice: 10.0.0.0/24 of ClusterConfig ipam-chaos/h1--ipam--nodes overlaps",
      ],
      [
        "a multi-cluster reconcile that ignores disengagement reconciles a rotated cluster's old engagement (seed 003)",
        "mc-rotate",
        "crash",
        1,
        "remember-clusters",
        "cluster app reconciled (default/web) on engagement 1 of app after it was disengaged",
      ],
      [
        "the same reconcile goes on with an engagement its workload server's outage ended (seed 000 probes, seed 003)",
        "mc-outage",
        "crash",
        1,
        "remember-clusters",
        "cluster solo reconciled (default/after) on engagement 1 of solo after it was disengaged",
      ],
      [
        "propagate that never deletes a copy releases its source with a copy left (core/propagate summary)",
        "propagate-delete",
        "crash",
        1,
        "propagate-keeps-copies",
        "source team-a/settings: finalizer krtt.io/propagate removed while https://east.fleet.example:6443 holds its copy team-a/settings",
      ],
      [
        "the same forgets a cluster that came back in krtt-propagate-pending while it still holds the copy (no cleanup lost)",
        "propagate-away",
        "crash",
        1,
        "propagate-keeps-copies",
        "krtt-propagate-pending: west no longer listed for ConfigMap team-a/settings while https://west.fleet.example:6443 holds its copy team-a/settings",
      ],
      [
        "propagate that writes krtt-propagate-pending from its own keys loses an administrator's key (foreign content kept)",
        "propagate-away",
        "crash",
        1,
        "propagate-pending-own-keys",
        "krtt-propagate-pending: key Deployment.team-a.web, which names no source, removed",
      ],
    ] as const)
      it.effect(
        `${what} (safety)`,
        () =>
          Effect.gen(function* () {
            const broken = yield* pinned(scenario, kind, at, mutant)
            const caught = broken.failures.filter(
              (f) => f.oracle === "safety" && f.message.includes(expected),
            )
            assert.isAbove(caught.length, 0, show(broken.failures))
            assert.include(caught[0]?.replay, `--mutant ${mutant}`)
            const real = yield* pinned(scenario, kind, at)
            assert.deepStrictEqual(real.failures, [], show(real.failures))
          }),
        60_000,
      )

    // The resource and liveness oracles: what was left running, what was never reconciled.
    for (const [what, scenario, kind, at, mutant, oracle, expected] of [
      [
        "a disengaged cluster's engage scope left open keeps its watches on the removed cluster (seed 003: the engage context is cancelled when the cluster leaves)",
        "mc-engage",
        "crash",
        1,
        "engage-scope-leak",
        "leak",
        /workload server https:\/\/west\.fleet\.example:6443 holds 1 watch open for operator#\d, which has no cluster engaged there \(\/configmaps\)/,
      ],
      [
        "the same after a rotation: the old server keeps being watched (seed 003)",
        "mc-rotate",
        "transient",
        2,
        "engage-scope-leak",
        "leak",
        /workload server https:\/\/blue\.fleet\.example:6443 holds 1 watch open for operator#\d, which has no cluster engaged there/,
      ],
      [
        "a work queue that forgets a request re-added while it was processed (a lost wake-up)",
        "provision",
        "slow",
        2,
        "lost-wakeup",
        "lost-work",
        /lost work: cluster accepted chaos\/p1 and never reconciled it after/,
      ],
      [
        "a work queue that hands out a request still being processed (one worker per request)",
        "provision",
        "slow",
        2,
        "double-worker",
        "safety",
        /cluster reconciled chaos\/p1 twice at once/,
      ],
      [
        "a work queue whose depth gauge never comes back to 0 (workqueue_depth)",
        "provision",
        "crash",
        3,
        "depth-drift",
        "lost-work",
        /metrics: workqueue_depth\{"name":"cluster"\} reads \d+ once the run settled/,
      ],
      [
        "a work queue that never forgets a request's failures: its backoff does not start over after a success",
        "provision",
        "transient",
        16,
        "backoff-kept",
        "lost-work",
        /backoff: cluster retried chaos\/p1 after \d+ ms at its first failure since a reset, where a first failure waits 5 ms/,
      ],
      [
        "a poller forked outside the operator's scope outlives it: its fibers",
        "provision",
        "crash",
        3,
        "detached-poller",
        "leak",
        /fibers? of operator#0 still running after its scope closed/,
      ],
      [
        "the same poller's watch stays open on the server after its process ended",
        "provision",
        "crash",
        3,
        "detached-poller",
        "leak",
        /the management server holds 1 watch open for operator#0, whose process ended \(cluster\.x-k8s\.io\/clusters in chaos\)/,
      ],
      [
        "an informer store that keeps objects the server deleted (the reflector's store holds what its server holds)",
        "delete",
        "crash",
        1,
        "deletes-ignored",
        "informer",
        /informer chaoscontrolplanes \(chaoscontrolplanes\) holds chaos\/d1, which its server no longer has/,
      ],
      [
        "an informer store whose indexes keep the values of objects gone (its indexes agree with its objects)",
        "delete",
        "crash",
        2,
        "index-kept",
        "informer",
        /informer chaoscontrolplanes \(chaoscontrolplanes\) index owner keeps the value "fake-uid-\d+", which no object has/,
      ],
    ] as const)
      it.effect(
        `${what} (${oracle})`,
        () =>
          Effect.gen(function* () {
            const broken = yield* pinned(scenario, kind, at, mutant)
            const caught = broken.failures.filter((f) => f.oracle === oracle && expected.test(f.message))
            assert.isAbove(caught.length, 0, show(broken.failures))
            assert.include(caught[0]?.replay, `--mutant ${mutant}`)
            const real = yield* pinned(scenario, kind, at)
            assert.deepStrictEqual(real.failures, [], show(real.failures))
          }),
        60_000,
      )

    it.effect(
      "a missed delete event never resynced (final state)",
      () =>
        Effect.gen(function* () {
          const broken = yield* pinned("delete", "drop", 3, "no-resync")
          assert.isTrue(
            broken.failures.some((f) => f.oracle === "final-state" && f.message.includes('"clusters":"d1"')),
            show(broken.failures),
          )
          assert.isAbove(broken.fired.drop, 0)
          const real = yield* pinned("delete", "drop", 3)
          assert.deepStrictEqual(real.failures, [], show(real.failures))
        }),
      60_000,
    )
  })
})
