import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { ApiError } from "../kube/errors.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import type { ObservedReflector } from "../reflector/observer.ts"
import { ReflectorObserver } from "../reflector/observer.ts"
import { make as makeReflector, type ReflectorStatus } from "../reflector/reflector.ts"
import { type ReadonlyStore, Store } from "../reflector/store.ts"
import { InformerLedger, inconsistentIndexes, unfaithfulInformers } from "./informers.ts"

const cm = (name: string, rv: string, extra: Partial<KubeObject["metadata"]> = {}): KubeObject => ({
  metadata: { namespace: "a", name, resourceVersion: rv, ...extra },
})

const storeOf = (...objects: ReadonlyArray<KubeObject>) => {
  const store = new Store<KubeObject>()
  for (const o of objects) store.upsert(o)
  return store
}

const watching: ReflectorStatus = {
  phase: "Watching",
  resourceVersion: "9",
  synced: true,
  lists: 1,
  watches: 1,
  lastError: undefined,
}

/** A reflector as the ledger sees it, over a client that lists `items` (or refuses). */
const observed = (
  store: ReadonlyStore<KubeObject>,
  items: ReadonlyArray<KubeObject> | "refused",
  patch: Partial<ObservedReflector> & { readonly statusPatch?: Partial<ReflectorStatus> } = {},
): ObservedReflector => {
  const client = {
    listAll: () =>
      items === "refused"
        ? Effect.fail(new ApiError({ verb: "list", path: "/", message: "down", status: 503 }))
        : Effect.succeed({ items, resourceVersion: "9" }),
  } as unknown as KubeClientShape
  return {
    name: "settings",
    options: { resource: Resources.configMaps, namespace: "a" },
    client,
    store,
    status: () => ({ ...watching, ...patch.statusPatch }),
    undecodable: () => new Set(),
    decodes: () => true,
    ...patch,
  }
}

const check = (...reflectors: ReadonlyArray<ObservedReflector>) => {
  const ledger = new InformerLedger()
  for (const r of reflectors) ledger.started(r)
  return unfaithfulInformers(ledger)
}

describe("the informer oracle", () => {
  it.effect("passes a store that holds what its server holds", () =>
    Effect.gen(function* () {
      const objects = [cm("x", "3", { labels: { app: "web" } }), cm("y", "5")]
      assert.deepStrictEqual(yield* check(observed(storeOf(...objects), objects)), [])
    }),
  )

  it.effect("names what a store holds that its server does not, and the reverse", () =>
    Effect.gen(function* () {
      const store = storeOf(cm("gone", "2"), cm("old", "3"))
      const found = yield* check(observed(store, [cm("old", "4"), cm("new", "5")]))
      assert.deepStrictEqual(found, [
        "informer settings (configmaps, in a) holds a/gone, which its server no longer has",
        "informer settings (configmaps, in a) holds a/old at resourceVersion 3, its server at 4",
        "informer settings (configmaps, in a) misses a/new, which its server has",
      ])
    }),
  )

  it.effect("takes an object that does not decode as absent, and wants it listed as undecodable", () =>
    Effect.gen(function* () {
      const bad = cm("bad", "4")
      const decodes = (o: KubeObject) => o.metadata.name !== "bad"
      const kept = observed(storeOf(cm("x", "3")), [cm("x", "3"), bad], {
        decodes,
        undecodable: () => new Set(["a/bad"]),
      })
      assert.deepStrictEqual(yield* check(kept), [])
      const unlisted = observed(storeOf(cm("x", "3")), [cm("x", "3"), bad], { decodes })
      assert.deepStrictEqual(yield* check(unlisted), [
        "informer settings (configmaps, in a) does not list a/bad, which does not decode, as undecodable",
      ])
    }),
  )

  it.effect("reads the status: synced, watching, no older than what it holds", () =>
    Effect.gen(function* () {
      const objects = [cm("x", "12")]
      const found = yield* check(
        observed(storeOf(...objects), objects, {
          statusPatch: { synced: false, phase: "Waiting", lists: 0, watches: 0, resourceVersion: "9" },
        }),
      )
      assert.deepStrictEqual(found, [
        "informer settings (configmaps, in a) counts 0 list(s) and 0 watch(es) while watching",
        "informer settings (configmaps, in a) has never synced",
        "informer settings (configmaps, in a) is Waiting, not Watching",
        "informer settings (configmaps, in a) reports resourceVersion 9, older than a/x's 12 in its store",
      ])
      const one = (p: Partial<ReflectorStatus>) =>
        check(observed(storeOf(...objects), objects, { statusPatch: p }))
      assert.lengthOf(yield* one({ resourceVersion: "12", lists: 1, watches: 0 }), 1)
      assert.lengthOf(yield* one({ resourceVersion: "12", lists: 0, watches: 1 }), 1)
      assert.deepStrictEqual(yield* one({ resourceVersion: "12" }), [])
      assert.deepStrictEqual(yield* one({ resourceVersion: "100" }), [], "compared as numbers, not text")
      for (const opaque of ["opaque", "x9", "9x"])
        assert.deepStrictEqual(yield* one({ resourceVersion: opaque }), [], `${opaque} is not ordered`)
      assert.lengthOf(yield* one({ resourceVersion: "10" }), 1, "10 is older than 12")
      const odd = [cm("x", "x12"), cm("y", "12y")]
      const held = yield* check(observed(storeOf(...odd), odd, { statusPatch: { resourceVersion: "1" } }))
      assert.deepStrictEqual(held, [], "objects' versions that are not numbers are not ordered")
    }),
  )

  it.effect("leaves a reflector its onError hook stopped to its owner; says when a server refuses", () =>
    Effect.gen(function* () {
      const stopped = observed(storeOf(cm("x", "3")), [], {
        statusPatch: { stopped: true, phase: "Waiting" },
      })
      assert.deepStrictEqual(yield* check(stopped), [])
      assert.deepStrictEqual(yield* check(observed(storeOf(), "refused")), [
        "informer settings (configmaps, in a) cannot be checked: its server refuses the list (ApiError)",
      ])
    }),
  )

  it.effect("says when the process told of no running reflector", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* check(), ["informer: the live process told of no running reflector"])
    }),
  )

  it.effect("names each informer by its resource, namespace and selectors; lists each line once", () =>
    Effect.gen(function* () {
      const options = {
        resource: Resources.secrets,
        labelSelector: "app=web",
        fieldSelector: "type=Opaque",
      }
      const r = observed(storeOf(), [cm("x", "3")], { name: "s", options })
      assert.deepStrictEqual(yield* check(r, r), [
        "informer s (secrets, labels app=web, fields type=Opaque) misses a/x, which its server has",
      ])
    }),
  )

  it("counts the reflectors it was told of, and forgets the stopped ones but for their lists", () => {
    const ledger = new InformerLedger()
    const a = observed(storeOf(), [], { name: "a" })
    const b = observed(storeOf(), [], { name: "b", statusPatch: { lists: 3 } })
    ledger.started(b)
    ledger.started(a)
    ledger.stopped(b)
    assert.deepStrictEqual(ledger.live(), [a])
    assert.deepStrictEqual(ledger.stillRunning(), ["informer a (configmaps, in a)"])
    assert.deepStrictEqual(ledger.lists(), [
      "informer a (configmaps, in a): 1 list(s)",
      "informer b (configmaps, in a): 3 list(s)",
    ])
  })
})

describe("the index check", () => {
  const labelled = cm("x", "3", { labels: { app: "web" }, ownerReferences: [ownerRef("u1")] })

  it("passes a store whose indexes are its objects'", () => {
    assert.deepStrictEqual(inconsistentIndexes(storeOf(labelled, cm("y", "4"))), [])
    const byTeam = { team: (o: KubeObject) => [o.metadata.labels?.team ?? "none"] }
    const store = new Store<KubeObject>(byTeam)
    store.upsert(labelled)
    assert.deepStrictEqual(inconsistentIndexes(store, byTeam), [])
  })

  it("names every index, value and accessor that disagrees", () => {
    const real = storeOf(labelled)
    const lying: ReadonlyStore<KubeObject> = {
      ...real,
      size: () => 2,
      keys: () => ["a/x", "a/z"],
      get: () => undefined,
      byIndex: (index, value) => (index === "label" ? [] : real.byIndex(index, value)),
      indexValues: (index) => (index === "owner" ? ["u2"] : real.indexValues(index)),
      byNamespace: () => [],
    }
    assert.deepStrictEqual(inconsistentIndexes(lying), [
      "size 2 with 1 objects",
      "keys are not its objects' keys",
      "get(a/x) is not its object",
      'the accessor of index namespace under "a" disagrees with the index',
      'index owner does not list the value "u1"',
      'index owner keeps the value "u2", which no object has',
      'index label under "app=web" lists [], not [a/x]',
    ])
  })

  it("compares keys as sets: a store may list them in any order", () => {
    const real = storeOf(labelled, cm("y", "4", { labels: { app: "web" } }))
    const reordered: ReadonlyStore<KubeObject> = {
      ...real,
      keys: () => [...real.keys()].reverse(),
      byIndex: (index, value) => [...real.byIndex(index, value)].reverse(),
    }
    assert.deepStrictEqual(inconsistentIndexes(reordered), [])
  })

  it("reads labels by key and value, split at the first '='", () => {
    const store = storeOf(cm("x", "3", { labels: { "a.b/c": "d=e" } }))
    assert.deepStrictEqual(inconsistentIndexes(store), [])
    const swapped: ReadonlyStore<KubeObject> = { ...store, byLabel: (k, v) => store.byLabel(v, k) }
    assert.deepStrictEqual(inconsistentIndexes(swapped), [
      'the accessor of index label under "a.b/c=d=e" disagrees with the index',
    ])
  })
})

describe("a reflector told to its observer", () => {
  it.effect("is live while its scope is open, agrees with its server, and is gone once it closes", () =>
    Effect.gen(function* () {
      const server = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(server)
      yield* client.create(Resources.namespaces, { metadata: { name: "a" } })
      yield* client.create(Resources.configMaps, cm("x", ""))
      yield* client.create(Resources.namespaces, { metadata: { name: "b" } })
      yield* client.create(Resources.configMaps, { metadata: { namespace: "b", name: "elsewhere" } })
      const ledger = new InformerLedger()
      const scope = yield* Scope.make()
      const reflector = yield* makeReflector(client, { resource: Resources.configMaps, namespace: "a" }).pipe(
        Scope.provide(scope),
        Effect.provideService(ReflectorObserver, ledger),
      )
      yield* reflector.waitForSync
      yield* client.create(Resources.configMaps, cm("y", ""))
      for (let i = 0; i < 100 && reflector.store.get("a/y") === undefined; i++) yield* Effect.yieldNow
      assert.lengthOf(ledger.live(), 1)
      assert.deepStrictEqual(yield* unfaithfulInformers(ledger), [])
      assert.isTrue(ledger.live()[0]?.decodes(cm("z", "1")))
      assert.deepStrictEqual([...(ledger.live()[0]?.undecodable() ?? [])], [])
      yield* Scope.close(scope, Result.void as never)
      assert.deepStrictEqual(ledger.live(), [])
      assert.deepStrictEqual(ledger.lists(), ["informer configmaps (configmaps, in a): 1 list(s)"])
    }),
  )
})

function ownerRef(uid: string) {
  return { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid }
}
