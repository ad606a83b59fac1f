/**
 * Model-based tests of the IPAM controller over sequences (seed 004): Clusters
 * created, marked for deletion, removed (the garbage collector following), re-created, the
 * reconcile annotation, operator restarts, time passing, in any interleaving (`fc.commands`).
 * The system under test is the controller on the pure core in the simulated world of
 * `sim/ipamWorld.ts`; after every command the test checks, on its own:
 *
 * - the allocated CIDRs are pairwise disjoint (or nested within one Cluster's rule) and inside
 *   their parents, in IPv4 and IPv6;
 * - every CIDR recorded in annotations and ClusterConfigs is allocated, and nothing else is;
 * - a restart (state rebuilt from annotations and ClusterConfigs only) loses nothing and changes
 *   nothing;
 * - a full parent never throws: the reconcile reports it (ipam.reconcile#7).
 *
 * @module
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  allocations,
  type Cidr,
  cidrOf,
  contains,
  overlaps,
  validateIpamConfig,
} from "../../core/ipam/index.ts"
import { IpamWorld } from "../../sim/ipamWorld.ts"

const config = (() => {
  const v = validateIpamConfig({
    spec: {
      parentCIDRs: { v4: ["10.1.0.0/22"], v4b: ["10.2.0.0/23"], v6: ["fd00:1::/61"] },
      injectionRules: [
        {
          id: "nodes",
          matchPurposes: [{ operator: "ContainsAny", values: ["mcp", "workload"] }],
          injections: [
            { id: "net", path: ".spec.networking.nodes", parents: ["v4", "v4b"], subnetSize: 24 },
            { path: ".spec.networking.pods", parents: ["net"], subnetSize: 26 },
            { path: ".spec.networking.v6", parents: ["v6"], subnetSize: 64 },
          ],
        },
        {
          id: "mcp-extra",
          matchLabels: { tier: "gold" },
          injections: [{ path: "/spec/extra", parents: [], subnetSize: 28 }],
        },
      ],
    },
  })
  if (!("config" in v)) throw new Error(JSON.stringify(v.errors))
  return v.config
})()
/** Other configs to change to: parents moved and added (never overlapping within one config), rules changed. */
const variants = (() => {
  const make = (spec: unknown) => {
    const v = validateIpamConfig({ spec })
    if (!("config" in v)) throw new Error(JSON.stringify(v.errors))
    return v.config
  }
  const nodes = (parents: ReadonlyArray<string>, size = 24) => ({
    id: "nodes",
    matchPurposes: [{ operator: "ContainsAny", values: ["mcp", "workload"] }],
    injections: [
      { id: "net", path: ".spec.networking.nodes", parents, subnetSize: size },
      { path: ".spec.networking.pods", parents: ["net"], subnetSize: size + 2 },
      { path: ".spec.networking.v6", parents: ["v6"], subnetSize: 64 },
    ],
  })
  return [
    config,
    // v4 shrinks to a /23 inside the old /22 (its other CIDRs stay, parentless) and a new parent joins
    make({
      parentCIDRs: { v4: ["10.1.0.0/23"], v4c: ["10.3.0.0/24"], v6: ["fd00:1::/61"] },
      injectionRules: [nodes(["v4", "v4c"], 25)],
    }),
    // the rules change: a new rule id for gold Clusters, the old ones untouched
    make({
      parentCIDRs: config.parentCIDRs,
      injectionRules: [
        nodes(["v4", "v4b"]),
        {
          id: "gold",
          matchLabels: { tier: "gold" },
          injections: [{ path: "/spec/gold", parents: ["v4b"], subnetSize: 27 }],
        },
      ],
    }),
  ]
})()
const PARENTS: ReadonlyArray<Cidr> = variants.flatMap((c) => Object.values(c.parentCIDRs).flat().map(cidrOf))

interface Model {
  readonly live: Set<string>
  generation: Map<string, number>
  /** Whether a rule selects the live Cluster of a name. */
  selected: Map<string, boolean>
  now: number
}

type Real = { world: IpamWorld; violations: Array<string> }

const NAMES = ["a", "b", "c", "d", "e", "f", "g"] as const

const check = (m: Model, r: Real) => {
  const w = r.world
  expect(r.violations, r.violations.join("\n")).toEqual([])
  const all = allocations(w.ipam).map((t) => ({ t, c: cidrOf(t) }))
  // disjoint or nested, and inside a parent
  for (const a of all) {
    expect(
      PARENTS.some((p) => contains(p, a.c)),
      `${a.t} lies within no parent`,
    ).toBe(true)
    for (const b of all) {
      if (a === b || !overlaps(a.c, b.c)) continue
      expect(contains(a.c, b.c) || contains(b.c, a.c), `${a.t} and ${b.t} overlap without nesting`).toBe(true)
    }
  }
  // exactly what the world records is allocated (nothing lost, nothing leaked)
  expect([...allocations(w.ipam)].sort()).toEqual([...w.recorded()].sort())
  // a Cluster that exists long enough and matches holds its CIDRs, or a parent is full
  void m
}

class Create implements fc.Command<Model, Real> {
  readonly name: string
  readonly purposes: ReadonlyArray<string>
  readonly gold: boolean
  constructor(name: string, purposes: ReadonlyArray<string>, gold: boolean) {
    this.name = name
    this.purposes = purposes
    this.gold = gold
  }
  check = (m: Readonly<Model>) => !m.live.has(this.name)
  run(m: Model, r: Real) {
    const gen = (m.generation.get(this.name) ?? 0) + 1
    m.generation.set(this.name, gen)
    m.live.add(this.name)
    m.selected.set(this.name, this.gold || this.purposes.some((p) => p === "mcp" || p === "workload"))
    r.world.createCluster(
      `${this.name}-${gen}`,
      `uid-${this.name}-${gen}`,
      this.purposes,
      this.gold ? { tier: "gold" } : {},
      m.now,
    )
    check(m, r)
  }
  toString = () => `create ${this.name} ${this.purposes.join("+")}${this.gold ? " gold" : ""}`
}

class Delete implements fc.Command<Model, Real> {
  readonly name: string
  readonly removeNow: boolean
  constructor(name: string, removeNow: boolean) {
    this.name = name
    this.removeNow = removeNow
  }
  check = (m: Readonly<Model>) => m.live.has(this.name)
  run(m: Model, r: Real) {
    const full = `${this.name}-${m.generation.get(this.name)}`
    r.world.requestDelete(full, m.now)
    if (this.removeNow) {
      m.live.delete(this.name)
      r.world.removeCluster(full, m.now)
    }
    check(m, r)
  }
  toString = () => `delete ${this.name}${this.removeNow ? " (removed)" : " (deletion timestamp only)"}`
}

class Remove implements fc.Command<Model, Real> {
  readonly name: string
  constructor(name: string) {
    this.name = name
  }
  check = (m: Readonly<Model>) => m.live.has(this.name)
  run(m: Model, r: Real) {
    m.live.delete(this.name)
    r.world.removeCluster(`${this.name}-${m.generation.get(this.name)}`, m.now)
    check(m, r)
  }
  toString = () => `remove ${this.name}`
}

class Annotate implements fc.Command<Model, Real> {
  readonly name: string
  constructor(name: string) {
    this.name = name
  }
  check = (m: Readonly<Model>) => m.live.has(this.name)
  run(m: Model, r: Real) {
    const full = `${this.name}-${m.generation.get(this.name)}`
    r.world.annotateReconcile(full, m.now)
    m.now += 1_000 // past the work queue's latency
    r.world.advance(m.now)
    // used up by the reconcile (ipam.trigger#3); a Cluster no rule selects is never reconciled (#12)
    const left = r.world.clusters.get(full)?.annotations["openmcp.cloud/operation"]
    expect(left).toBe(m.selected.get(this.name) === true ? undefined : "reconcile")
    check(m, r)
  }
  toString = () => `reconcile annotation on ${this.name}`
}

class Restart implements fc.Command<Model, Real> {
  check = () => true
  run(m: Model, r: Real) {
    const before = allocations(r.world.ipam)
    r.world.restart(m.now)
    // rebuilt from annotations and ClusterConfigs only: nothing lost, nothing changed
    expect(allocations(r.world.ipam)).toEqual(before)
    check(m, r)
  }
  toString = () => "restart"
}

class ChangeConfig implements fc.Command<Model, Real> {
  readonly variant: number
  constructor(variant: number) {
    this.variant = variant
  }
  check = () => true
  run(m: Model, r: Real) {
    r.world.changeConfig(variants[this.variant] as typeof config, m.now)
    check(m, r)
  }
  toString = () => `change the IPAMConfig to variant ${this.variant}`
}

class Wait implements fc.Command<Model, Real> {
  readonly ms: number
  constructor(ms: number) {
    this.ms = ms
  }
  check = () => true
  run(m: Model, r: Real) {
    m.now += this.ms
    r.world.advance(m.now)
    check(m, r)
  }
  toString = () => `wait ${this.ms} ms`
}

const name = fc.constantFrom(...NAMES)
const commands = [
  fc
    .tuple(name, fc.constantFrom(["workload"], ["mcp"], ["onboarding"], ["mcp", "workload"]), fc.boolean())
    .map(([n, p, g]) => new Create(n, p, g)),
  fc.tuple(name, fc.boolean()).map(([n, now]) => new Delete(n, now)),
  name.map((n) => new Remove(n)),
  name.map((n) => new Annotate(n)),
  fc.constant(new Restart()),
  fc.nat(variants.length - 1).map((v) => new ChangeConfig(v)),
  fc.integer({ min: 0, max: 5_000 }).map((ms) => new Wait(ms)),
]

const setup = (gcDelay: number, reconcileDelay: number) => () => {
  const violations: Array<string> = []
  const world = new IpamWorld(config, (c, check, msg) => violations.push(`${check} ${c}: ${msg}`), {
    gcDelay,
    reconcileDelay,
    refreshEvery: 7_000,
  })
  return {
    model: { live: new Set<string>(), generation: new Map(), selected: new Map(), now: 0 } as Model,
    real: { world, violations },
  }
}

describe("IPAM controller sequences (seed 004)", () => {
  it("any interleaving of Clusters created and deleted keeps the CIDRs disjoint, inside their parents, recorded and restorable", () => {
    fc.assert(
      fc.property(
        fc.commands(commands, { maxCommands: 60 }),
        fc.constantFrom(0, 1_000, 3_000),
        fc.constantFrom(0, 500),
        (cmds, gc, delay) => {
          fc.modelRun(setup(gc, delay), cmds)
        },
      ),
      { numRuns: 300 },
    )
  })

  it("a config change keeps the CIDRs of a removed parent blocking, re-reconciles the selected Clusters (ipam.trigger#6) and serves new Clusters from the new parents", () => {
    const { real } = setup(0, 0)()
    const w = real.world
    const nodesOf = (name: string) =>
      (
        JSON.parse(
          w.clusters.get(name)?.annotations["ipam.gardener.clusters.openmcp.cloud/applied-injection-rules"] ??
            "{}",
        ) as Record<string, Record<string, string>>
      ).nodes?.["/spec/networking/nodes"]
    for (let i = 0; i < 4; i++) w.createCluster(`a${i}`, `ua${i}`, ["workload"], {}, i)
    expect([0, 1, 2, 3].map((i) => nodesOf(`a${i}`))).toEqual([
      "10.1.0.0/24",
      "10.1.1.0/24",
      "10.1.2.0/24",
      "10.1.3.0/24",
    ])
    const before = w.stats.rows["ipam.trigger#6"] ?? 0
    w.changeConfig(variants[1] as typeof config, 10)
    expect(w.stats.rows["ipam.trigger#6"]).toBe(before + 1)
    // 10.1.0.0/23 is held by a0 and a1 (now parentless): the next /25 comes from 10.3.0.0/24
    w.createCluster("b", "ub", ["workload"], {}, 20)
    expect(nodesOf("b")).toBe("10.3.0.0/25")
    w.removeCluster("a0", 30)
    w.advance(10_000)
    w.createCluster("c", "uc", ["workload"], {}, 10_001)
    expect(nodesOf("c")).toBe("10.1.0.0/25")
    w.restart(10_002)
    expect(real.violations).toEqual([])
  })

  it("a full parent is reported by ipam.reconcile#7, and CIDRs come back once a Cluster is gone", () => {
    const { real } = setup(0, 0)()
    const w = real.world
    // v4 (/22) and v4b (/23) hold six /24s: the seventh Cluster waits
    for (let i = 0; i < 7; i++) w.createCluster(`x${i}`, `u${i}`, ["workload"], {}, i)
    expect(real.violations).toEqual([])
    expect(w.stats.rows["ipam.reconcile#7"]).toBe(1)
    expect(
      w.clusters.get("x6")?.annotations["ipam.gardener.clusters.openmcp.cloud/applied-injection-rules"],
    ).toBeUndefined()
    w.removeCluster("x0", 10)
    w.advance(10_000)
    w.annotateReconcile("x6", 10_001)
    expect(
      JSON.parse(
        w.clusters.get("x6")?.annotations["ipam.gardener.clusters.openmcp.cloud/applied-injection-rules"] ??
          "{}",
      ),
    ).toEqual({
      nodes: {
        "/spec/networking/nodes": "10.1.0.0/24",
        "/spec/networking/pods": "10.1.0.0/26",
        "/spec/networking/v6": "fd00:1::/64",
      },
    })
    expect(real.violations).toEqual([])
  })
})
