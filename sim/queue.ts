/**
 * The simulator's event queue: a binary min-heap of timed events in typed arrays, plus FIFO
 * lanes for the common case of events that arrive already in order, so that pushing and popping
 * allocate nothing once the arrays have grown to the run's needs.
 *
 * Events are ordered by time, then by an `order` key that the simulator makes unique and
 * meaningful (slot index, then the slot's own event counter): two runs that push the same
 * events pop them in the same order, whatever the order of the pushes. Each event carries one
 * 32-bit integer of payload.
 *
 * Lanes: most events of a fleet are requeues after one fixed interval (the 10 s health probe),
 * pushed at a time that never decreases, so they arrive sorted. {@link EventQueue.pushLane} appends
 * such an event to a FIFO lane in O(1), with sequential memory access; an event that would break
 * the lane's order goes to the heap instead. Popping takes the smallest of the heap's top and the
 * lanes' heads, so the order of events is exactly that of a single heap.
 *
 * @module
 */

/** A FIFO of events in key order, in a growable ring buffer. */
class Lane {
  times = new Float64Array(1024)
  orders = new Float64Array(1024)
  payloads = new Int32Array(1024)
  head = 0
  size = 0
  lastTime = Number.NEGATIVE_INFINITY
  lastOrder = Number.NEGATIVE_INFINITY

  push(time: number, order: number, payload: number): void {
    if (this.size === this.times.length) this.grow()
    const mask = this.times.length - 1
    const at = (this.head + this.size) & mask
    this.times[at] = time
    this.orders[at] = order
    this.payloads[at] = payload
    this.size++
    this.lastTime = time
    this.lastOrder = order
  }

  private grow(): void {
    const n = this.times.length
    const times = new Float64Array(n * 2)
    const orders = new Float64Array(n * 2)
    const payloads = new Int32Array(n * 2)
    for (let k = 0; k < this.size; k++) {
      const from = (this.head + k) & (n - 1)
      times[k] = this.times[from] as number
      orders[k] = this.orders[from] as number
      payloads[k] = this.payloads[from] as number
    }
    this.times = times
    this.orders = orders
    this.payloads = payloads
    this.head = 0
  }
}

/** A queue of timed events with integer payloads, popped by time then order key (see the module comment). */
export class EventQueue {
  private times: Float64Array
  private orders: Float64Array
  private payloads: Int32Array
  private n = 0
  private readonly lanes: Array<Lane>
  /** Where the earliest event is: -1 the heap, k lane k, -2 not yet known. */
  private source = -2

  constructor(capacity = 1024, lanes = 0) {
    this.times = new Float64Array(capacity)
    this.orders = new Float64Array(capacity)
    this.payloads = new Int32Array(capacity)
    this.lanes = Array.from({ length: lanes }, () => new Lane())
  }

  /** How many events wait. */
  get size(): number {
    let n = this.n
    for (const l of this.lanes) n += l.size
    return n
  }

  /** Finds where the earliest event is; -1 for none or the heap. */
  private find(): number {
    if (this.source !== -2) return this.source
    let src = -1
    let t = this.n > 0 ? (this.times[0] as number) : Number.POSITIVE_INFINITY
    let o = this.n > 0 ? (this.orders[0] as number) : Number.POSITIVE_INFINITY
    for (let k = 0; k < this.lanes.length; k++) {
      const l = this.lanes[k] as Lane
      if (l.size === 0) continue
      const lt = l.times[l.head] as number
      const lo = l.orders[l.head] as number
      if (lt < t || (lt === t && lo < o)) {
        src = k
        t = lt
        o = lo
      }
    }
    this.source = src
    return src
  }

  /** The time of the earliest event, or `Infinity` when there is none. */
  peekTime(): number {
    const src = this.find()
    if (src === -1) return this.n === 0 ? Number.POSITIVE_INFINITY : (this.times[0] as number)
    const l = this.lanes[src] as Lane
    return l.times[l.head] as number
  }

  /** The order key of the earliest event (only meaningful when `size > 0`). */
  peekOrder(): number {
    const src = this.find()
    if (src === -1) return this.orders[0] as number
    const l = this.lanes[src] as Lane
    return l.orders[l.head] as number
  }

  /** The payload of the earliest event (only meaningful when `size > 0`). */
  peekPayload(): number {
    const src = this.find()
    if (src === -1) return this.payloads[0] as number
    const l = this.lanes[src] as Lane
    return l.payloads[l.head] as number
  }

  /** The time, order key and payload of the event {@link EventQueue.take} removed last. */
  time = 0
  order = 0
  payload = 0

  /**
   * Removes the earliest event if it is due before `limit`, leaving it in `time`, `order` and
   * `payload`; returns false (and removes nothing) when there is none.
   */
  take(limit: number): boolean {
    const src = this.find()
    if (src === -1) {
      if (this.n === 0) return false
      const t = this.times[0] as number
      if (t >= limit) return false
      this.time = t
      this.order = this.orders[0] as number
      this.payload = this.payloads[0] as number
      this.source = -2
      this.popHeap()
      return true
    }
    const l = this.lanes[src] as Lane
    const at = l.head
    const t = l.times[at] as number
    if (t >= limit) return false
    this.time = t
    this.order = l.orders[at] as number
    this.payload = l.payloads[at] as number
    this.source = -2
    l.head = (at + 1) & (l.times.length - 1)
    if (--l.size === 0) {
      l.lastTime = Number.NEGATIVE_INFINITY
      l.lastOrder = Number.NEGATIVE_INFINITY
    }
    return true
  }

  /** Removes the earliest event; read it with the `peek` methods first. */
  pop(): void {
    const src = this.find()
    this.source = -2
    if (src === -1) {
      this.popHeap()
      return
    }
    const l = this.lanes[src] as Lane
    l.head = (l.head + 1) & (l.times.length - 1)
    if (--l.size === 0) {
      // An empty lane takes any event next.
      l.lastTime = Number.NEGATIVE_INFINITY
      l.lastOrder = Number.NEGATIVE_INFINITY
    }
  }

  /**
   * Adds an event to lane `lane` if it sorts after the lane's last event (the common case of
   * events pushed in order), else to the heap.
   */
  pushLane(lane: number, time: number, order: number, payload: number): void {
    const l = this.lanes[lane]
    if (l === undefined || time < l.lastTime || (time === l.lastTime && order < l.lastOrder)) {
      this.push(time, order, payload)
      return
    }
    l.push(time, order, payload)
    this.source = -2
  }

  push(time: number, order: number, payload: number): void {
    this.source = -2
    if (this.n === this.times.length) this.grow()
    const times = this.times
    const orders = this.orders
    const payloads = this.payloads
    // Sift up: move parents down until the new event's place is found.
    let i = this.n++
    while (i > 0) {
      const p = (i - 1) >> 1
      const pt = times[p] as number
      if (pt < time || (pt === time && (orders[p] as number) <= order)) break
      times[i] = pt
      orders[i] = orders[p] as number
      payloads[i] = payloads[p] as number
      i = p
    }
    times[i] = time
    orders[i] = order
    payloads[i] = payload
  }

  private popHeap(): void {
    const n = --this.n
    if (n <= 0) {
      if (n < 0) this.n = 0
      return
    }
    const times = this.times
    const orders = this.orders
    const payloads = this.payloads
    const time = times[n] as number
    const order = orders[n] as number
    const payload = payloads[n] as number
    // Sift the last event down from the root.
    let i = 0
    for (;;) {
      let c = 2 * i + 1
      if (c >= n) break
      const r = c + 1
      if (r < n) {
        const ct = times[c] as number
        const rt = times[r] as number
        if (rt < ct || (rt === ct && (orders[r] as number) < (orders[c] as number))) c = r
      }
      const ct = times[c] as number
      if (time < ct || (time === ct && order <= (orders[c] as number))) break
      times[i] = ct
      orders[i] = orders[c] as number
      payloads[i] = payloads[c] as number
      i = c
    }
    times[i] = time
    orders[i] = order
    payloads[i] = payload
  }

  private grow(): void {
    const size = this.times.length * 2
    const times = new Float64Array(size)
    const orders = new Float64Array(size)
    const payloads = new Int32Array(size)
    times.set(this.times)
    orders.set(this.orders)
    payloads.set(this.payloads)
    this.times = times
    this.orders = orders
    this.payloads = payloads
  }
}
