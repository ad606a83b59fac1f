/**
 * What a process's metrics read at the end of a chaos run, as lines that equal runs share: each
 * series (its name and labels) with its value: a counter's count, a gauge's value, a histogram's
 * or summary's count and sum, a frequency's occurrences. Durations are virtual time, so a run's
 * lines are as deterministic as the run. Sorted (series are registered in the order fibers reach
 * them).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"

const reading = (m: Metric.Metric.Snapshot): string => {
  switch (m.type) {
    case "Counter":
      return String((m.state as Metric.CounterState<number>).count)
    case "Gauge":
      return String((m.state as Metric.GaugeState<number>).value)
    case "Histogram":
    case "Summary": {
      const s = m.state as Metric.HistogramState | Metric.SummaryState
      return `count ${s.count} sum ${s.sum}`
    }
    case "Frequency":
      return JSON.stringify([...(m.state as Metric.FrequencyState).occurrences].sort())
  }
}

/** The lines of every series in `registry`, sorted. */
export const metricLines = (registry: Metric.MetricRegistry): Effect.Effect<ReadonlyArray<string>> =>
  Effect.map(Effect.provideService(Metric.snapshot, Metric.MetricRegistry, registry), (snapshots) =>
    snapshots.map((m) => `${m.id}${JSON.stringify(m.attributes ?? {})} ${m.type} ${reading(m)}`).sort(),
  )
