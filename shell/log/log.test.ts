// The two log formats on real Effect log calls: zap's JSON and klog's text, as Cluster API's
// managers write them (Kubernetes component-base), each entry on one line.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import { expect } from "vitest"
import { formatKlogText, formatZapJson, type LoggingFormat, loggerOf } from "./index.ts"

/** The lines `program` logs in `format`, at verbosity Trace (every level). */
const linesOf = <A, E>(format: LoggingFormat, program: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    yield* Effect.exit(program).pipe(
      Effect.provide(Logger.layer([loggerOf(format, (l) => lines.push(l))])),
      Effect.provideService(References.MinimumLogLevel, "Trace"),
    )
    return lines
  })

const reconcileLog = Effect.logDebug("Reconcile done").pipe(
  Effect.annotateLogs({
    controller: "cluster",
    controllerGroup: "cluster.x-k8s.io",
    controllerKind: "Cluster",
    Cluster: { name: "c1", namespace: "fleet" },
    reconcileID: "cluster-1",
    requeueAfterMs: 30000,
  }),
)

describe("--logging-format=json (zap, component-base's shape)", () => {
  it.effect("ts, msg, v, then the pairs in order; objects stay objects", () =>
    Effect.gen(function* () {
      const [line] = yield* linesOf("json", reconcileLog)
      assert.strictEqual(
        line,
        '{"ts":0,"msg":"Reconcile done","v":4,"controller":"cluster","controllerGroup":"cluster.x-k8s.io","controllerKind":"Cluster","Cluster":{"name":"c1","namespace":"fleet"},"reconcileID":"cluster-1","requeueAfterMs":30000}',
      )
    }),
  )

  it.effect("an error: no v, the failure under err, last", () =>
    Effect.gen(function* () {
      const lines = yield* linesOf(
        "json",
        Effect.logError("Reconciler error").pipe(
          Effect.annotateLogs({ error: "boom", controller: "cluster" }),
        ),
      )
      assert.deepStrictEqual(
        lines.map((l) => JSON.parse(l)),
        [{ ts: 0, msg: "Reconciler error", controller: "cluster", err: "boom" }],
      )
      assert.match(lines[0] ?? "", /"err":"boom"}$/)
    }),
  )

  it.effect("Info and Warn are v 0, Trace v 6; a cause without an error annotation becomes err", () =>
    Effect.gen(function* () {
      const lines = yield* linesOf(
        "json",
        Effect.all([
          Effect.logInfo("a"),
          Effect.logWarning("b"),
          Effect.logTrace("c"),
          Effect.logError("d", new Error("x")),
          Effect.logDebug("f", { next: "Relist" }, 3),
          Effect.fail("lost").pipe(Effect.tapCause((cause) => Effect.logError("e", cause))),
        ]),
      )
      const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
      assert.deepStrictEqual(
        parsed.map((p) => [p.msg, p.v]),
        [
          ["a", 0],
          ["b", 0],
          ["c", 6],
          ["d x", undefined],
          ["f 3", 4],
          ["e", undefined],
        ],
      )
      assert.strictEqual(parsed[4]?.next, "Relist")
      assert.match(String(parsed[5]?.err), /lost/)
    }),
  )
})

describe("--logging-format=text (klog)", () => {
  it.effect("header, quoted message, key=value pairs; an object with a name as namespace/name", () =>
    Effect.gen(function* () {
      const [line] = yield* linesOf("text", reconcileLog)
      assert.strictEqual(
        line,
        `I0101 00:00:00.000000 ${String(process.pid).padStart(7)} krtt:0] "Reconcile done" controller="cluster" controllerGroup="cluster.x-k8s.io" controllerKind="Cluster" Cluster="fleet/c1" reconcileID="cluster-1" requeueAfterMs=30000`,
      )
    }),
  )

  it("severity letters, microseconds, quoting, multi-line values and other objects", () => {
    const time = new Date(Date.UTC(2026, 10, 26, 3, 4, 5, 678))
    const text = (
      level: "Error" | "Warn" | "Fatal" | "Info",
      fields: ReadonlyArray<readonly [string, unknown]>,
    ) => formatKlogText({ time, level, message: 'say "hi"', fields }, 7)
    assert.strictEqual(text("Warn", []), `W1126 03:04:05.678000       7 krtt:0] "say \\"hi\\""`)
    assert.strictEqual(
      text("Error", [
        ["ok", true],
        ["none", undefined],
        ["obj", { a: 1 }],
        ["node", { name: "n1" }],
        ["err", "line one\nline two"],
      ]),
      `E1126 03:04:05.678000       7 krtt:0] "say \\"hi\\"" ok=true none=<nil> obj={"a":1} node="n1" err=<\n\tline one\n\tline two\n >`,
    )
    assert.match(text("Fatal", []), /^F1126/)
    assert.match(text("Info", []), /^I1126/)
  })
})

describe("values of every kind", () => {
  const at = new Date(0)
  const fields: ReadonlyArray<readonly [string, unknown]> = [
    ["none", undefined],
    ["nil", null],
    ["big", 12n],
    ["sym", Symbol("s")],
    ["fn", () => 1],
    ["failure", new Error("broke")],
    ["list", [1, "a"]],
    ["plain", { a: 1 }],
    ["named", { name: "n1", namespace: "" }],
    ["sep", "a\u2028b"],
  ]

  it("zap's JSON: undefined as null, bigint, symbol and function as text, an error by its message", () => {
    const line = formatZapJson({ time: at, level: "Fatal", message: "m", fields })
    expect(JSON.parse(line)).toEqual({
      ts: 0,
      msg: "m",
      none: null,
      nil: null,
      big: "12",
      sym: "Symbol(s)",
      fn: "() => 1",
      failure: "broke",
      list: [1, "a"],
      plain: { a: 1 },
      named: { name: "n1", namespace: "" },
      sep: "a\u2028b",
    })
    expect(JSON.parse(formatZapJson({ time: at, level: "Trace", message: "m", fields: [] })).v).toBe(6)
    expect(JSON.parse(formatZapJson({ time: at, level: "Warn", message: "m", fields: [] })).v).toBe(0)
  })

  it("klog's text: <nil>, bare numbers, a name without namespace, JSON for other objects, escaped separators", () => {
    expect(formatKlogText({ time: at, level: "Info", message: "m", fields }, 1)).toBe(
      `I0101 00:00:00.000000       1 krtt:0] "m" none=<nil> nil=<nil> big=12 sym="Symbol(s)" fn="() => 1" failure="broke" list=[1,"a"] plain={"a":1} named="n1" sep="a\\u2028b"`,
    )
    expect(formatKlogText({ time: at, level: "Info", message: "m", fields: [["p", "\u2029"]] }, 1)).toContain(
      'p="\\u2029"',
    )
  })
})

describe("a log call's message and extra arguments", () => {
  it.effect(
    "a non-string message as JSON; arrays and errors after it join the message; plain objects give fields",
    () =>
      Effect.gen(function* () {
        const lines = yield* linesOf(
          "json",
          Effect.all([
            Effect.logInfo({ k: 1 }),
            Effect.logInfo("m", [1, 2], null, new Error("e")),
            Effect.logInfo("n", { a: 1 }, { b: 2 }),
            Effect.logError("x").pipe(Effect.annotateLogs({ err: "as err" })),
            Effect.fail("lost").pipe(
              Effect.tapCause((cause) =>
                Effect.logError("y", cause).pipe(Effect.annotateLogs({ error: "mine" })),
              ),
            ),
          ]),
        )
        const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
        expect(parsed.map((p) => p.msg)).toEqual(['{"k":1}', "m [1,2] null e", "n", "x", "y"])
        expect(parsed[2]).toMatchObject({ a: 1, b: 2 })
        expect(parsed[3]?.err).toBe("as err")
        expect(parsed[4]?.err).toBe("mine")
      }),
  )
})

describe("keys of the format itself", () => {
  it("a field named ts, msg or v does not replace the entry's own", () => {
    const line = formatZapJson({
      time: new Date(0),
      level: "Info",
      message: "m",
      fields: [
        ["ts", 5],
        ["msg", "x"],
        ["v", 9],
        ["k", { name: 5 }],
      ],
    })
    expect(JSON.parse(line)).toEqual({ ts: 0, msg: "m", v: 0, k: { name: 5 } })
    expect(
      formatKlogText({ time: new Date(0), level: "Info", message: "m", fields: [["k", { name: 5 }]] }, 1),
    ).toContain('k={"name":5}')
  })
})
