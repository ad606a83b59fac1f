/**
 * The simulator's event queue: a binary min-heap of timed events in typed arrays, so that
 * pushing and popping allocate nothing once the arrays have grown to the run's needs.
 *
 * Events are ordered by time, then by an `order` key that the simulator makes unique and
 * meaningful (slot index, then the slot's own event counter): two runs that push the same
 * events pop them in the same order, whatever the order of the pushes. Each event carries one
 * 32-bit integer of payload.
 *
 * @module
 */

export class EventQueue {
  private times: Float64Array
  private orders: Float64Array
  private payloads: Int32Array
  private n = 0

  constructor(capacity = 1024) {
    this.times = new Float64Array(capacity)
    this.orders = new Float64Array(capacity)
    this.payloads = new Int32Array(capacity)
  }

  /** How many events wait. */
  get size(): number {
    return this.n
  }

  /** The time of the earliest event, or `Infinity` when there is none. */
  peekTime(): number {
    return this.n === 0 ? Number.POSITIVE_INFINITY : (this.times[0] as number)
  }

  /** The order key of the earliest event (only meaningful when `size > 0`). */
  peekOrder(): number {
    return this.orders[0] as number
  }

  /** The payload of the earliest event (only meaningful when `size > 0`). */
  peekPayload(): number {
    return this.payloads[0] as number
  }

  push(time: number, order: number, payload: number): void {
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

  /** Removes the earliest event; read it with the `peek` methods first. */
  pop(): void {
    const n = --this.n
    if (n <= 0) return
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
