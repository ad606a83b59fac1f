// The two log formats on real Effect log calls: zap's JSON and klog's text, as Cluster API's
// managers write them (Kubernetes component-base), each entry on one line.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import { formatKlogText, type LoggingFormat, loggerOf } from "./index.ts"

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
