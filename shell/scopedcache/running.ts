/**
 * The running informers of one level: the seed's two caches (seed 002, Caches: "This layer adopts
 * the Unix philosophy of do one thing and do it well"). `NamespaceScopedCache` holds namespace →
 * GVK → key → informer, `ClusterScopedCache` holds GVK → key → informer.
 *
 * They keep no decisions: the registry (`core/scopedcache/registry.ts`) says which informer runs;
 * the wrapper puts and takes informers here as it carries out the registry's `StartInformer` and
 * `StopInformer` actions (`actions.ts`), and reads the stores of the informers the reads table
 * names (`reads.ts`).
 *
 * @module
 */
import type * as Deferred from "effect/Deferred"
import type * as Scope from "effect/Scope"
import { gvkString, type InformerRef, isClusterLevel } from "../../core/scopedcache/types.ts"
import type { KubeObject, ObjectKey } from "../kube/resource.ts"
import type { PermissionLoss, ScopeInformer } from "./informer.ts"
import { type MergeFilter, mergeStores } from "./merge.ts"

/** Why a running informer ended. */
export interface Ended {
  readonly reason: "NoDependents" | "Forced" | "PermissionLost" | "CoveredByCluster" | "CacheStopped"
  readonly loss?: PermissionLoss | undefined
}

/** One running informer and what the wrapper needs to stop it. */
export interface Running {
  readonly ref: InformerRef
  /** Tells this run from a later run of the same ref (late events of a stopped one are dropped). */
  readonly generation: number
  readonly informer: ScopeInformer
  /** The informer's own scope, a child of the cache's. */
  readonly scope: Scope.Closeable
  /** Completed when the wrapper takes it out (the stop decision). */
  readonly ended: Deferred.Deferred<Ended>
  /** Completed with the time (ms) once its scope has closed (or the close was abandoned). */
  readonly closed: Deferred.Deferred<number>
}

/** GVK string → informer key → running informer (the seed's `GvkToInformers`). */
export type GvkToInformers = Map<string, Map<string, Running>>

const putIn = (gvks: GvkToInformers, running: Running): void => {
  const g = gvkString(running.ref.gvk)
  const informers = gvks.get(g) ?? new Map<string, Running>()
  informers.set(running.ref.key, running)
  gvks.set(g, informers)
}

const takeFrom = (gvks: GvkToInformers, ref: InformerRef): Running | undefined => {
  const g = gvkString(ref.gvk)
  const informers = gvks.get(g)
  const running = informers?.get(ref.key)
  if (informers === undefined || running === undefined) return undefined
  informers.delete(ref.key)
  if (informers.size === 0) gvks.delete(g)
  return running
}

const valuesOf = (gvks: GvkToInformers): ReadonlyArray<Running> =>
  [...gvks.values()].flatMap((informers) => [...informers.values()])

/** What both levels can do. */
export interface LevelCache {
  readonly put: (running: Running) => void
  readonly take: (ref: InformerRef) => Running | undefined
  readonly running: (ref: InformerRef) => Running | undefined
  readonly all: () => ReadonlyArray<Running>
  readonly size: () => number
}

/** Namespace-level informers (seed: `NamespaceScopedCache{Namespaces map[string]GvkToInformers}`). */
export class NamespaceScopedCache implements LevelCache {
  readonly namespaces = new Map<string, GvkToInformers>()

  readonly put = (running: Running): void => {
    const gvks = this.namespaces.get(running.ref.namespace) ?? new Map()
    putIn(gvks, running)
    this.namespaces.set(running.ref.namespace, gvks)
  }

  readonly take = (ref: InformerRef): Running | undefined => {
    const gvks = this.namespaces.get(ref.namespace)
    if (gvks === undefined) return undefined
    const running = takeFrom(gvks, ref)
    if (gvks.size === 0) this.namespaces.delete(ref.namespace)
    return running
  }

  readonly running = (ref: InformerRef): Running | undefined =>
    this.namespaces.get(ref.namespace)?.get(gvkString(ref.gvk))?.get(ref.key)

  readonly all = (): ReadonlyArray<Running> => [...this.namespaces.values()].flatMap(valuesOf)

  readonly size = (): number => this.all().length

  /** The namespaces that have at least one running informer. */
  readonly trackedNamespaces = (): ReadonlyArray<string> => [...this.namespaces.keys()].sort()
}

/** Cluster-level informers (seed: `ClusterScopedCache{GvkInformers GvkToInformers}`). */
export class ClusterScopedCache implements LevelCache {
  readonly gvkInformers: GvkToInformers = new Map()

  readonly put = (running: Running): void => putIn(this.gvkInformers, running)

  readonly take = (ref: InformerRef): Running | undefined => takeFrom(this.gvkInformers, ref)

  readonly running = (ref: InformerRef): Running | undefined =>
    this.gvkInformers.get(gvkString(ref.gvk))?.get(ref.key)

  readonly all = (): ReadonlyArray<Running> => valuesOf(this.gvkInformers)

  readonly size = (): number => this.all().length
}

/** Both levels, and the reads over the informers the reads table names. */
export class Levels {
  readonly namespaced = new NamespaceScopedCache()
  readonly cluster = new ClusterScopedCache()

  /** The level a ref belongs to (seed: Namespace == "" → the ClusterScopedCache). */
  readonly of = (ref: InformerRef): LevelCache => (isClusterLevel(ref) ? this.cluster : this.namespaced)

  readonly running = (ref: InformerRef): Running | undefined => this.of(ref).running(ref)

  readonly all = (): ReadonlyArray<Running> => [...this.cluster.all(), ...this.namespaced.all()]

  /** The object under `key` in the first of `from` that has it. */
  readonly get = (from: ReadonlyArray<Running>, key: ObjectKey): KubeObject | undefined => {
    for (const r of from) {
      const object = r.informer.store.get(key)
      if (object !== undefined) return object
    }
    return undefined
  }

  /** The objects of `from` that pass `filter`, each once. */
  readonly list = (from: ReadonlyArray<Running>, filter: MergeFilter): ReadonlyArray<KubeObject> =>
    mergeStores(
      from.map((r) => r.informer.store),
      filter,
    )
}
