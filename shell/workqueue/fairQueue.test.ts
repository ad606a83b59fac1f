/**
 * FairQueue's round-robin promise over arbitrary interleavings of adds, pops and dones: once a
 * cluster has had a turn (or has just become ready), every other cluster that is ready at that
 * moment gets its turn before it gets another. A cluster that becomes ready mid-round therefore
 * waits for the clusters already waiting, and a flooding cluster gets one turn per round.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { FairQueue } from "./fairQueue.ts"
import { ClusterName, makeRequest, type Request, requestKey } from "./request.ts"

type Op =
  | { readonly _tag: "add"; readonly cluster: number; readonly name: number }
  | { readonly _tag: "pop" }
  | { readonly _tag: "done"; readonly pick: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      _tag: fc.constant("add" as const),
      cluster: fc.integer({ min: 0, max: 5 }),
      name: fc.integer({ min: 0, max: 6 }),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ _tag: "pop" as const }) },
  { weight: 2, arbitrary: fc.record({ _tag: fc.constant("done" as const), pick: fc.nat() }) },
)

/** Runs the ops and checks the promise; returns what was popped, for the other checks. */
const run = (ops: ReadonlyArray<Op>): ReadonlyArray<Request> => {
  const q = new FairQueue()
  const processing: Array<Request> = []
  const popped: Array<Request> = []
  /** Clusters that must get a turn before the key cluster gets its next one. */
  const owed = new Map<string, Set<string>>()
  /** Ready clusters as the model sees them: clusters with queued requests. */
  const queued = new Map<string, Set<string>>()
  const readyClusters = () => [...queued].filter(([, keys]) => keys.size > 0).map(([c]) => c)
  const becomeReady = (cluster: string) =>
    owed.set(cluster, new Set(readyClusters().filter((c) => c !== cluster)))
  const enqueue = (r: Request) => {
    const keys = queued.get(r.cluster) ?? new Set<string>()
    if (keys.size === 0) becomeReady(r.cluster)
    keys.add(requestKey(r))
    queued.set(r.cluster, keys)
  }
  const inFlight = new Set<string>()
  const dirtyWhileProcessing = new Set<string>()
  for (const o of ops) {
    if (o._tag === "add") {
      const r = makeRequest({ namespace: "ns", name: `o${o.name}` }, ClusterName(`c${o.cluster}`))
      const key = requestKey(r)
      const outcome = q.add(r)
      if (inFlight.has(key)) {
        expect(outcome === "deferred").toBe(true)
        dirtyWhileProcessing.add(key)
      } else if (queued.get(r.cluster)?.has(key)) {
        expect(outcome).toBe("deduplicated")
      } else {
        expect(outcome).toBe("queued")
        enqueue(r)
      }
    } else if (o._tag === "pop") {
      const r = q.pop()
      const ready = readyClusters()
      if (r === undefined) {
        expect(ready, "pop() returned nothing while clusters were ready").toEqual([])
        continue
      }
      const waiting = [...(owed.get(r.cluster) ?? [])].filter((c) => ready.includes(c))
      expect(waiting, `${r.cluster} got a turn before ${waiting.join(", ")}`).toEqual([])
      const keys = queued.get(r.cluster)
      expect(keys?.has(requestKey(r)), "popped a request that was not queued").toBe(true)
      keys?.delete(requestKey(r))
      for (const set of owed.values()) set.delete(r.cluster)
      // After its turn the cluster waits for every other cluster that is ready now.
      if ((keys?.size ?? 0) > 0) becomeReady(r.cluster)
      else owed.delete(r.cluster)
      inFlight.add(requestKey(r))
      processing.push(r)
      popped.push(r)
    } else if (processing.length > 0) {
      const [r] = processing.splice(o.pick % processing.length, 1)
      if (r === undefined) continue
      const key = requestKey(r)
      inFlight.delete(key)
      const again = q.done(r)
      expect(again).toBe(dirtyWhileProcessing.has(key))
      if (again) {
        dirtyWhileProcessing.delete(key)
        enqueue(r)
      }
    }
  }
  expect(q.length).toBe([...queued.values()].reduce((n, s) => n + s.size, 0))
  expect(q.clusterCount).toBe(readyClusters().length)
  for (const [cluster, keys] of queued) expect(q.clusterLength(cluster)).toBe(keys.size)
  expect(q.processingCount).toBe(inFlight.size)
  for (const r of processing) expect(q.isProcessing(r)).toBe(true)
  for (const r of popped) if (!inFlight.has(requestKey(r))) expect(q.isProcessing(r)).toBe(false)
  return popped
}

describe("FairQueue", () => {
  it("serves clusters round-robin under any interleaving: no cluster gets a second turn while another ready cluster waits, and a cluster that becomes ready mid-round waits for those already waiting", () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 200 }), (ops) => {
        run(ops)
      }),
      { numRuns: 400 },
    )
  })

  it("an item added while it is processed is deferred, however often, and queued once on done", () => {
    const q = new FairQueue()
    const x = makeRequest({ namespace: "ns", name: "x" }, ClusterName("a"))
    expect(q.add(x)).toBe("queued")
    expect(q.add(x)).toBe("deduplicated")
    expect(q.pop()).toEqual(x)
    expect([q.add(x), q.add(x)]).toEqual(["deferred", "deferred"])
    expect(q.length).toBe(0)
    expect(q.done(x)).toBe(true)
    expect(q.length).toBe(1)
    expect(q.pop()).toEqual(x)
    expect(q.pop()).toBeUndefined()
    expect(q.done(x)).toBe(false)
    expect(q.done(x)).toBe(false)
  })

  it("a cluster that becomes ready while the cursor is mid-round is served after the clusters already waiting", () => {
    const q = new FairQueue()
    const r = (c: string, n: string) => makeRequest({ namespace: "ns", name: n }, ClusterName(c))
    for (const c of ["a", "b", "c"]) {
      q.add(r(c, "1"))
      q.add(r(c, "2"))
    }
    expect(q.pop()?.cluster).toBe("a") // the cursor moves to b
    q.add(r("d", "1"))
    expect([q.pop(), q.pop(), q.pop(), q.pop()].map((x) => x?.cluster)).toEqual(["b", "c", "a", "d"])
  })
})
