import { describe, expect, it } from "vitest"
import {
  RecordKind,
  recordText,
  rowCode,
  rowOfCode,
  TraceMerger,
  type TraceSink,
  TraceWriter,
  UNKNOWN_ROW,
} from "./trace.ts"

/** A sink that keeps (time, slot, word) triples. */
const collect = (): TraceSink & { records: Array<[number, number, number]> } => {
  const records: Array<[number, number, number]> = []
  return {
    records,
    write: (bytes, n) => {
      const f64 = new Float64Array(bytes.buffer, bytes.byteOffset, n * 2)
      const u32 = new Uint32Array(bytes.buffer, bytes.byteOffset, n * 4)
      for (let i = 0; i < n; i++)
        records.push([f64[i * 2] as number, u32[i * 4 + 2] as number, u32[i * 4 + 3] as number])
    },
  }
}

describe("row codes", () => {
  it("round-trip the rows of the known tables", () => {
    for (const row of [
      "clustercache.reconciler#1",
      "clustercache.accessor#9",
      "cluster.delete-flow#16",
    ] as const)
      expect(rowOfCode(rowCode(row))).toBe(row)
    expect(rowCode("other.table#3")).toBe(UNKNOWN_ROW)
  })
})

describe("TraceMerger", () => {
  it("merges sorted streams into the order of one stream, whatever the batches", () => {
    const events: Array<[number, number]> = []
    for (let t = 0; t < 50; t++)
      for (let slot = 0; slot < 6; slot++) if ((t * 7 + slot) % 3 !== 0) events.push([t, slot])
    const whole = collect()
    const w = new TraceWriter(whole)
    for (const [t, slot] of events) w.record(t, slot, slot * 1_000 + t)
    w.flush()
    const merged = collect()
    const merger = new TraceMerger(3, merged)
    // Three workers, slot % 3, each posting small batches at its own pace.
    const batches = [0, 1, 2].map((k) => {
      const out: Array<Uint8Array> = []
      const writer = new TraceWriter({ write: (bytes) => out.push(bytes.slice()) })
      let n = 0
      for (const [t, slot] of events)
        if (slot % 3 === k) {
          writer.record(t, slot, slot * 1_000 + t)
          if (++n % (k + 2) === 0) writer.flush()
        }
      writer.flush()
      return out
    })
    for (let round = 0; batches.some((b) => b.length > 0); round++)
      for (const k of [2, 0, 1]) {
        const next = batches[k]?.shift()
        if (next !== undefined) merger.push(k, next)
        else if (round >= 0 && batches[k]?.length === 0) merger.end(k)
      }
    for (const k of [0, 1, 2]) merger.end(k)
    merger.finish()
    expect(merged.records).toEqual(whole.records)
    expect(merger.done).toBe(true)
  })
})

describe("recordText", () => {
  it("reads rows, world events and violations", () => {
    const rows =
      (RecordKind.ClusterCache << 29) |
      (rowCode("clustercache.reconciler#12") << 18) |
      (rowCode("clustercache.reconciler#8") << 9) |
      rowCode("clustercache.reconciler#7")
    expect(recordText(10_000, 3, rows)).toBe(
      "t=10.000s slot=3 cc clustercache.reconciler#7 clustercache.reconciler#8 clustercache.reconciler#12",
    )
    expect(recordText(0, 1, (RecordKind.World << 29) | (5 << 21) | 300)).toBe(
      "t=0.000s slot=1 world apiserver-down 300",
    )
    expect(recordText(0, 1, (RecordKind.Violation << 29) | 1, ["a", "probe-interval"])).toBe(
      "t=0.000s slot=1 violation probe-interval",
    )
  })
})
