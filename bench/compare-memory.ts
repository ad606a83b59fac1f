/**
 * Loaded into `krtt run` by `bench/compare.ts --memory` (`NODE_OPTIONS=--import=<this file>`):
 * writes `process.memoryUsage()` (rss, heapTotal, heapUsed, external, arrayBuffers, in bytes) as
 * one JSON line to the file named by `KRTT_BENCH_MEMORY_LOG` every `KRTT_BENCH_MEMORY_MS`
 * milliseconds (1,000 by default), so that the resident set can be split into the JavaScript
 * heap, memory held outside it (Buffers, TLS contexts counted as external) and the rest (code,
 * native allocations). Does nothing without the variable. The timer does not keep the process
 * alive.
 *
 * @module
 */
import { appendFileSync } from "node:fs"

const path = process.env.KRTT_BENCH_MEMORY_LOG
if (path !== undefined && path !== "") {
  const ms = Number(process.env.KRTT_BENCH_MEMORY_MS ?? "1000")
  if (!Number.isFinite(ms) || ms <= 0) throw new Error(`KRTT_BENCH_MEMORY_MS: milliseconds > 0, got ${ms}`)
  const sample = () =>
    appendFileSync(path, `${JSON.stringify({ at: Date.now(), ...process.memoryUsage() })}\n`)
  sample()
  setInterval(sample, ms).unref()
}
