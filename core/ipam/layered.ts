/**
 * A persistent map for the allocator's state: a shared base map plus a small overlay of recent
 * changes. `with` and `without` return a new map and leave the old one intact; the overlay is
 * folded into a new base once it grows past about the square root of the base, so an update
 * costs O(√n) amortized instead of a copy of n entries. Reads see the overlay first.
 *
 * @module
 */

const GONE: unique symbol = Symbol("gone")
type Slot<V> = V | typeof GONE

export class LayeredMap<K, V> implements ReadonlyMap<K, V> {
  private readonly base: ReadonlyMap<K, V>
  private readonly overlay: ReadonlyMap<K, Slot<V>>
  readonly size: number

  private constructor(base: ReadonlyMap<K, V>, overlay: ReadonlyMap<K, Slot<V>>, size: number) {
    this.base = base
    this.overlay = overlay
    this.size = size
  }

  /** A layered map holding the entries of `m` (shared, not copied, when it is one already). */
  static of<K, V>(m: ReadonlyMap<K, V>): LayeredMap<K, V> {
    return m instanceof LayeredMap ? (m as LayeredMap<K, V>) : new LayeredMap(m, new Map(), m.size)
  }

  get(key: K): V | undefined {
    const o = this.overlay.get(key)
    if (o !== undefined) return o === GONE ? undefined : o
    return this.overlay.has(key) ? undefined : this.base.get(key)
  }

  has(key: K): boolean {
    const o = this.overlay.get(key)
    // Stryker disable next-line LogicalOperator
    if (o !== undefined || this.overlay.has(key)) return o !== GONE
    return this.base.has(key)
  }

  private next(overlay: Map<K, Slot<V>>, size: number): LayeredMap<K, V> {
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator,MethodExpression
    if (overlay.size * overlay.size <= Math.max(1_024, this.base.size))
      return new LayeredMap(this.base, overlay, size)
    const flat = new Map(this.base)
    for (const [k, v] of overlay) {
      if (v === GONE) flat.delete(k)
      else flat.set(k, v)
    }
    return new LayeredMap(flat, new Map(), size)
  }

  /** A map with `key` set to `value`. */
  with(key: K, value: V): LayeredMap<K, V> {
    const overlay = new Map(this.overlay)
    overlay.set(key, value)
    return this.next(overlay, this.has(key) ? this.size : this.size + 1)
  }

  /** A map without `key`. */
  without(key: K): LayeredMap<K, V> {
    if (!this.has(key)) return this
    const overlay = new Map(this.overlay)
    overlay.set(key, GONE)
    return this.next(overlay, this.size - 1)
  }

  *entries(): MapIterator<[K, V]> {
    for (const [k, v] of this.base) {
      if (this.overlay.has(k)) continue
      yield [k, v]
    }
    for (const [k, v] of this.overlay) if (v !== GONE) yield [k, v]
  }

  *keys(): MapIterator<K> {
    for (const [k] of this.entries()) yield k
  }

  *values(): MapIterator<V> {
    for (const [, v] of this.entries()) yield v
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries()
  }

  forEach(f: (value: V, key: K, map: ReadonlyMap<K, V>) => void): void {
    for (const [k, v] of this.entries()) f(v, k, this)
  }
}
