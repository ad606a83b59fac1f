import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/testing/TestClock"
import type { Source } from "../../../core/propagate/index.ts"
import { makeMemoryClient } from "../../apiserver/memoryClient.ts"
import { FakeApiServer } from "../../apiserver/server.ts"
import { captureLogs } from "../../chaos/logLines.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import { Resources } from "../../kube/resource.ts"
import type { Cluster } from "../../multicluster/index.ts"
import { makePending, PendingConfigMap } from "./pending.ts"

const NS = "krtt-system"
const RETRY = 5_000

const content = { data: {}, binaryData: {}, labels: {}, annotations: {}, type: undefined }
const released = (name: string, kind: Source["kind"] = "ConfigMap"): Source => ({
  kind,
  namespace: "team-a",
  name,
  labelled: false,
  deleting: true,
  content,
})
/** A cluster as the pending cleanups see it: only its name is read. */
const cluster = (name: string) => ({ name }) as Cluster

const setup = Effect.gen(function* () {
  const hub = yield* FakeApiServer.make()
  yield* hub.client().create(Resources.namespaces, { metadata: { name: NS } })
  const client = yield* makeMemoryClient(hub)
  /** The requests the pending cleanups made of the hub, by verb. */
  const requests = { get: 0, create: 0, update: 0 }
  const counted: KubeClientShape = {
    ...client,
    get: (resource, key) =>
      Effect.suspend(() => {
        requests.get += 1
        return client.get(resource, key)
      }),
    create: (resource, o) =>
      Effect.suspend(() => {
        requests.create += 1
        return client.create(resource, o)
      }),
    update: (resource, o) =>
      Effect.suspend(() => {
        requests.update += 1
        return client.update(resource, o)
      }),
  }
  const pending = makePending(counted, NS, RETRY)
  const stored = hub
    .client()
    .get(Resources.configMaps, { namespace: NS, name: PendingConfigMap })
    .pipe(
      Effect.map((o) => (o.data ?? {}) as Record<string, string>),
      Effect.catchTag("NotFound", () => Effect.succeed(undefined)),
    )
  return { hub, pending, stored, requests }
})

/** A `clean` that answers `answers` in turn (then true) and records each call. */
const cleaner = (answers: ReadonlyArray<boolean> = []) => {
  const calls: Array<string> = []
  const sources: Array<Source> = []
  let i = 0
  const clean = (c: Cluster, s: Source, uid: string) =>
    Effect.sync(() => {
      calls.push(`${c.name} ${s.kind} ${s.namespace}/${s.name} ${String(s.deleting)} ${uid}`)
      sources.push(s)
      return answers[i++] ?? true
    })
  return { calls, sources, clean }
}

describe("the pending cleanups of released sources (krtt-propagate-pending)", () => {
  it.effect("remembers the clusters away, cleans one when engaged, and forgets it once clean", () =>
    Effect.gen(function* () {
      const { pending, stored, requests } = yield* setup
      yield* pending.remember(released("a"), ["w2", "w1"])
      yield* pending.remember(released("a"), ["w2"])
      assert.deepStrictEqual(yield* stored, { "ConfigMap.team-a.a": '["w1","w2"]' })
      // The second remember changed nothing, so it wrote nothing.
      assert.deepStrictEqual([requests.create, requests.update], [1, 0])
      const { calls, sources, clean } = cleaner()
      const [, logs] = yield* captureLogs(pending.cleanDue([cluster("w2")], clean))
      assert.deepStrictEqual(calls, ["w2 ConfigMap team-a/a true pending:ConfigMap.team-a.a"])
      // The table sees the source as gone: not labelled, deleting, nothing in it.
      assert.deepStrictEqual(sources, [released("a")])
      assert.deepStrictEqual(logs, [
        'Info cleaned a cluster that came back [["cluster","w2"],["source","ConfigMap team-a/a"]]',
      ])
      assert.deepStrictEqual(yield* stored, { "ConfigMap.team-a.a": '["w1"]' })
      yield* pending.cleanDue([cluster("w1")], clean)
      assert.deepStrictEqual(yield* stored, {})
      // Both are clean: neither is owed any more, so the list is not even read again.
      const reads = requests.get
      yield* TestClock.adjust(RETRY)
      yield* pending.cleanDue([cluster("w1"), cluster("w2")], clean)
      assert.strictEqual(calls.length, 2)
      assert.strictEqual(requests.get, reads)
    }),
  )

  it.effect("a cluster not clean yet stays owed and is tried again retryInterval later, not before", () =>
    Effect.gen(function* () {
      const { pending, stored } = yield* setup
      yield* pending.remember(released("a"), ["w2"])
      const { calls, clean } = cleaner([false])
      yield* pending.cleanDue([cluster("w2")], clean)
      assert.deepStrictEqual(yield* stored, { "ConfigMap.team-a.a": '["w2"]' })
      yield* TestClock.adjust(RETRY - 1)
      yield* pending.cleanDue([cluster("w2")], clean)
      assert.strictEqual(calls.length, 1)
      yield* TestClock.adjust(1)
      yield* pending.cleanDue([cluster("w2")], clean)
      assert.strictEqual(calls.length, 2)
      assert.deepStrictEqual(yield* stored, {})
    }),
  )

  it.effect("a cleanup the hub refuses is tried again later, and a cluster away waits until engaged", () =>
    Effect.gen(function* () {
      const { hub, pending, stored } = yield* setup
      yield* pending.remember(released("a"), ["w2"])
      const { calls, clean } = cleaner()
      yield* pending.cleanDue([cluster("w1")], clean)
      assert.deepStrictEqual(calls, [])
      hub.inject({ verb: "get", resource: "configmaps", name: PendingConfigMap, error: "Timeout", times: 1 })
      const [, logs] = yield* captureLogs(pending.cleanDue([cluster("w2")], clean))
      assert.deepStrictEqual(calls, [])
      assert.deepStrictEqual(logs, [
        'Warn pending cleanup failed; tried again later [["cluster","w2"],["err","Timeout: injected fault"]]',
      ])
      yield* TestClock.adjust(RETRY)
      yield* pending.cleanDue([cluster("w2")], clean)
      assert.strictEqual(calls.length, 1)
      assert.deepStrictEqual(yield* stored, {})
    }),
  )

  it.effect(
    "a cluster owed anew is cleaned of what an earlier run remembered; a write conflict is read again",
    () =>
      Effect.gen(function* () {
        const { hub, pending, stored } = yield* setup
        yield* pending.remember(released("a"), ["w2"])
        yield* pending.remember(released("b", "Secret"), ["w2", "w3"])
        // Another process (the operator restarted) knows nothing owed until a cluster is engaged anew.
        const restarted = makePending(yield* makeMemoryClient(hub), NS, RETRY)
        const { calls, clean } = cleaner()
        yield* restarted.cleanDue([cluster("w2")], clean)
        assert.deepStrictEqual(calls, [])
        yield* restarted.owe(["w2"])
        hub.inject({
          verb: "update",
          resource: "configmaps",
          name: PendingConfigMap,
          error: "Conflict",
          times: 1,
        })
        yield* restarted.cleanDue([cluster("w2")], clean)
        assert.deepStrictEqual(calls, [
          "w2 ConfigMap team-a/a true pending:ConfigMap.team-a.a",
          "w2 Secret team-a/b true pending:Secret.team-a.b",
        ])
        assert.deepStrictEqual(yield* stored, { "Secret.team-a.b": '["w3"]' })
      }),
  )

  it.effect(
    "a cluster remembered again while its cleanup runs stays owed for what that cleanup could not see",
    () =>
      Effect.gen(function* () {
        const { pending, stored } = yield* setup
        yield* pending.remember(released("a"), ["w2"])
        const calls: Array<string> = []
        const clean = (_: Cluster, s: Source) =>
          Effect.gen(function* () {
            calls.push(s.name)
            // Another reconcile releases "b" meanwhile, still seeing w2 away.
            if (s.name === "a") yield* Effect.orDie(pending.remember(released("b"), ["w2"]))
            return true
          })
        yield* pending.cleanDue([cluster("w2")], clean)
        assert.deepStrictEqual(yield* stored, { "ConfigMap.team-a.b": '["w2"]' })
        yield* pending.cleanDue([cluster("w2")], clean)
        assert.deepStrictEqual(calls, ["a", "b"])
        assert.deepStrictEqual(yield* stored, {})
      }),
  )

  it.effect(
    "a cluster owed while nothing is pending is settled without a write; a refusal other than a conflict is not retried",
    () =>
      Effect.gen(function* () {
        const { hub, pending, stored, requests } = yield* setup
        yield* pending.owe(["w2"])
        const { calls, clean } = cleaner()
        yield* pending.cleanDue([cluster("w2")], clean)
        assert.deepStrictEqual(calls, [])
        assert.isUndefined(yield* stored)
        yield* TestClock.adjust(RETRY)
        const reads = requests.get
        yield* pending.cleanDue([cluster("w2")], clean)
        assert.strictEqual(requests.get, reads)
        hub.inject({
          verb: "create",
          error: "Timeout",
          times: 1,
        })
        const refused = yield* Effect.flip(pending.remember(released("a"), ["w2"]))
        assert.strictEqual(refused._tag, "Timeout")
        assert.strictEqual(requests.create, 1)
      }),
  )

  it.effect("a key of another shape is left alone; a value that does not parse counts as no cluster", () =>
    Effect.gen(function* () {
      const { hub, pending, stored } = yield* setup
      const data = {
        "Pod.team-a.x": '["w2"]',
        "ConfigMap.team-a.bad": "not json",
        "Secret.team-a.n": '{"w2":1}',
        "Secret.team-a.mixed": '[7,"w3"]',
        ConfigMap: '["w2"]',
        "ConfigMap.team-a": '["w2"]',
        "Secret..x": '["w2"]',
        "Secret.team-a.": '["w2"]',
      }
      yield* hub
        .client()
        .create(Resources.configMaps, { metadata: { namespace: NS, name: PendingConfigMap }, data })
      yield* pending.owe(["w2"])
      const { calls, clean } = cleaner()
      yield* pending.cleanDue([cluster("w2")], clean)
      assert.deepStrictEqual(calls, [])
      assert.deepStrictEqual(yield* stored, data)
      yield* pending.remember(released("bad"), ["w2"])
      assert.strictEqual((yield* stored)?.["ConfigMap.team-a.bad"], '["w2"]')
      // What is not a cluster name is dropped with the last cluster of a key.
      yield* pending.owe(["w3"])
      yield* pending.cleanDue([cluster("w3")], clean)
      assert.isUndefined((yield* stored)?.["Secret.team-a.mixed"])
    }),
  )
})
