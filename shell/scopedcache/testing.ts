/**
 * Fixtures of the scoped cache's tests: a cache over the in-memory API server with four
 * ConfigMaps (`a/one`, `a/two`, `b/three`, `c/four`), its events collected, and small helpers.
 * Tests run them on virtual time (`it.effect`).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { Dependent } from "../../core/scopedcache/types.ts"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import type { ScopedCacheOptions } from "./options.ts"
import { makeScopedCache, type ScopedCache, type ScopedCacheEvent } from "./scopedCache.ts"

/** The resources the tests watch. */
export const cms = Resources.configMaps
export const secrets = Resources.secrets
export const namespaces = Resources.namespaces
/** A ConfigMap whose `data.v` is its name. */
export const cm = (namespace: string, name: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name, namespace, labels },
  data: { v: name },
})
/** Lets forked fibers run (no clock advance). */
export const settle = Effect.repeat(Effect.yieldNow, { times: 100 })
/** `namespace/name` of each object. */
export const names = (objects: ReadonlyArray<KubeObject>) =>
  objects.map((o) => `${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`)
/** A dependent with this uid. */
export const dep = (uid: string): Dependent => ({ uid, kind: "Widget", namespace: "a", name: uid })

/** A scoped cache of cluster `c1` over a fake API server with the four ConfigMaps. */
export const setup = (options: ScopedCacheOptions = {}) =>
  Effect.gen(function* () {
    const fake = yield* FakeApiServer.make()
    const client = yield* makeMemoryClient(fake)
    const api = fake.client()
    for (const [ns, n] of [
      ["a", "one"],
      ["a", "two"],
      ["b", "three"],
      ["c", "four"],
    ] as const)
      yield* api.create(cms, cm(ns, n, { app: n === "two" ? "web" : "db" }))
    const cache = yield* makeScopedCache(client, {
      cluster: "c1",
      reflector: { backoff: { jitter: 0 } },
      ...options,
    })
    return { fake, client, api, cache }
  })

/** Collects the cache's events from now on. */
export const collect = (cache: ScopedCache) =>
  Effect.gen(function* () {
    const stream = yield* cache.subscribeEvents
    const events: Array<ScopedCacheEvent> = []
    yield* Effect.forkScoped(Stream.runForEach(stream, (e) => Effect.sync(() => events.push(e))))
    return events
  })

/** How many informers run. */
export const running = (cache: ScopedCache) => cache.runningCount
