// The reflector's `onError` hook: "retry" keeps the default backoff, "stop" ends the loop at the
// first failure without a log line of its own (the scoped cache's 403 stop, seed 002).
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { make } from "./reflector.ts"

const cms = Resources.configMaps
const settle = Effect.repeat(Effect.yieldNow, { times: 50 })
const cm = (name: string): KubeObject => ({ metadata: { name, namespace: "default" } })

/** Log lines written while `effect` runs. */
const capture = (lines: Array<string>) =>
  Logger.layer([
    Logger.make(({ message }) => lines.push(String(Array.isArray(message) ? message[0] : message))),
  ])

describe("Reflector onError", () => {
  it.effect("stop: a list answered 403 ends the loop at once, with no retry and no log line", () => {
    const lines: Array<string> = []
    return Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(fake)
      fake.inject({ verb: "list", error: "Forbidden" })
      const seen: Array<string> = []
      const r = yield* make(client, {
        resource: cms,
        onError: ({ verb, error }) =>
          Effect.sync(() => {
            seen.push(`${verb}:${error._tag}`)
            return error._tag === "Forbidden" ? ("stop" as const) : ("retry" as const)
          }),
      })
      yield* settle
      yield* TestClock.adjust("5 minutes")
      yield* settle
      const status = yield* r.status
      assert.deepStrictEqual(seen, ["list:Forbidden"])
      assert.strictEqual(status.lists, 1)
      assert.isTrue(status.stopped)
      assert.isFalse(yield* r.hasSynced)
      assert.deepStrictEqual(
        lines.filter((l) => l.startsWith("reflector:")),
        [],
      )
    }).pipe(Effect.provide(capture(lines)))
  })

  it.effect("stop: a watch answered 403 ends the loop and keeps the store as it was", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(fake)
      yield* fake.client().create(cms, cm("a"))
      const r = yield* make(client, {
        resource: cms,
        backoff: { jitter: 0 },
        onError: ({ error }) => Effect.succeed(error._tag === "Forbidden" ? "stop" : "retry"),
      })
      yield* r.waitForSync
      yield* settle
      fake.inject({ verb: "watch", error: "Forbidden" })
      fake.closeWatches()
      yield* settle
      yield* TestClock.adjust("1 minute")
      yield* settle
      const status = yield* r.status
      assert.isTrue(status.stopped)
      assert.strictEqual(status.watches, 2, "the first watch, then the one answered 403; no third")
      assert.deepStrictEqual(r.store.keys(), ["default/a"])
      assert.strictEqual(fake.watchCount(), 0)
    }),
  )

  it.effect("retry: the hook sees every failure and the reflector logs and backs off as without it", () => {
    const lines: Array<string> = []
    return Effect.gen(function* () {
      const fake = yield* FakeApiServer.make()
      const client = yield* makeMemoryClient(fake)
      fake.inject({ verb: "list", error: "Unreachable", times: 2 })
      const seen: Array<string> = []
      const r = yield* make(client, {
        resource: cms,
        backoff: { jitter: 0 },
        onError: ({ verb, error }) =>
          Effect.sync(() => {
            seen.push(`${verb}:${error._tag}`)
            return "retry" as const
          }),
      })
      yield* settle
      yield* TestClock.adjust("800 millis")
      yield* settle
      assert.isFalse(yield* r.hasSynced)
      yield* TestClock.adjust("1600 millis")
      yield* settle
      assert.isTrue(yield* r.hasSynced)
      assert.deepStrictEqual(seen, ["list:Unreachable", "list:Unreachable"])
      assert.isUndefined((yield* r.status).stopped)
      assert.deepStrictEqual(
        lines.filter((l) => l.startsWith("reflector: list failed")),
        ["reflector: list failed", "reflector: list failed"],
      )
    }).pipe(Effect.provide(capture(lines)))
  })
})
