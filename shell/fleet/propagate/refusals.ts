/**
 * `Refusals`: which namespaces of which clusters refused the identity a kind, and when, so that
 * a refused namespace is asked again only after an interval (`permissionRecheckInterval`).
 *
 * Without it a refusal feeds itself: each reconcile adds the copy's informer, whose list is
 * refused; the scoped cache stops it and tells its dependents (`PermissionLost`), which enqueues
 * the source at once, whose reconcile adds the informer again: a reconcile and a LIST per turn,
 * without pause, for as long as the Role is missing.
 *
 * Guarantees: a cluster is known by its cache, so a cluster engaged anew (a new cache) is asked
 * at once; an answer that is not a refusal forgets the refusal.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { SourceKind } from "../../../core/propagate/index.ts"

/** Where the copy of a kind would be: a cluster's cache and a namespace in it. */
export interface Where {
  readonly cache: object
  readonly kind: SourceKind
  readonly namespace: string
}

export interface Refusals {
  /** Whether `where` refused less than the interval ago (then it is not asked now). */
  readonly recent: (where: Where) => Effect.Effect<boolean>
  /** `where` refused now. */
  readonly refused: (where: Where) => Effect.Effect<void>
  /** `where` answered: it is asked freely again. */
  readonly answered: (where: Where) => void
}

/** Refusals remembered for `intervalMillis` each. */
export const makeRefusals = (intervalMillis: number): Refusals => {
  const byCache = new WeakMap<object, Map<string, number>>()
  const slot = (where: Where) => {
    let times = byCache.get(where.cache)
    if (times === undefined) {
      times = new Map()
      byCache.set(where.cache, times)
    }
    return { times, key: `${where.kind}/${where.namespace}` }
  }
  return {
    recent: (where) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const { times, key } = slot(where)
        const at = times.get(key)
        return at !== undefined && now - at < intervalMillis
      }),
    refused: (where) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const { times, key } = slot(where)
        times.set(key, now)
      }),
    answered: (where) => {
      const { times, key } = slot(where)
      times.delete(key)
    },
  }
}
