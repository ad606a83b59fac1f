/**
 * A persistent set of dependents keyed by UID (seed 002: `Dependents map[types.UID]metav1.Object`):
 * adding and removing return a new set in O(log n), sharing the rest, so that the registry can be
 * updated immutably without copying an informer's dependents. JSON shows it as an array sorted by
 * UID.
 *
 * @module
 */
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import type { Dependent } from "./types.ts"

/** Dependents by UID; immutable. */
export class DependentSet {
  private readonly map: HashMap.HashMap<string, Dependent>

  private constructor(map: HashMap.HashMap<string, Dependent>) {
    this.map = map
  }

  /** The empty set. */
  static readonly empty: DependentSet = new DependentSet(HashMap.empty())

  /** A set of the given dependents; a later one with the same UID replaces an earlier one. */
  static fromArray(dependents: ReadonlyArray<Dependent>): DependentSet {
    return new DependentSet(HashMap.fromIterable(dependents.map((d) => [d.uid, d] as const)))
  }

  /** Whether a value is a DependentSet. */
  static is(u: unknown): u is DependentSet {
    return u instanceof DependentSet
  }

  get size(): number {
    return HashMap.size(this.map)
  }

  has(uid: string): boolean {
    return HashMap.has(this.map, uid)
  }

  get(uid: string): Dependent | undefined {
    return Option.getOrUndefined(HashMap.get(this.map, uid))
  }

  /** The set with `d` (replacing a dependent with the same UID). */
  add(d: Dependent): DependentSet {
    return new DependentSet(HashMap.set(this.map, d.uid, d))
  }

  /** The set without the dependent of that UID (the same set when it is absent). */
  remove(uid: string): DependentSet {
    return this.has(uid) ? new DependentSet(HashMap.remove(this.map, uid)) : this
  }

  /** The dependents sorted by UID. */
  toArray(): ReadonlyArray<Dependent> {
    // Stryker disable next-line EqualityOperator
    return HashMap.toValues(this.map).sort((a, b) => (a.uid < b.uid ? -1 : 1))
  }

  toJSON(): ReadonlyArray<Dependent> {
    return this.toArray()
  }
}
