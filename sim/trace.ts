/**
 * The simulation's trace: every decision and every world event, as fixed-width binary records,
 * streamed to a sink in batches so that memory stays flat however long the run. The trace's
 * SHA-256 is the run's fingerprint: the same seed and configuration give the same bytes.
 *
 * A record is 16 bytes: the virtual time (float64, ms since the start of the run), the Cluster
 * slot (uint32) and a word (uint32) whose top three bits say what the record is:
 *
 * - `ClusterCache` / `Cluster`: up to three row codes of 9 bits each, the rows that decided in
 *   one step of that controller (a step with more rows takes several records);
 * - `World`: a world event code (8 bits) and its argument (21 bits);
 * - `Violation`: the index of the invariant that was violated.
 *
 * Records are written in the order (time, slot) and, within a slot and a time, in the order
 * things happened; that order does not depend on how the fleet is split between workers, so
 * merging the workers' sorted streams gives the same bytes as a single-threaded run.
 *
 * @module
 */
import { createHash, type Hash } from "node:crypto"
import { parseRowId, type RowId } from "../core/krtt/index.ts"

export const RECORD_BYTES = 16
/** Records per batch: 1 MiB. */
export const BATCH_RECORDS = 65_536

export const RecordKind = { ClusterCache: 0, Cluster: 1, World: 2, Violation: 3 } as const
export type RecordKind = (typeof RecordKind)[keyof typeof RecordKind]

/** The tables whose rows have a fixed code, in a fixed order (the codes are part of the trace). */
export const TRACE_TABLES: ReadonlyArray<string> = [
  "clustercache.reconciler",
  "clustercache.accessor",
  "clustercache.health",
  "clustercache.watch",
  "clustercache.events",
  "clustercache.errors",
  "cluster.normal",
  "cluster.deletion",
  "cluster.errors",
  "cluster.infrastructure",
  "cluster.controlplane",
  "cluster.delete-flow",
]
/** The code of a row that is not in a known table or is numbered past 31. */
export const UNKNOWN_ROW = 511

const codes = new Map<string, number>()
// A small cache in front of the map, indexed by a row id's length and last character: the cores
// return the same string for a row every time, so a hit is one pointer comparison.
const CACHE = 1024
const cachedRows: Array<string> = new Array(CACHE).fill("")
const cachedCodes = new Int32Array(CACHE)

/** The 9-bit code of a row id: `(table index + 1) * 32 + n`. */
export const rowCode = (row: RowId): number => {
  const slot = (row.length * 31 + row.charCodeAt(row.length - 1)) & (CACHE - 1)
  if (cachedRows[slot] === row) return cachedCodes[slot] as number
  const code = codeOf(row)
  cachedRows[slot] = row
  cachedCodes[slot] = code
  return code
}

const codeOf = (row: RowId): number => {
  let code = codes.get(row)
  if (code !== undefined) return code
  const parsed = parseRowId(row)
  const t = parsed === undefined ? -1 : TRACE_TABLES.indexOf(parsed.table)
  code = t === -1 || parsed === undefined || parsed.n > 31 ? UNKNOWN_ROW : (t + 1) * 32 + parsed.n
  codes.set(row, code)
  return code
}

/** The row id of a code, or `undefined` for the unknown code. */
export const rowOfCode = (code: number): RowId | undefined => {
  const t = (code >> 5) - 1
  const table = TRACE_TABLES[t]
  return table === undefined || code === UNKNOWN_ROW ? undefined : `${table}#${code & 31}`
}

/** Receives full batches of records: `bytes` holds `records * 16` bytes and is only valid during the call. */
export interface TraceSink {
  readonly write: (bytes: Uint8Array, records: number) => void
}

/**
 * Writes records into a batch and hands full batches to a sink. With `transfer`, each batch's
 * buffer is handed over for good (to post it to another thread) and a new one is allocated.
 */
export class TraceWriter {
  private buffer: ArrayBuffer
  private f64: Float64Array
  private u32: Uint32Array
  private n = 0
  /** Records written so far. */
  count = 0

  private readonly sink: TraceSink
  private readonly transfer: boolean

  constructor(sink: TraceSink, transfer = false) {
    this.sink = sink
    this.transfer = transfer
    this.buffer = new ArrayBuffer(BATCH_RECORDS * RECORD_BYTES)
    this.f64 = new Float64Array(this.buffer)
    this.u32 = new Uint32Array(this.buffer)
  }

  record(time: number, slot: number, word: number): void {
    const i = this.n
    this.f64[i * 2] = time
    this.u32[i * 4 + 2] = slot
    this.u32[i * 4 + 3] = word >>> 0
    this.count++
    if (++this.n === BATCH_RECORDS) this.flush()
  }

  /** Rows of one controller step, three per record. */
  rows(
    time: number,
    slot: number,
    kind: RecordKind,
    codes: ArrayLike<number>,
    from: number,
    to: number,
  ): void {
    for (let i = from; i < to; i += 3) {
      const a = codes[i] as number
      const b = i + 1 < to ? (codes[i + 1] as number) : 0
      const c = i + 2 < to ? (codes[i + 2] as number) : 0
      this.record(time, slot, (kind << 29) | (c << 18) | (b << 9) | a)
    }
  }

  /** Hands the records written so far to the sink. */
  flush(): void {
    if (this.n === 0) return
    this.sink.write(new Uint8Array(this.buffer, 0, this.n * RECORD_BYTES), this.n)
    if (this.transfer) {
      this.buffer = new ArrayBuffer(BATCH_RECORDS * RECORD_BYTES)
      this.f64 = new Float64Array(this.buffer)
      this.u32 = new Uint32Array(this.buffer)
    }
    this.n = 0
  }
}

/** A sink that hashes the records (SHA-256) and optionally passes them on. */
export class HashSink implements TraceSink {
  private readonly hash: Hash = createHash("sha256")
  records = 0
  private readonly next: TraceSink | undefined

  constructor(next?: TraceSink) {
    this.next = next
  }

  write(bytes: Uint8Array, records: number): void {
    this.hash.update(bytes)
    this.records += records
    this.next?.write(bytes, records)
  }

  /** The hex digest; call once, at the end. */
  digest(): string {
    return this.hash.digest("hex")
  }
}

/** A sink that discards everything. */
export const nullSink: TraceSink = { write: () => {} }

/**
 * Merges sorted record streams (one per worker) into one sorted stream, batch by batch, as the
 * batches arrive. A stream that has no batch waiting and has not ended stops the merge until its
 * next batch comes, so at most a few batches per stream are held.
 */
export class TraceMerger {
  private readonly queues: Array<Array<Uint8Array>>
  private readonly ended: Array<boolean>
  private readonly heads: Array<Head | undefined>
  private readonly out: TraceWriter
  private readonly consumed: (stream: number) => void

  /** `consumed` is called when a batch of a stream has been merged (to let its producer go on). */
  constructor(streams: number, sink: TraceSink, consumed: (stream: number) => void = () => {}) {
    this.consumed = consumed
    this.queues = Array.from({ length: streams }, () => [])
    this.ended = Array.from({ length: streams }, () => false)
    this.heads = Array.from({ length: streams }, () => undefined)
    this.out = new TraceWriter(sink)
  }

  push(stream: number, batch: Uint8Array): void {
    this.queues[stream]?.push(batch)
    this.drain()
  }

  end(stream: number): void {
    this.ended[stream] = true
    this.drain()
  }

  /** Whether every stream has ended and been merged. */
  get done(): boolean {
    return this.ended.every((e, i) => e && this.heads[i] === undefined && this.queues[i]?.length === 0)
  }

  /** Writes out the last partial batch. */
  finish(): void {
    this.out.flush()
  }

  /** The current batch of stream `s`: `undefined` when the stream has ended, `null` when its next batch has not come. */
  private head(s: number): Head | undefined | null {
    const h = this.heads[s]
    if (h !== undefined && h.i < h.n) return h
    if (h !== undefined) {
      this.heads[s] = undefined
      this.consumed(s)
    }
    const next = this.queues[s]?.shift()
    if (next === undefined) return this.ended[s] ? undefined : null
    const copy = next.byteOffset % 8 === 0 ? next : new Uint8Array(next)
    const fresh: Head = {
      f64: new Float64Array(copy.buffer, copy.byteOffset, copy.byteLength / 8),
      u32: new Uint32Array(copy.buffer, copy.byteOffset, copy.byteLength / 4),
      i: 0,
      n: copy.byteLength / RECORD_BYTES,
    }
    this.heads[s] = fresh
    return fresh
  }

  private drain(): void {
    const k = this.queues.length
    const heads = this.heads
    for (;;) {
      // Every stream that has not ended needs a record at hand: it may sort first.
      let live = 0
      for (let s = 0; s < k; s++) {
        const h = this.head(s)
        if (h === null) return
        if (h !== undefined) live++
      }
      if (live === 0) return
      if (k === 2 && live === 2) {
        this.mergeTwo(heads[0] as Head, heads[1] as Head)
        continue
      }
      // The general case: copy the smallest record.
      let best: Head | undefined
      for (let s = 0; s < k; s++) {
        const h = heads[s]
        if (h === undefined) continue
        if (best === undefined || before(h, best)) best = h
      }
      const b = best as Head
      this.out.record(b.f64[b.i * 2] as number, b.u32[b.i * 4 + 2] as number, b.u32[b.i * 4 + 3] as number)
      b.i++
    }
  }

  /** Two streams: copy records until one of the two batches is used up. */
  private mergeTwo(a: Head, b: Head): void {
    const out = this.out
    const fa = a.f64
    const ua = a.u32
    const fb = b.f64
    const ub = b.u32
    let ia = a.i
    let ib = b.i
    const na = a.n
    const nb = b.n
    while (ia < na && ib < nb) {
      const ta = fa[ia * 2] as number
      const tb = fb[ib * 2] as number
      if (ta < tb || (ta === tb && (ua[ia * 4 + 2] as number) < (ub[ib * 4 + 2] as number))) {
        out.record(ta, ua[ia * 4 + 2] as number, ua[ia * 4 + 3] as number)
        ia++
      } else {
        out.record(tb, ub[ib * 4 + 2] as number, ub[ib * 4 + 3] as number)
        ib++
      }
    }
    a.i = ia
    b.i = ib
  }
}

interface Head {
  readonly f64: Float64Array
  readonly u32: Uint32Array
  i: number
  readonly n: number
}

/** Whether the current record of `a` sorts before that of `b`: time, then slot. */
const before = (a: Head, b: Head): boolean => {
  const ta = a.f64[a.i * 2] as number
  const tb = b.f64[b.i * 2] as number
  return ta < tb || (ta === tb && (a.u32[a.i * 4 + 2] as number) < (b.u32[b.i * 4 + 2] as number))
}

/** World events and their codes in the trace. */
export const WorldEvent = {
  created: 0,
  "delete-requested": 1,
  "infrastructure-provisioned": 2,
  "control-plane-initialized": 3,
  "kubeconfig-created": 4,
  "apiserver-down": 5,
  "apiserver-up": 6,
  "apiserver-slow": 7,
  "apiserver-fast": 8,
  "credentials-rotated": 9,
  "kubeconfig-fixed": 10,
  "descendant-gone": 11,
  "control-plane-gone": 12,
  "infrastructure-gone": 13,
  "cluster-removed": 14,
  "provider-stuck": 15,
} as const
export type WorldEvent = keyof typeof WorldEvent

/** World event names by code. */
export const WORLD_EVENTS: ReadonlyArray<WorldEvent> = Object.keys(WorldEvent) as Array<WorldEvent>

/** A record as one line of text, e.g. `t=10.000s slot=3 cc clustercache.reconciler#7 ...`. */
export const recordText = (
  time: number,
  slot: number,
  word: number,
  checkNames: ReadonlyArray<string> = [],
): string => {
  const kind = word >>> 29
  const t = `t=${(time / 1000).toFixed(3)}s slot=${slot}`
  switch (kind) {
    case RecordKind.ClusterCache:
    case RecordKind.Cluster: {
      const rows: Array<string> = []
      for (const code of [word & 511, (word >>> 9) & 511, (word >>> 18) & 511]) {
        if (code === 0) continue
        rows.push(rowOfCode(code) ?? `row?${code}`)
      }
      return `${t} ${kind === RecordKind.Cluster ? "cluster" : "cc"} ${rows.join(" ")}`
    }
    case RecordKind.World: {
      const code = (word >>> 21) & 255
      return `${t} world ${WORLD_EVENTS[code] ?? `event${code}`} ${word & 0x1fffff}`
    }
    default:
      return `${t} violation ${checkNames[word & 255] ?? word & 255}`
  }
}

/** A sink that writes each record as a line of text to `write`. */
export const textSink = (write: (line: string) => void, checkNames: ReadonlyArray<string>): TraceSink => ({
  write: (bytes, records) => {
    const f64 = new Float64Array(bytes.buffer, bytes.byteOffset, records * 2)
    const u32 = new Uint32Array(bytes.buffer, bytes.byteOffset, records * 4)
    let text = ""
    for (let i = 0; i < records; i++) {
      text += `${recordText(f64[i * 2] as number, u32[i * 4 + 2] as number, u32[i * 4 + 3] as number, checkNames)}\n`
    }
    write(text)
  },
})
