import fc from "fast-check"
import { assert, describe, it } from "vitest"
import { acquirable, assignment, liveMembers, observe, ownerOf, type PeerLease, plan } from "./rendezvous.ts"

const ids = (prefix: string, max: number) =>
  fc
    .uniqueArray(fc.integer({ min: 0, max: 999 }), { minLength: 1, maxLength: max })
    .map((xs) => xs.map((x) => `${prefix}${x}`))

describe("rendezvous assignment", () => {
  it("is complete and disjoint: every cluster has exactly one owner, a member", () =>
    fc.assert(
      fc.property(ids("c", 60), ids("r", 8), (clusters, members) => {
        const a = assignment(clusters, members)
        assert.strictEqual(a.size, clusters.length)
        for (const c of clusters) assert.include(members, a.get(c))
      }),
    ))

  it("does not depend on the order of the members", () =>
    fc.assert(
      fc.property(ids("c", 40), ids("r", 8), (clusters, members) => {
        const reversed = [...members].reverse()
        for (const c of clusters) assert.strictEqual(ownerOf(c, members), ownerOf(c, reversed))
      }),
    ))

  it("moves only the leaving replica's clusters when a replica leaves", () =>
    fc.assert(
      fc.property(ids("c", 60), ids("r", 8), fc.nat(), (clusters, members, pick) => {
        const gone = members[pick % members.length] as string
        const before = assignment(clusters, members)
        const after = assignment(
          clusters,
          members.filter((m) => m !== gone),
        )
        for (const c of clusters) if (before.get(c) !== gone) assert.strictEqual(after.get(c), before.get(c))
      }),
    ))

  it("moves clusters only to the joining replica when one joins", () =>
    fc.assert(
      fc.property(ids("c", 60), ids("r", 8), (clusters, members) => {
        const joining = "joiner"
        const before = assignment(clusters, members)
        const after = assignment(clusters, [...members, joining])
        for (const c of clusters)
          if (after.get(c) !== before.get(c)) assert.strictEqual(after.get(c), joining)
      }),
    ))

  it("spreads clusters over replicas (each of 4 replicas gets 15-35% of 1,000 clusters)", () => {
    const clusters = Array.from({ length: 1000 }, (_, i) => `cluster-${i}`)
    const members = ["a", "b", "c", "d"]
    const counts = new Map<string, number>()
    for (const o of assignment(clusters, members).values()) counts.set(o, (counts.get(o) ?? 0) + 1)
    for (const m of members) {
      const n = counts.get(m) ?? 0
      assert.isAtLeast(n, 150, m)
      assert.isAtMost(n, 350, m)
    }
  })
})

describe("shard protocol decisions", () => {
  it("observe keeps the time a record was first seen, and liveMembers expires peers by the observer's clock", () => {
    const lease = (identity: string, record: string): PeerLease => ({
      identity,
      record,
      leaseDurationMillis: 15_000,
      view: undefined,
    })
    let obs = observe(new Map(), [lease("a", "1"), lease("b", "1")], 0)
    obs = observe(obs, [lease("a", "2"), lease("b", "1")], 10_000)
    const leases = [lease("a", "2"), lease("b", "1")]
    assert.deepStrictEqual(liveMembers("me", true, leases, obs, 14_999), ["a", "b", "me"])
    assert.deepStrictEqual(liveMembers("me", true, leases, obs, 15_000), ["a", "me"], "b expired after 15 s")
    assert.deepStrictEqual(liveMembers("me", false, leases, obs, 15_000), ["a"])
  })

  /**
   * A model of replicas running the protocol over one linearizable store of Leases, in any
   * interleaving of their two steps, joins and kills: no cluster is ever engaged by two replicas,
   * and once every replica has run a round, every cluster is engaged by exactly its owner.
   */
  it("never engages a cluster on two replicas, in any interleaving; converges to the assignment", () => {
    type Cmd =
      | { readonly _tag: "publish"; readonly r: number }
      | { readonly _tag: "acquire"; readonly r: number }
      | { readonly _tag: "join" }
      | { readonly _tag: "kill"; readonly r: number }
    const cmd: fc.Arbitrary<Cmd> = fc.oneof(
      { weight: 5, arbitrary: fc.nat(9).map((r): Cmd => ({ _tag: "publish", r })) },
      { weight: 5, arbitrary: fc.nat(9).map((r): Cmd => ({ _tag: "acquire", r })) },
      { weight: 1, arbitrary: fc.constant<Cmd>({ _tag: "join" }) },
      { weight: 1, arbitrary: fc.nat(9).map((r): Cmd => ({ _tag: "kill", r })) },
    )
    fc.assert(
      fc.property(
        ids("c", 20),
        fc.integer({ min: 1, max: 3 }),
        fc.array(cmd, { maxLength: 80 }),
        (clusters, start, cmds) => {
          interface Replica {
            readonly id: string
            engaged: Set<string>
            published: ReadonlyArray<string> | undefined
          }
          /** The store: each live replica's Lease and its published view. */
          const store = new Map<string, ReadonlyArray<string> | undefined>()
          const replicas: Array<Replica> = []
          let next = 0
          const join = () => {
            const r: Replica = { id: `r${next++}`, engaged: new Set(), published: undefined }
            replicas.push(r)
            store.set(r.id, undefined)
          }
          for (let i = 0; i < start; i++) join()
          const leases = (): ReadonlyArray<PeerLease> =>
            [...store.entries()].map(([identity, view]) => ({
              identity,
              record: "x",
              leaseDurationMillis: 1,
              view,
            }))
          const live = () => [...store.keys()].sort()
          const publish = (r: Replica) => {
            const p = plan(r.id, live(), [...r.engaged])
            for (const c of p.release) r.engaged.delete(c)
            store.set(r.id, p.view)
            r.published = p.view
          }
          const acquire = (r: Replica) => {
            if (r.published === undefined) return
            for (const c of acquirable(r.id, r.published, clusters, [...r.engaged], live(), leases()))
              r.engaged.add(c)
          }
          const check = () => {
            const holders = new Map<string, string>()
            for (const r of replicas)
              for (const c of r.engaged) {
                const other = holders.get(c)
                assert.isUndefined(other, `${c} engaged by ${other} and ${r.id}`)
                holders.set(c, r.id)
              }
          }
          // warm start: the first replicas have settled before anything happens
          for (const r of replicas) publish(r)
          for (const r of replicas) acquire(r)
          check()
          for (const c of cmds) {
            if (c._tag === "join") join()
            else if (replicas.length > 0) {
              // the newest replica is picked more often (joins then act at once)
              const r = (
                c.r >= 5 ? replicas[replicas.length - 1] : replicas[c.r % replicas.length]
              ) as Replica
              if (c._tag === "publish") publish(r)
              else if (c._tag === "acquire") acquire(r)
              else {
                // a killed replica's engagements end with it; its Lease expires
                replicas.splice(replicas.indexOf(r), 1)
                store.delete(r.id)
              }
            }
            check()
          }
          for (const r of replicas) publish(r)
          for (const r of replicas) acquire(r)
          check()
          const expected = assignment(clusters, live())
          for (const r of replicas) for (const c of r.engaged) assert.strictEqual(expected.get(c), r.id)
          if (replicas.length > 0)
            assert.strictEqual(
              replicas.reduce((n, r) => n + r.engaged.size, 0),
              clusters.length,
              "every cluster engaged once",
            )
        },
      ),
    )
  })
})
