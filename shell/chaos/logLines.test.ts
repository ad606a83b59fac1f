import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as References from "effect/References"
import { captureLogs } from "./logLines.ts"

describe("the log of a fault-free chaos run", () => {
  it.effect(
    "captures every level, forked fibers too, each line once, sorted, a failure by its first line, without times",
    () =>
      Effect.gen(function* () {
        const [value, lines] = yield* captureLogs(
          Effect.gen(function* () {
            const child = yield* Effect.forkChild(
              Effect.logDebug("table decided").pipe(Effect.annotateLogs({ row: "cluster#3" })),
            )
            yield* Effect.logWarning("write refused", { verb: "patch" }).pipe(
              Effect.annotateLogs({ error: "Conflict: the object was modified\n    at stack (file.ts:1:2)" }),
            )
            yield* Effect.logInfo("cluster engaged", { cycle: { self: 1n } })
            yield* Effect.logInfo("cluster engaged", { cycle: { self: 2n } })
            yield* Effect.logInfo("cluster engaged", { endpoint: { port: 6443 } })
            yield* Fiber.join(child)
            return 7
          }),
        ).pipe(Effect.provideService(References.MinimumLogLevel, "None"))
        assert.strictEqual(value, 7)
        assert.deepStrictEqual(lines, [
          'Debug table decided [["row","cluster#3"]]',
          'Info cluster engaged [["cycle","[object Object]"]]',
          'Info cluster engaged [["endpoint",{"port":6443}]]',
          'Warn write refused [["verb","patch"],["err","Conflict: the object was modified"]]',
        ])
      }),
  )
})
