/**
 * The informer oracle: once a run has settled, every reflector the live process still runs must
 * keep its promise (shell/reflector/reflector.ts):
 *
 * - its store holds what its server holds, at the same resourceVersions (decoded as it decodes;
 *   an object that does not decode is out of the store and listed as undecodable);
 * - its indexes, built-in and its own, agree with its store, and so do its accessors;
 * - its status says so: synced, watching, at a resourceVersion no older than any object it holds.
 *
 * A reflector stopped by its `onError` hook is its owner's to report and is left alone.
 * `InformerLedger` is the process's `ReflectorObserver`; it also counts each reflector's lists,
 * which the fault-free run's digest holds (a reflector lists once unless its watch expires).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { KubeObject } from "../kube/resource.ts"
import type { ObservedReflector, ReflectorObserverShape } from "../reflector/observer.ts"
import {
  builtinIndexes,
  type IndexFunc,
  IndexNames,
  type ReadonlyStore,
  storeKey,
} from "../reflector/store.ts"

/** The reflectors of one process, as `ReflectorObserver` tells them. */
export class InformerLedger implements ReflectorObserverShape {
  private readonly running = new Set<ObservedReflector>()
  private readonly ever: Array<ObservedReflector> = []

  readonly started = (reflector: ObservedReflector) => {
    this.running.add(reflector)
    this.ever.push(reflector)
  }

  readonly stopped = (reflector: ObservedReflector) => {
    this.running.delete(reflector)
  }

  /** The reflectors whose scope is still open. */
  live(): ReadonlyArray<ObservedReflector> {
    return [...this.running]
  }

  /** One line per reflector still running (a leak once the process's scope has closed). */
  stillRunning(): ReadonlyArray<string> {
    return this.live().map((r) => `informer ${describe(r)}`)
  }

  /** How often each reflector the process ever ran listed, one sorted line each. */
  lists(): ReadonlyArray<string> {
    return this.ever.map((r) => `informer ${describe(r)}: ${r.status().lists} list(s)`).sort()
  }
}

/** `name (resource in namespace, selectors)`. */
const describe = (r: ObservedReflector): string => {
  const o = r.options
  const where = [
    o.namespace === undefined ? undefined : `in ${o.namespace}`,
    o.labelSelector === undefined ? undefined : `labels ${o.labelSelector}`,
    o.fieldSelector === undefined ? undefined : `fields ${o.fieldSelector}`,
  ].filter((x) => x !== undefined)
  return `${r.name} (${[o.resource.resource, ...where].join(", ")})`
}

/** Orders two resourceVersions of one server (decimal counters there); undefined if not numbers. */
const olderThan = (a: string, b: string): boolean | undefined =>
  /^\d+$/.test(a) && /^\d+$/.test(b) ? BigInt(a) < BigInt(b) : undefined

/** What a settled reflector's status says that is not so. */
const untruthfulStatus = (r: ObservedReflector): ReadonlyArray<string> => {
  const s = r.status()
  const out: Array<string> = []
  if (!s.synced) out.push("has never synced")
  if (s.phase !== "Watching") out.push(`is ${s.phase}, not Watching`)
  if (s.lists < 1 || s.watches < 1)
    out.push(`counts ${s.lists} list(s) and ${s.watches} watch(es) while watching`)
  for (const o of r.store.list()) {
    const rv = o.metadata.resourceVersion ?? ""
    if (olderThan(s.resourceVersion, rv) === true)
      out.push(`reports resourceVersion ${s.resourceVersion}, older than ${storeKey(o)}'s ${rv} in its store`)
  }
  return out
}

/** Where the store differs from `items`, the server's objects as listed now. */
const staleEntries = (r: ObservedReflector, items: ReadonlyArray<KubeObject>): ReadonlyArray<string> => {
  const out: Array<string> = []
  const want = new Map<string, string>()
  const undecodable = r.undecodable()
  for (const o of items) {
    const key = storeKey(o)
    if (r.decodes(o)) want.set(key, o.metadata.resourceVersion ?? "")
    else if (!undecodable.has(key)) out.push(`does not list ${key}, which does not decode, as undecodable`)
  }
  for (const o of r.store.list()) {
    const key = storeKey(o)
    const rv = want.get(key)
    if (rv === undefined) out.push(`holds ${key}, which its server no longer has`)
    else if (rv !== o.metadata.resourceVersion)
      out.push(`holds ${key} at resourceVersion ${o.metadata.resourceVersion}, its server at ${rv}`)
  }
  for (const key of want.keys())
    if (r.store.get(key) === undefined) out.push(`misses ${key}, which its server has`)
  return out
}

const sortedKeys = (objects: ReadonlyArray<KubeObject>): string => objects.map(storeKey).sort().join(",")

/** The built-in accessors that read one index, with the index value they read. */
const accessors = (store: ReadonlyStore<KubeObject>, index: string, value: string) => {
  if (index === IndexNames.namespace) return store.byNamespace(value)
  if (index === IndexNames.owner) return store.byOwner(value)
  const at = value.indexOf("=")
  return store.byLabel(value.slice(0, at), value.slice(at + 1))
}

/**
 * Where a store's indexes and accessors disagree with its objects: each index's values and the
 * keys under each, `byNamespace`/`byOwner`/`byLabel`, `keys`, `size` and `get`.
 */
export const inconsistentIndexes = (
  store: ReadonlyStore<KubeObject>,
  indexers: Readonly<Record<string, IndexFunc<KubeObject>>> = {},
): ReadonlyArray<string> => {
  const out: Array<string> = []
  const objects = store.list()
  if (store.size() !== objects.length) out.push(`size ${store.size()} with ${objects.length} objects`)
  if ([...store.keys()].sort().join(",") !== sortedKeys(objects)) out.push("keys are not its objects' keys")
  for (const o of objects) if (store.get(storeKey(o)) !== o) out.push(`get(${storeKey(o)}) is not its object`)
  for (const [index, fn] of Object.entries({ ...builtinIndexes, ...indexers })) {
    const want = new Map<string, Array<KubeObject>>()
    for (const o of objects) for (const v of fn(o)) want.set(v, [...(want.get(v) ?? []), o])
    const listedValues = new Set(store.indexValues(index))
    for (const value of new Set([...want.keys(), ...listedValues])) {
      const expected = sortedKeys(want.get(value) ?? [])
      const have = sortedKeys(store.byIndex(index, value))
      if (have !== expected)
        out.push(`index ${index} under ${JSON.stringify(value)} lists [${have}], not [${expected}]`)
      const listed = listedValues.has(value)
      if (!listed && expected !== "")
        out.push(`index ${index} does not list the value ${JSON.stringify(value)}`)
      if (listed && expected === "")
        out.push(`index ${index} keeps the value ${JSON.stringify(value)}, which no object has`)
      if (index in builtinIndexes && sortedKeys(accessors(store, index, value)) !== expected)
        out.push(`the accessor of index ${index} under ${JSON.stringify(value)} disagrees with the index`)
    }
  }
  return out
}

/** What one settled reflector does not keep of its promise, its server listed through its client. */
const unfaithful = (r: ObservedReflector): Effect.Effect<ReadonlyArray<string>> =>
  Effect.gen(function* () {
    if (r.status().stopped === true) return []
    const o = r.options
    const listed = yield* Effect.result(
      r.client.listAll(o.resource, {
        namespace: o.namespace,
        labelSelector: o.labelSelector,
        fieldSelector: o.fieldSelector,
      }),
    )
    const found = [
      ...untruthfulStatus(r),
      ...(Result.isSuccess(listed)
        ? staleEntries(r, listed.success.items)
        : [`cannot be checked: its server refuses the list (${listed.failure._tag})`]),
      ...inconsistentIndexes(r.store, o.indexers),
    ]
    return found.map((f) => `informer ${describe(r)} ${f}`)
  })

/**
 * What the live reflectors of a settled process do not keep of their promise, each line naming
 * the informer. Each server is listed through the reflector's own client, which the run lets
 * through unperturbed while it inspects (`ChaosState.inspecting`); a server that refuses is said so,
 * and so is a process that told of no reflector (every suite's controllers run on informers).
 */
export const unfaithfulInformers = (ledger: InformerLedger): Effect.Effect<ReadonlyArray<string>> =>
  ledger.live().length === 0
    ? Effect.succeed(["informer: the live process told of no running reflector"])
    : Effect.map(Effect.forEach(ledger.live(), unfaithful), (lines) => [...new Set(lines.flat())].sort())
