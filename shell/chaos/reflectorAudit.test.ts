import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { type EventHandler, make, type Reflector } from "../reflector/reflector.ts"
import { type IndexFunc, Store } from "../reflector/store.ts"
import { makeReflectorAudit } from "./reflectorAudit.ts"

const cm = (name: string, rv: string, namespace = "default"): KubeObject => ({
  metadata: { name, namespace, resourceVersion: rv },
  data: {},
})
const settle = Effect.repeat(Effect.yieldNow, { times: 50 })

/**
 * A reflector as its audit sees it, run by hand: `tell` changes the store and tells the handlers
 * what the test says (so a test can play a reflector that breaks its promises); `keep` leaves a
 * closed subscription's handler registered.
 */
const handMade = (options: {
  readonly keep?: boolean
  readonly indexers?: Record<string, IndexFunc<KubeObject>>
}) => {
  const store = new Store<KubeObject>(options.indexers)
  const handlers = new Set<EventHandler<KubeObject>>()
  const reflector = {
    store,
    subscribe: (h: EventHandler<KubeObject>): Effect.Effect<void, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.andThen(
          Effect.sync(() => handlers.add(h)),
          Effect.forEach(store.list(), (object) => h({ _tag: "Added", object }), { discard: true }),
        ),
        () => Effect.sync(() => options.keep === true || handlers.delete(h)),
      ),
  } as unknown as Reflector<KubeObject>
  const tell = (events: ReadonlyArray<Parameters<EventHandler<KubeObject>>[0]>) =>
    Effect.forEach(events, (e) => Effect.forEach([...handlers], (h) => h(e), { discard: true }), {
      discard: true,
    })
  return { store, handlers, reflector, tell }
}

describe("reflector audit", () => {
  it.effect(
    "a real reflector through creates, deletes and a relist after a compaction keeps every promise",
    () =>
      Effect.gen(function* () {
        const fake = yield* FakeApiServer.make()
        const api = fake.client()
        const client = yield* makeMemoryClient(fake)
        const reports: Array<string> = []
        const audit = makeReflectorAudit("r", (m) => reports.push(m))
        yield* api.create(Resources.configMaps, cm("a", ""))
        const r = yield* make(client, { resource: Resources.configMaps, handlers: [audit.handler] })
        yield* r.waitForSync
        yield* api.create(Resources.configMaps, cm("b", "", "other"))
        yield* settle
        yield* audit.check(r)
        fake.stop()
        yield* settle
        fake.start()
        yield* api.delete(Resources.configMaps, { namespace: "default", name: "a" })
        fake.compact()
        // The reflector is backing off; its relist then drops "a" and tells it as Deleted.
        for (let i = 0; i < 4; i++) {
          yield* TestClock.adjust("1 second")
          yield* settle
        }
        yield* audit.check(r)
        assert.deepStrictEqual(r.store.keys(), ["other/b"])
        assert.deepStrictEqual(reports, [])
      }).pipe(Effect.scoped),
  )

  it.effect("sees a relist that drops an object without telling Deleted", () =>
    Effect.gen(function* () {
      const reports: Array<string> = []
      const audit = makeReflectorAudit("r", (m) => reports.push(m))
      const { store, handlers, reflector, tell } = handMade({})
      handlers.add(audit.handler)
      store.upsert(cm("a", "1"))
      yield* tell([{ _tag: "Added", object: cm("a", "1") }])
      yield* audit.check(reflector)
      assert.deepStrictEqual(reports, [])
      store.replace([])
      yield* audit.check(reflector)
      assert.deepStrictEqual(reports, [
        "reflector r told its handlers of default/a at 1, its store holds undefined",
      ])
    }),
  )

  it.effect("sees changes told out of order, and a handler told of changes after its scope closed", () =>
    Effect.gen(function* () {
      const reports: Array<string> = []
      const audit = makeReflectorAudit("r", (m) => reports.push(m))
      const { store, handlers, reflector, tell } = handMade({ keep: true })
      handlers.add(audit.handler)
      store.upsert(cm("a", "2"))
      yield* tell([
        { _tag: "Deleted", object: cm("x", "1") },
        { _tag: "Added", object: cm("a", "1") },
        { _tag: "Updated", old: cm("a", "0"), object: cm("a", "2") },
      ])
      yield* audit.check(reflector)
      yield* tell([{ _tag: "Added", object: cm("a", "2") }])
      assert.deepStrictEqual(reports, [
        "reflector r told its handlers Deleted of default/x, which they never had",
        "reflector r told its handlers Updated of default/a from 0, not from 1",
        "reflector r told its handlers Added of default/a, which they had",
        "reflector r told a handler of Added after its subscription's scope closed",
      ])
    }),
  )

  it.effect("sees a namespace or owner index that does not list the store's objects", () =>
    Effect.gen(function* () {
      const reports: Array<string> = []
      const audit = makeReflectorAudit("r", (m) => reports.push(m))
      const { store, handlers, reflector, tell } = handMade({
        indexers: { namespace: () => [], owner: () => ["nobody"] },
      })
      handlers.add(audit.handler)
      store.upsert(cm("a", "1"))
      yield* tell([{ _tag: "Added", object: cm("a", "1") }])
      yield* audit.check(reflector)
      assert.deepStrictEqual(reports, [
        'reflector r lists [] in namespace "default", its store holds [default/a] there',
        'reflector r lists owners ["nobody"], its objects have []',
      ])
    }),
  )
})
