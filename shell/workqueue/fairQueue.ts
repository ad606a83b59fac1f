/**
 * The de-duplicating, cluster-fair core of the work queue: pure data, synchronous methods,
 * no clock. Semantics of client-go's `workqueue.Typed` plus fairness across clusters.
 *
 * # Guarantees
 * - De-duplication: an item added while it waits is not added twice.
 * - One worker per key: an item added while it is being processed is not handed out again until
 *   `done`, and then it is (once), so no change is lost.
 * - Fairness: ready items are handed out round-robin over the clusters that have any, in FIFO
 *   order within a cluster; a cluster with 10,000 ready items gets one turn per round like a
 *   cluster with one.
 *
 * @module
 */
import { type Request, requestKey } from "./request.ts"

/** A FIFO with amortized O(1) push and shift. */
class Fifo<A> {
  private items: Array<A> = []
  private head = 0

  get length(): number {
    return this.items.length - this.head
  }

  push(a: A): void {
    this.items.push(a)
  }

  shift(): A | undefined {
    // Stryker disable next-line ConditionalExpression,EqualityOperator
    if (this.head >= this.items.length) return undefined
    const a = this.items[this.head]
    this.head++
    // Stryker disable all
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head)
      this.head = 0
    }
    // Stryker restore all
    return a
  }
}

/** What `add` did. */
export type AddOutcome =
  /** Now ready to be handed out. */
  | "queued"
  /** Already waiting: nothing changed. */
  | "deduplicated"
  /** Being processed: it will be queued again on `done`. */
  | "deferred"

/** The queue's state. Not an Effect: the `WorkQueue` wraps it. */
export class FairQueue {
  /** Items that need processing: waiting, or to be re-queued after processing. */
  private readonly dirty = new Map<string, Request>()
  private readonly processing = new Set<string>()
  private readonly perCluster = new Map<string, Fifo<string>>()
  /** Clusters with ready items, in round-robin order; `cursor` is the next one's index. */
  private ring: Array<string> = []
  private cursor = 0
  private ready = 0

  /** Ready items (the `workqueue_depth`). */
  get length(): number {
    return this.ready
  }

  /** Items being processed. */
  get processingCount(): number {
    return this.processing.size
  }

  /** Clusters with ready items. */
  get clusterCount(): number {
    return this.ring.length
  }

  /** Ready items of one cluster (the per-cluster `workqueue_depth`). */
  clusterLength(cluster: string): number {
    return this.perCluster.get(cluster)?.length ?? 0
  }

  /** Marks an item as needing processing. */
  add(req: Request): AddOutcome {
    const key = requestKey(req)
    if (this.dirty.has(key)) return this.processing.has(key) ? "deferred" : "deduplicated"
    this.dirty.set(key, req)
    if (this.processing.has(key)) return "deferred"
    this.push(req.cluster, key)
    return "queued"
  }

  /** Hands out the next ready item (round-robin over clusters) and marks it as processing. */
  pop(): Request | undefined {
    const cluster = this.ring[this.cursor]
    if (cluster === undefined) return undefined
    // Every cluster in the ring has a non-empty FIFO: push adds both, pop removes both together.
    const fifo = this.perCluster.get(cluster) as Fifo<string>
    const key = fifo.shift() as string
    if (fifo.length === 0) {
      this.perCluster.delete(cluster)
      this.ring.splice(this.cursor, 1)
    } else {
      this.cursor++
    }
    if (this.cursor >= this.ring.length) this.cursor = 0
    this.ready--
    const req = this.dirty.get(key)
    this.dirty.delete(key)
    this.processing.add(key)
    return req
  }

  /** Ends processing of an item; `true` when it was added meanwhile and is queued again. */
  done(req: Request): boolean {
    const key = requestKey(req)
    if (!this.processing.delete(key)) return false
    const again = this.dirty.get(key)
    if (again === undefined) return false
    this.push(again.cluster, key)
    return true
  }

  /** Whether the item is being processed. */
  isProcessing(req: Request): boolean {
    return this.processing.has(requestKey(req))
  }

  private push(cluster: string, key: string): void {
    let fifo = this.perCluster.get(cluster)
    if (fifo === undefined) {
      fifo = new Fifo()
      this.perCluster.set(cluster, fifo)
      // A newly ready cluster joins at the end of the round, just before the cursor.
      this.ring.splice(this.cursor, 0, cluster)
      this.cursor = (this.cursor + 1) % this.ring.length
    }
    fifo.push(key)
    this.ready++
  }
}
