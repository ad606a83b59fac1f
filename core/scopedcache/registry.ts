/**
 * The registry (seed 002, "Cache Components"): scope (cluster or namespace) → GVK → informer key
 * → informer {state, dependents}, as an immutable value the shell keeps in a `SynchronizedRef`.
 *
 * Every operation reads the slice of the registry it touches, runs the documented table on it
 * (`informers.ts`, `lifecycle.ts`, `reads.ts`) and writes the result back; the returned `row`
 * names the table row that decided. Updates are persistent (effect's `HashMap`): an operation
 * costs O(log n) plus, for a cluster-level informer, O(namespace-level informers of its GVK and
 * key); nothing copies the whole registry. `Start` and `WaitForCacheSync` visit every informer.
 *
 * Empty levels are pruned: a scope without GVKs and a GVK without informers are not kept.
 *
 * @module
 */
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as Option from "effect/Option"
import { compareText } from "../krtt/compare.ts"
import type { RowId } from "../krtt/index.ts"
import type { ScopedCacheAction } from "./actions.ts"
import {
  type InformersInput,
  type InformersResult,
  type InformersTrigger,
  informersTransition,
  type PermissionVerb,
} from "./informers.ts"
import { type InformerSummary, type LifecycleResult, lifecycleTransition } from "./lifecycle.ts"
import type { ScopedCacheOptions } from "./options.ts"
import { type ReadsResult, type ReadsTrigger, readsTransition } from "./reads.ts"
import type { Dependent, InformerEntry, InformerRef, Peer } from "./types.ts"
import { CLUSTER_SCOPE, gvkString, isClusterLevel } from "./types.ts"

type Informers = HashMap.HashMap<string, InformerEntry>
type GvkToInformers = HashMap.HashMap<string, Informers>

/** The registry; build it with {@link emptyRegistry} and change it only through the operations. */
export interface Registry {
  /** Whether `Start` has run. */
  readonly started: boolean
  /** Namespace ("" for cluster level) → GVK string → informer key → informer. */
  readonly scopes: HashMap.HashMap<string, GvkToInformers>
  /** GVK string + key → namespaces with a namespace-level informer of that GVK and key. */
  readonly peerIndex: HashMap.HashMap<string, HashSet.HashSet<string>>
  /** Number of registered informers. */
  readonly size: number
}

/** A registry without informers, not started. */
export const emptyRegistry: Registry = {
  started: false,
  scopes: HashMap.empty(),
  peerIndex: HashMap.empty(),
  size: 0,
}

const peerKey = (ref: InformerRef) => `${gvkString(ref.gvk)}\u0000${ref.key}`

/** The informer a ref names, if registered. */
export const lookup = (registry: Registry, ref: InformerRef): InformerEntry | undefined => {
  const gvks = HashMap.get(registry.scopes, ref.namespace)
  if (Option.isNone(gvks)) return undefined
  const informers = HashMap.get(gvks.value, gvkString(ref.gvk))
  if (Option.isNone(informers)) return undefined
  return Option.getOrUndefined(HashMap.get(informers.value, ref.key))
}

/** Writes (or, with `undefined`, deletes) the informer of a ref, pruning empty levels. */
const write = (
  registry: Registry,
  ref: InformerRef,
  entry: InformerEntry | undefined,
  before: InformerEntry | undefined = lookup(registry, ref),
): Registry => {
  // Stryker disable next-line ConditionalExpression
  if (before === entry) return registry
  const gvk = gvkString(ref.gvk)
  const gvks = Option.getOrElse(HashMap.get(registry.scopes, ref.namespace), () =>
    HashMap.empty<string, Informers>(),
  )
  const informers = Option.getOrElse(HashMap.get(gvks, gvk), () => HashMap.empty<string, InformerEntry>())
  const nextInformers =
    entry === undefined ? HashMap.remove(informers, ref.key) : HashMap.set(informers, ref.key, entry)
  const nextGvks = HashMap.isEmpty(nextInformers)
    ? HashMap.remove(gvks, gvk)
    : HashMap.set(gvks, gvk, nextInformers)
  const scopes = HashMap.isEmpty(nextGvks)
    ? HashMap.remove(registry.scopes, ref.namespace)
    : HashMap.set(registry.scopes, ref.namespace, nextGvks)
  let peerIndex = registry.peerIndex
  // Stryker disable next-line ConditionalExpression
  if (!isClusterLevel(ref) && (before === undefined) !== (entry === undefined)) {
    const k = peerKey(ref)
    const set = Option.getOrElse(HashMap.get(peerIndex, k), () => HashSet.empty<string>())
    const next = entry === undefined ? HashSet.remove(set, ref.namespace) : HashSet.add(set, ref.namespace)
    peerIndex = HashSet.size(next) === 0 ? HashMap.remove(peerIndex, k) : HashMap.set(peerIndex, k, next)
  }
  const size = registry.size + (before === undefined ? 1 : 0) - (entry === undefined ? 1 : 0)
  return { started: registry.started, scopes, peerIndex, size }
}

/** The namespace-level informers of the same GVK and key as a cluster-level ref. */
const peersOf = (registry: Registry, ref: InformerRef): ReadonlyArray<Peer> => {
  if (!isClusterLevel(ref)) return []
  const namespaces = HashMap.get(registry.peerIndex, peerKey(ref))
  if (Option.isNone(namespaces)) return []
  const peers: Array<Peer> = []
  for (const namespace of namespaces.value) {
    const entry = lookup(registry, { ...ref, namespace })
    // Stryker disable next-line ConditionalExpression
    if (entry !== undefined) peers.push({ namespace, state: entry.state })
  }
  return peers.sort((a, b) => compareText(a.namespace, b.namespace))
}

/** The slice of the registry that `scopedcache.informers` decides on, and the entry it read. */
const slice = (
  registry: Registry,
  ref: InformerRef,
  trigger: InformersTrigger,
  options: ScopedCacheOptions,
  now: number,
): { readonly input: InformersInput; readonly entry: InformerEntry | undefined } => {
  const entry = lookup(registry, ref)
  const input: InformersInput = {
    observed: {
      started: registry.started,
      informer: entry === undefined ? undefined : { state: entry.state, dependents: entry.dependents },
      coveredByCluster:
        !isClusterLevel(ref) && lookup(registry, { ...ref, namespace: CLUSTER_SCOPE }) !== undefined,
      peers: peersOf(registry, ref),
    },
    desired: { ref, automaticTermination: options.automaticTermination },
    trigger,
    now,
  }
  return { input, entry }
}

/** The slice of the registry that `scopedcache.informers` decides on. */
export const informersInput = (
  registry: Registry,
  ref: InformerRef,
  trigger: InformersTrigger,
  options: ScopedCacheOptions,
  now = 0,
): InformersInput => slice(registry, ref, trigger, options, now).input

/** What an operation did: the new registry, the actions for the shell, the deciding row. */
export interface Step {
  readonly registry: Registry
  readonly actions: ReadonlyArray<ScopedCacheAction>
  readonly row: RowId
}

/** Writes an `informers` result back. */
const commit = (
  registry: Registry,
  input: InformersInput,
  result: InformersResult,
  existing: InformerEntry | undefined,
): Registry => {
  const { ref } = input.desired
  const before = input.observed.informer
  const after = result.status.informer
  let next = registry
  if (after !== before) {
    const entry = after === undefined ? undefined : { ref, state: after.state, dependents: after.dependents }
    next = write(next, ref, entry, existing)
  }
  const peersBefore = input.observed.peers
  result.status.peers.forEach((p, i) => {
    // Stryker disable next-line ConditionalExpression
    if (peersBefore[i] === p) return
    const peerRef = { ...ref, namespace: p.namespace }
    const entry = lookup(next, peerRef)
    // Stryker disable next-line ConditionalExpression,LogicalOperator
    if (entry !== undefined && entry.state !== p.state)
      next = write(next, peerRef, { ...entry, state: p.state })
  })
  return next
}

/** Runs `scopedcache.informers` for an operation on an informer. */
export const applyInformers = (
  registry: Registry,
  ref: InformerRef,
  trigger: InformersTrigger,
  options: ScopedCacheOptions,
): Step => {
  const { input, entry } = slice(registry, ref, trigger, options, 0)
  const result = informersTransition(input, options)
  return { registry: commit(registry, input, result, entry), actions: result.actions, row: result.row }
}

/** `AddInformer`: a new informer, or one more dependent of an existing one. */
export const addInformer = (
  registry: Registry,
  ref: InformerRef,
  dependent: Dependent,
  options: ScopedCacheOptions,
) => applyInformers(registry, ref, { _tag: "AddInformer", dependent }, options)

/** `RemoveInformer`: one dependent less; the informer goes with the last one (automatic termination). */
export const removeInformer = (
  registry: Registry,
  ref: InformerRef,
  dependent: Dependent,
  options: ScopedCacheOptions,
) => applyInformers(registry, ref, { _tag: "RemoveInformer", dependent }, options)

/** A forced removal: the informer goes whatever its dependents (they are told). */
export const forceRemove = (registry: Registry, ref: InformerRef, options: ScopedCacheOptions) =>
  applyInformers(registry, ref, { _tag: "ForceRemove" }, options)

/** A 403 on the informer's list or watch: it stops, its dependents are told. */
export const permissionLost = (
  registry: Registry,
  ref: InformerRef,
  verb: PermissionVerb,
  message: string,
  options: ScopedCacheOptions,
) => applyInformers(registry, ref, { _tag: "PermissionLost", verb, message }, options)

/** The informer's first list is stored. */
export const informerSynced = (registry: Registry, ref: InformerRef, options: ScopedCacheOptions) =>
  applyInformers(registry, ref, { _tag: "InformerSynced" }, options)

/** Every registered informer (in no particular order). */
export function* entries(registry: Registry): Generator<InformerEntry> {
  for (const gvks of HashMap.values(registry.scopes))
    for (const informers of HashMap.values(gvks)) yield* HashMap.values(informers)
}

/** Every registered informer as `{ref, state}`, sorted by ref, for the lifecycle table. */
export const summaries = (registry: Registry): ReadonlyArray<InformerSummary> =>
  [...entries(registry)]
    .map((e) => ({ ref: e.ref, state: e.state }))
    .sort((a, b) => compareRefs(a.ref, b.ref))

/** Orders refs by namespace, GVK string, key. */
export const compareRefs = (a: InformerRef, b: InformerRef): number => {
  const ka = [a.namespace, gvkString(a.gvk), a.key]
  const kb = [b.namespace, gvkString(b.gvk), b.key]
  // Stryker disable next-line EqualityOperator
  for (let i = 0; i < 3; i++) {
    const x = ka[i] as string
    const y = kb[i] as string
    // Stryker disable next-line EqualityOperator
    if (x !== y) return x < y ? -1 : 1
  }
  return 0
}

/** `Start`: the cache is started and every pending informer starts. */
export const start = (registry: Registry, options: ScopedCacheOptions): Step => {
  const observed = { started: registry.started, informers: summaries(registry) }
  const result: LifecycleResult = lifecycleTransition(
    { observed, desired: {}, trigger: { _tag: "Start" }, now: 0 },
    options,
  )
  let next: Registry = { ...registry, started: result.status.started }
  result.status.informers.forEach((s, i) => {
    // Stryker disable next-line ConditionalExpression
    if (observed.informers[i] === s) return
    const entry = lookup(next, s.ref)
    // Stryker disable next-line ConditionalExpression
    if (entry !== undefined) next = write(next, s.ref, { ...entry, state: s.state })
  })
  return { registry: next, actions: result.actions, row: result.row }
}

/** `IsStarted`. */
export const isStarted = (registry: Registry): boolean => registry.started

/** `WaitForCacheSync`'s condition: started, and every informer that should run has synced. */
export const isSynced = (registry: Registry, options: ScopedCacheOptions): boolean =>
  lifecycleTransition(
    {
      observed: { started: registry.started, informers: summaries(registry) },
      desired: {},
      trigger: { _tag: "WaitForCacheSync" },
      now: 0,
    },
    options,
  ).status.synced === true

/** The informers of a GVK that a read may use: cluster-level ones and those of the namespace(s). */
export const readSlice = (registry: Registry, trigger: ReadsTrigger): ReadonlyArray<InformerSummary> => {
  const gvk = trigger._tag === "GetInformer" ? trigger.ref.gvk : trigger.gvk
  const namespace = trigger._tag === "GetInformer" ? trigger.ref.namespace : trigger.namespace
  const g = gvkString(gvk)
  const out: Array<InformerSummary> = []
  const collect = (ns: string) => {
    const informers = Option.flatMap(HashMap.get(registry.scopes, ns), (gvks) => HashMap.get(gvks, g))
    if (Option.isSome(informers))
      for (const e of HashMap.values(informers.value)) out.push({ ref: e.ref, state: e.state })
  }
  collect(CLUSTER_SCOPE)
  if (namespace === undefined) {
    for (const ns of HashMap.keys(registry.scopes)) if (ns !== CLUSTER_SCOPE) collect(ns)
  } else if (namespace !== CLUSTER_SCOPE) collect(namespace)
  return out.sort((a, b) => compareRefs(a.ref, b.ref))
}

/** Which informers answer a read (or why none can). */
export const read = (registry: Registry, trigger: ReadsTrigger, options: ScopedCacheOptions): ReadsResult =>
  readsTransition(
    {
      observed: { started: registry.started, informers: readSlice(registry, trigger) },
      desired: {},
      trigger,
      now: 0,
    },
    options,
  )

/** Every operation on the registry as data (for sequences, simulations and the shell's queue). */
export type Operation =
  | { readonly _tag: "AddInformer"; readonly ref: InformerRef; readonly dependent: Dependent }
  | { readonly _tag: "RemoveInformer"; readonly ref: InformerRef; readonly dependent: Dependent }
  | { readonly _tag: "ForceRemove"; readonly ref: InformerRef }
  | {
      readonly _tag: "PermissionLost"
      readonly ref: InformerRef
      readonly verb: PermissionVerb
      readonly message: string
    }
  | { readonly _tag: "InformerSynced"; readonly ref: InformerRef }
  | { readonly _tag: "Start" }

/** Applies one operation. */
export const apply = (registry: Registry, op: Operation, options: ScopedCacheOptions): Step => {
  switch (op._tag) {
    case "AddInformer":
      return addInformer(registry, op.ref, op.dependent, options)
    case "RemoveInformer":
      return removeInformer(registry, op.ref, op.dependent, options)
    case "ForceRemove":
      return forceRemove(registry, op.ref, options)
    case "PermissionLost":
      return permissionLost(registry, op.ref, op.verb, op.message, options)
    case "InformerSynced":
      return informerSynced(registry, op.ref, options)
    case "Start":
      return start(registry, options)
    // Stryker disable next-line ConditionalExpression,BlockStatement
    default: {
      const never: never = op
      // Stryker disable next-line StringLiteral
      throw new Error(`unknown operation ${JSON.stringify(never)}`)
    }
  }
}

/** The registry as plain data (sorted), for logs, snapshots and tests. */
export const toJson = (registry: Registry) => ({
  started: registry.started,
  informers: [...entries(registry)]
    .sort((a, b) => compareRefs(a.ref, b.ref))
    .map((e) => ({ ref: e.ref, state: e.state, dependents: e.dependents.toArray() })),
})
