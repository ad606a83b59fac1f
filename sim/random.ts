/**
 * A small seeded pseudo-random generator for the simulator: xoshiro128** (Blackman and Vigna),
 * seeded through splitmix32, in 32-bit integer arithmetic so that every platform draws the same
 * numbers. Each Cluster slot of a fleet has its own stream, derived from the run's seed and the
 * slot's index, so that what happens to one slot does not depend on how many others there are
 * or on which worker simulates it.
 *
 * @module
 */

/** One step of splitmix32: a well-mixed 32-bit value from a counter. */
export const splitmix32 = (x: number): number => {
  let z = (x + 0x9e3779b9) | 0
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
  return (z ^ (z >>> 16)) >>> 0
}

/** A 32-bit hash of a string (FNV-1a), for seeds given as text. */
export const hashString = (s: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/** xoshiro128**: 128 bits of state, period 2^128 - 1. */
export class Rng {
  private a: number
  private b: number
  private c: number
  private d: number

  /** A stream for `seed`, and within it for `stream` (e.g. a slot index). */
  constructor(seed: number, stream = 0) {
    let x = (seed ^ Math.imul(stream + 1, 0x632be5ab)) >>> 0
    this.a = x = splitmix32(x)
    this.b = x = splitmix32(x)
    this.c = x = splitmix32(x)
    this.d = splitmix32(x)
    // An all-zero state would stay zero; splitmix32 cannot give four zeros in a row, but be sure.
    if ((this.a | this.b | this.c | this.d) === 0) this.d = 1
  }

  /** The next 32-bit unsigned value. */
  next(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0
    const t = this.b << 9
    this.c ^= this.a
    this.d ^= this.b
    this.b ^= this.c
    this.a ^= this.d
    this.c ^= t
    this.d = rotl(this.d, 11)
    return result
  }

  /** A float in [0, 1) with 32 bits of randomness. */
  float(): number {
    return this.next() / 4294967296
  }

  /** A float in [min, max). */
  uniform(min: number, max: number): number {
    return min + (max - min) * this.float()
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor((max - min + 1) * this.float())
  }

  /** Whether an event of probability `p` happens. */
  chance(p: number): boolean {
    return p > 0 && this.float() < p
  }

  /** An exponentially distributed duration with the given mean (the gaps of a Poisson process). */
  exponential(mean: number): number {
    // 1 - float() is in (0, 1], so the logarithm is finite.
    return -mean * Math.log(1 - this.float())
  }
}

const rotl = (x: number, k: number): number => (x << k) | (x >>> (32 - k))
