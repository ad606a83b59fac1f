import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { metricLines } from "./metricLines.ts"

describe("metricLines", () => {
  it.effect("reads every series of a registry, one sorted line each, and nothing of another", () =>
    Effect.gen(function* () {
      const registry: Metric.MetricRegistry = new Map()
      const other: Metric.MetricRegistry = new Map()
      const record = Effect.gen(function* () {
        yield* Metric.update(Metric.withAttributes(Metric.counter("c_total"), { q: "a" }), 2)
        yield* Metric.update(Metric.gauge("g"), 7)
        const h = Metric.histogram("h_seconds", {
          boundaries: Metric.linearBoundaries({ start: 0, width: 1, count: 3 }),
        })
        yield* Metric.update(h, 0.5)
        yield* Metric.update(h, 1.5)
        yield* Metric.update(Metric.frequency("f"), "x")
        yield* Metric.update(Metric.frequency("f"), "x")
        yield* Metric.update(Metric.summary("s", { maxAge: "1 minute", maxSize: 10, quantiles: [0.5] }), 4)
      })
      yield* Effect.provideService(record, Metric.MetricRegistry, registry)
      yield* Effect.provideService(Metric.update(Metric.gauge("elsewhere"), 1), Metric.MetricRegistry, other)
      assert.deepStrictEqual(yield* metricLines(registry), [
        'c_total{"q":"a"} Counter 2',
        'f{} Frequency [["x",2]]',
        "g{} Gauge 7",
        "h_seconds{} Histogram count 2 sum 2",
        "s{} Summary count 1 sum 4",
      ])
    }),
  )
})
