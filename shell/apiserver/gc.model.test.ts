/**
 * The garbage collector against a model of what kube-controller-manager's collector leaves behind
 * once it has settled (kubernetes.io "Garbage Collection"): over random owner graphs, cycles
 * included, with random finalizers of the objects' own and every propagation policy.
 *
 * The model: with Orphan only the deleted owner goes and its dependents lose their references to
 * it; otherwise the dead are the least fixpoint of "the deleted owner, and every object with owner
 * references all of which are dead", and survivors lose their references to the dead.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import fc from "fast-check"
import { mergePatch } from "../kube/patch.ts"
import { controllerReference, type KubeObject } from "../kube/resource.ts"
import { widgets } from "./fixtures.ts"
import { ForegroundFinalizer, type PropagationPolicy } from "./objects.ts"
import { FakeApiServer } from "./server.ts"

const Hold = "example.com/hold"
const name = (i: number) => `o${i}`
const key = (i: number) => ({ namespace: "default", name: name(i) })

interface Graph {
  readonly n: number
  /** owners[i]: the owners of object i, each with blockOwnerDeletion. */
  readonly owners: ReadonlyArray<ReadonlyArray<{ readonly owner: number; readonly block: boolean }>>
  readonly held: ReadonlyArray<boolean>
  readonly root: number
  readonly policy: PropagationPolicy | undefined
}

const graph: fc.Arbitrary<Graph> = fc.integer({ min: 1, max: 7 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    owners: fc.array(
      fc.uniqueArray(fc.record({ owner: fc.nat(n - 1), block: fc.boolean() }), {
        maxLength: 3,
        selector: (o) => o.owner,
      }),
      { minLength: n, maxLength: n },
    ),
    held: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    root: fc.nat(n - 1),
    policy: fc.constantFrom<PropagationPolicy | undefined>(undefined, "Background", "Foreground", "Orphan"),
  }),
)

/** The owners of each object without self-references (an object cannot own itself). */
const ownersOf = (g: Graph, i: number) => (g.owners[i] ?? []).filter((o) => o.owner !== i)

/** What the model expects: each survivor with its owners' names, in order. */
const expected = (g: Graph): Record<string, ReadonlyArray<string>> => {
  const dead = new Set([g.root])
  if (g.policy !== "Orphan") {
    for (let changed = true; changed; ) {
      changed = false
      for (let i = 0; i < g.n; i++) {
        const owners = ownersOf(g, i)
        if (!dead.has(i) && owners.length > 0 && owners.every((o) => dead.has(o.owner))) {
          dead.add(i)
          changed = true
        }
      }
    }
  }
  const out: Record<string, ReadonlyArray<string>> = {}
  for (let i = 0; i < g.n; i++) {
    if (!dead.has(i))
      out[name(i)] = ownersOf(g, i)
        .filter((o) => !dead.has(o.owner))
        .map((o) => name(o.owner))
  }
  return out
}

/** Builds the graph on a server with garbage collection, deletes the root, releases the holds. */
const run = (g: Graph) =>
  Effect.gen(function* () {
    const fake = yield* FakeApiServer.make({ garbageCollection: true })
    const api = fake.client()
    const created: Array<KubeObject> = []
    for (let i = 0; i < g.n; i++) {
      created.push(
        yield* api.create(widgets, {
          metadata: { ...key(i), ...(g.held[i] ? { finalizers: [Hold] } : {}) },
        }),
      )
    }
    for (let i = 0; i < g.n; i++) {
      const refs = ownersOf(g, i).map((o) => controllerReference(created[o.owner] as KubeObject, o.block))
      if (refs.length > 0)
        yield* api.patch(widgets, key(i), mergePatch({ metadata: { ownerReferences: refs } }))
    }
    assert.strictEqual(fake.objects(widgets).length, g.n, "existing owners keep every dependent")
    yield* api.delete(widgets, key(g.root), { propagationPolicy: g.policy })
    // Release the holds of whatever is being deleted until nothing is; each round releases one.
    for (let round = 0; ; round++) {
      const deleting = fake.objects(widgets).filter((o) => o.metadata.deletionTimestamp !== undefined)
      const held = deleting.filter((o) => o.metadata.finalizers?.includes(Hold))
      if (held.length === 0) {
        assert.deepStrictEqual(
          deleting.map((o) => o.metadata.name),
          [],
          "nothing is left waiting once every hold is released",
        )
        break
      }
      assert.isBelow(round, g.n + 1, "every round releases an object")
      // One at a time: releasing one may change the others (the collector writes on it).
      const o = held[0] as KubeObject
      const finalizers = (o.metadata.finalizers ?? []).filter((f) => f !== Hold)
      yield* api.patch(
        widgets,
        { namespace: "default", name: o.metadata.name ?? "" },
        mergePatch({ metadata: { resourceVersion: o.metadata.resourceVersion, finalizers } }),
      )
    }
    const actual: Record<string, ReadonlyArray<string>> = {}
    for (const o of fake.objects(widgets)) {
      assert.notInclude(o.metadata.finalizers ?? [], ForegroundFinalizer)
      actual[o.metadata.name ?? ""] = (o.metadata.ownerReferences ?? []).map((r) => r.name)
    }
    return actual
  })

describe("garbage collection model", () => {
  it("leaves what kube-controller-manager's collector leaves, for every policy, graph and hold", () => {
    fc.assert(
      fc.property(graph, (g) => {
        const actual = Effect.runSync(run(g))
        assert.deepStrictEqual(actual, expected(g))
      }),
      { numRuns: 400 },
    )
  })

  it("the model is not trivial: each policy keeps and collects objects in some graph", () => {
    const chain: Graph = {
      n: 5,
      owners: [
        [],
        [{ owner: 0, block: true }],
        [{ owner: 1, block: false }],
        [
          { owner: 0, block: true },
          { owner: 4, block: true },
        ],
        [],
      ],
      held: [false, false, false, false, false],
      root: 0,
      policy: "Foreground",
    }
    assert.deepStrictEqual(expected(chain), { o3: ["o4"], o4: [] })
    assert.deepStrictEqual(expected({ ...chain, policy: "Orphan" }), {
      o1: [],
      o2: ["o1"],
      o3: ["o4"],
      o4: [],
    })
  })
})
