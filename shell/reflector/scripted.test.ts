// The reflector against a scripted client: each list and watch answers exactly what the test
// says (events the in-memory server would never send, such as a bookmark without a
// resourceVersion, a MODIFIED with an unchanged one, a DELETED for an unknown key), and every
// log line, status field and handler call is observed. These are the cases the mutation run left
// alive (docs/mutation/shell-sim-clustercache.md, shell/reflector).
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import type { KubeClientShape, ListAllOptions, WatchOptions } from "../kube/client.ts"
import { ApiError, Gone, type KubeError } from "../kube/errors.ts"
import { type KubeObject, type ObjectList, Resources } from "../kube/resource.ts"
import type { WatchEvent } from "../kube/watch.ts"
import { make, type ReflectorEvent, type ReflectorOptions } from "./reflector.ts"

const cms = Resources.configMaps
const settle = Effect.repeat(Effect.yieldNow, { times: 50 })
const cm = (name: string, resourceVersion: string, labels: Record<string, string> = {}): KubeObject => ({
  metadata: { name, namespace: "ns", resourceVersion, labels },
})
const listOf = (resourceVersion: string, ...items: Array<KubeObject>): ObjectList =>
  ({ metadata: { resourceVersion }, items, resourceVersion }) as unknown as ObjectList

type ListAnswer = Effect.Effect<ObjectList, KubeError>
type WatchAnswer = Stream.Stream<WatchEvent, KubeError>

/**
 * A client whose lists and watches answer from queues (then hang: `Effect.never`,
 * `Stream.never`), recording the options of each call.
 */
const scripted = (lists: Array<ListAnswer>, watches: Array<WatchAnswer>) =>
  Effect.gen(function* () {
    const base = yield* makeMemoryClient(yield* FakeApiServer.make())
    const listCalls: Array<ListAllOptions | undefined> = []
    const watchCalls: Array<WatchOptions | undefined> = []
    const client: KubeClientShape = {
      ...base,
      listAll: ((_ref, options) => {
        listCalls.push(options)
        return lists.shift() ?? Effect.never
      }) as KubeClientShape["listAll"],
      watch: ((_ref, options) => {
        watchCalls.push(options)
        return watches.shift() ?? Stream.never
      }) as KubeClientShape["watch"],
    }
    return { client, listCalls, watchCalls }
  })

interface Line {
  readonly level: string
  readonly message: ReadonlyArray<unknown>
  readonly annotations: Record<string, unknown>
}

/** Every log line (debug included) with its annotations. */
const capture =
  (lines: Array<Line>) =>
  <R>(effect: Effect.Effect<void, never, R>) =>
    effect.pipe(
      Effect.provide(
        Logger.layer([
          Logger.make((o) => {
            lines.push({
              level: o.logLevel,
              message: Array.isArray(o.message) ? o.message : [o.message],
              annotations: { ...o.fiber.getRef(References.CurrentLogAnnotations) },
            })
          }),
        ]),
      ),
      Effect.provideService(References.MinimumLogLevel, "Debug"),
    )

/** Starts a reflector on the scripted client, recording each event's tag and name (or `-`). */
const start = (client: KubeClientShape, options: Partial<ReflectorOptions<KubeObject>> = {}) =>
  Effect.gen(function* () {
    const events: Array<string> = []
    const record = (e: ReflectorEvent<KubeObject>) =>
      Effect.sync(() => {
        const old = e._tag === "Updated" ? `@${e.old?.metadata.resourceVersion}` : ""
        events.push(`${e._tag}:${e.object?.metadata.name ?? "-"}${old}`)
      })
    const r = yield* make(client, {
      resource: cms,
      backoff: { jitter: 0 },
      handlers: [record],
      ...options,
    })
    return { r, events }
  })

describe("Reflector, scripted", () => {
  it.effect("before the first list answers: Listing, no resourceVersion, not synced, one list", () =>
    Effect.gen(function* () {
      const { client } = yield* scripted([], [])
      const { r } = yield* start(client)
      yield* settle
      assert.deepStrictEqual(yield* r.status, {
        phase: "Listing",
        resourceVersion: "",
        synced: false,
        lists: 1,
        watches: 0,
        lastError: undefined,
      })
    }),
  )

  it.effect("a list without a resourceVersion is watched without one; otherwise from the list's", () =>
    Effect.gen(function* () {
      const gone = Stream.fail(new Gone({ verb: "watch", path: "/", message: "too old" }))
      const { client, watchCalls } = yield* scripted(
        [Effect.succeed(listOf("")), Effect.succeed(listOf("7"))],
        [gone],
      )
      const { r } = yield* start(client)
      yield* settle
      assert.deepStrictEqual(
        watchCalls.map((o) => o?.resourceVersion),
        [undefined, "7"],
      )
      assert.isTrue(watchCalls.every((o) => o?.allowWatchBookmarks === true))
      assert.strictEqual((yield* r.status).phase, "Watching")
    }),
  )

  it.effect("a relist after 410 is Listing again", () =>
    Effect.gen(function* () {
      const gone = Stream.fail(new Gone({ verb: "watch", path: "/", message: "too old" }))
      const { client } = yield* scripted([Effect.succeed(listOf("5", cm("a", "3")))], [gone])
      const { r, events } = yield* start(client)
      yield* settle
      const listing = yield* r.status
      assert.strictEqual(listing.phase, "Listing", "relisting (the second list never answers)")
      assert.strictEqual(listing.lists, 2)
      assert.strictEqual(listing.watches, 1)
      assert.deepStrictEqual(events, ["Added:a"])
    }),
  )

  it.effect("a relist reports changed objects as Updated with the old one, unchanged ones not at all", () =>
    Effect.gen(function* () {
      const gone = Stream.fail(new Gone({ verb: "watch", path: "/", message: "too old" }))
      const { client } = yield* scripted(
        [
          Effect.succeed(listOf("5", cm("a", "3"), cm("b", "2"))),
          Effect.succeed(listOf("9", cm("a", "8"), cm("b", "2"))),
        ],
        [gone],
      )
      const { r, events } = yield* start(client)
      yield* settle
      assert.deepStrictEqual(events, ["Added:a", "Added:b", "Updated:a@3"])
      assert.strictEqual(r.store.get("ns/a")?.metadata.resourceVersion, "8")
    }),
  )

  it.effect(
    "watch events: an unchanged resourceVersion, a bookmark and unknown deletes tell no handler",
    () =>
      Effect.gen(function* () {
        const events: Array<WatchEvent> = [
          { type: "MODIFIED", object: cm("a", "3") },
          { type: "BOOKMARK", object: { metadata: { resourceVersion: "6" } } },
          { type: "DELETED", object: cm("nobody", "7") },
          { type: "MODIFIED", object: cm("bad", "8", { broken: "yes" }) },
          { type: "MODIFIED", object: cm("a", "9") },
        ]
        const { client } = yield* scripted(
          [Effect.succeed(listOf("5", cm("a", "3")))],
          [Stream.concat(Stream.fromIterable(events), Stream.never)],
        )
        const { r, events: seen } = yield* start(client, {
          decode: (o) => (o.metadata.labels?.broken ? Result.fail("broken") : Result.succeed(o)),
        })
        yield* settle
        assert.deepStrictEqual(seen, ["Added:a", "Updated:a@3"])
        assert.deepStrictEqual(r.store.keys(), ["ns/a"], "a bookmark is not an object")
        assert.strictEqual((yield* r.status).resourceVersion, "9")
      }),
  )

  it.effect("an event without a resourceVersion keeps the last one seen", () =>
    Effect.gen(function* () {
      const events: Array<WatchEvent> = [
        { type: "BOOKMARK", object: { metadata: { resourceVersion: "6" } } },
        { type: "BOOKMARK", object: { metadata: { resourceVersion: "" } } },
        { type: "BOOKMARK", object: { metadata: {} } },
      ]
      const { client } = yield* scripted(
        [Effect.succeed(listOf("5"))],
        [Stream.concat(Stream.fromIterable(events), Stream.never)],
      )
      const { r } = yield* start(client)
      yield* settle
      assert.strictEqual((yield* r.status).resourceVersion, "6")
    }),
  )

  it.effect("an object that decodes again leaves the undecodable list", () =>
    Effect.gen(function* () {
      const events: Array<WatchEvent> = [{ type: "MODIFIED", object: cm("a", "6") }]
      const { client } = yield* scripted(
        [Effect.succeed(listOf("5", cm("a", "3", { broken: "yes" })))],
        [Stream.concat(Stream.fromIterable(events), Stream.never)],
      )
      const { r, events: seen } = yield* start(client, {
        decode: (o) => (o.metadata.labels?.broken ? Result.fail("broken") : Result.succeed(o)),
      })
      yield* settle
      assert.deepStrictEqual(seen, ["Added:a"])
      assert.strictEqual((yield* r.undecodable).size, 0)
    }),
  )

  it.effect("a watch ERROR frame is the watch's failure, with its verb and the watched path", () =>
    Effect.gen(function* () {
      const error: WatchEvent = {
        type: "ERROR",
        object: { kind: "Status", code: 500, message: "etcd is sad" } as never,
      }
      const { client } = yield* scripted([Effect.succeed(listOf("5"))], [Stream.make(error)])
      const { r } = yield* start(client, { namespace: "ns" })
      yield* settle
      const status = yield* r.status
      assert.strictEqual(status.phase, "Waiting")
      assert.strictEqual(status.lastError?._tag, "ApiError")
      assert.strictEqual(status.lastError?.verb, "watch")
      assert.strictEqual(status.lastError?.path, "/api/v1/namespaces/ns/configmaps")
      assert.strictEqual(status.lastError?.message, "etcd is sad")
    }),
  )

  it.effect("onError is told the verb that failed: list, then watch", () =>
    Effect.gen(function* () {
      const boom = (verb: string) => new ApiError({ verb, path: "/", message: "boom", status: 500 })
      const { client } = yield* scripted(
        [Effect.fail(boom("list")), Effect.succeed(listOf("5"))],
        [Stream.fail(boom("watch"))],
      )
      const seen: Array<string> = []
      yield* start(client, {
        onError: ({ verb }) =>
          Effect.sync(() => {
            seen.push(verb)
            return "retry" as const
          }),
      })
      yield* settle
      yield* TestClock.adjust("1 minute")
      yield* settle
      assert.deepStrictEqual(seen.slice(0, 2), ["list", "watch"])
    }),
  )

  it.effect("goes from a successful list to its watch without waiting", () =>
    Effect.gen(function* () {
      const { client, watchCalls } = yield* scripted([Effect.succeed(listOf("5"))], [])
      const { r } = yield* start(client)
      yield* settle
      assert.strictEqual(watchCalls.length, 1)
      assert.strictEqual((yield* r.status).phase, "Watching")
    }),
  )
})

describe("Reflector, scripted: log lines", () => {
  it.effect(
    "failures are warnings naming the verb, the error and its message; each line names the reflector",
    () => {
      const lines: Array<Line> = []
      return Effect.gen(function* () {
        const { client } = yield* scripted(
          [
            Effect.fail(new ApiError({ verb: "list", path: "/", message: "no list", status: 500 })),
            Effect.succeed(listOf("5")),
          ],
          [Stream.fail(new ApiError({ verb: "watch", path: "/", message: "no watch", status: 503 }))],
        )
        yield* start(client)
        yield* settle
        yield* TestClock.adjust("1 minute")
        yield* settle
        const warnings = lines.filter((l) => l.level === "Warn")
        assert.deepStrictEqual(
          warnings.slice(0, 2).map((l) => l.message),
          [
            ["reflector: list failed", { error: "ApiError", message: "no list" }],
            ["reflector: watch failed", { error: "ApiError", message: "no watch" }],
          ],
        )
        assert.isTrue(lines.length > 0)
        assert.isTrue(
          lines.every((l) => l.annotations.reflector === "configmaps"),
          "named after the resource by default",
        )
        const debug = lines.filter((l) => l.level === "Debug").map((l) => l.message)
        assert.deepStrictEqual(debug[0], ["reflector: Listed", { next: "Watch" }])
      }).pipe(capture(lines))
    },
  )

  it.effect("the name option names the reflector in its lines", () => {
    const lines: Array<Line> = []
    return Effect.gen(function* () {
      const { client } = yield* scripted([Effect.succeed(listOf("5"))], [])
      yield* start(client, { name: "mine" })
      yield* settle
      assert.isTrue(lines.length > 0)
      assert.isTrue(lines.every((l) => l.annotations.reflector === "mine"))
    }).pipe(capture(lines))
  })

  it.effect("a handler's defect and an object that does not decode are logged with what and why", () => {
    const lines: Array<Line> = []
    return Effect.gen(function* () {
      const events: Array<WatchEvent> = [{ type: "MODIFIED", object: cm("bad", "6", { broken: "yes" }) }]
      const { client } = yield* scripted(
        [Effect.succeed(listOf("5", cm("a", "3")))],
        [Stream.concat(Stream.fromIterable(events), Stream.never)],
      )
      yield* start(client, {
        decode: (o) => (o.metadata.labels?.broken ? Result.fail("label broken is set") : Result.succeed(o)),
        handlers: [() => Effect.die("handler bug")],
      })
      yield* settle
      const died = lines.find((l) => l.level === "Error")
      assert.deepStrictEqual(died?.message, ["reflector handler died"])
      assert.strictEqual(died?.annotations.defect, "handler bug")
      const undecodable = lines.find((l) => l.message[0] === "reflector: object does not decode")
      assert.strictEqual(undecodable?.level, "Warn")
      assert.strictEqual(undecodable?.annotations.key, "ns/bad")
      assert.strictEqual(undecodable?.annotations.reason, "label broken is set")
    }).pipe(capture(lines))
  })
})
