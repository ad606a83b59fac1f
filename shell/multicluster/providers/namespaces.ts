/**
 * The `namespaces` provider: each namespace of one API server is a logical cluster named by the
 * namespace (seed 003, User Stories: "Multi-Cluster Integrator wanting to support apiservers with
 * logical cluster (like kcp)": a facade `Cluster` that scopes client, cache and indexers to the
 * logical cluster, backed by one physical cluster; multicluster-runtime's namespace provider).
 *
 * # Expected flow
 * One physical cache over the hub serves every logical cluster: ONE shared informer per resource
 * type, over all namespaces; each facade filters it to its namespace. A reflector on Namespaces
 * engages a logical cluster per namespace, and disengages it when the namespace is deleted or
 * starts terminating.
 *
 * # Guarantees
 * - A facade's client only reaches its namespace: another namespace, a cluster-scoped resource or
 *   a raw path into another namespace fails with `Forbidden` naming the logical cluster.
 * - A facade's cache only shows its namespace's objects; handlers only see its events. Indexes
 *   are added once to the shared informers (cross-cluster indexers on the physical cache).
 * - The probe of the shared API server is made once per interval for all logical clusters
 *   (cached for half an interval), not once per namespace.
 *
 * @module
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { informerCacheFactory } from "../../cache/informerCache.ts"
import {
  type Cache,
  type CacheFactory,
  type CacheListOptions,
  type Informer,
  informerNotFound,
  type ScopeOptions,
} from "../../cache/types.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import { Forbidden } from "../../kube/errors.ts"
import {
  type KubeObject,
  keyOf,
  type ObjectKey,
  type ResourceRef,
  Resources,
  resourcePath,
} from "../../kube/resource.ts"
import { make as makeReflector } from "../../reflector/reflector.ts"
import type { IndexFunc, ReadonlyStore } from "../../reflector/store.ts"
import { ClusterName } from "../../workqueue/request.ts"
import type { Provider } from "../types.ts"
import { ClusterSetDefaults, makeClusterSet } from "./clusterSet.ts"
import { checkKeys, type Given, type ProviderUsageError, withDefaults } from "./errors.ts"
import { HealthDefaults, type HealthOptions, millis } from "./health.ts"

/** The provider's name, as `--provider` takes it. */
export const NamespacesName = "namespaces"

/** Options of the namespaces provider. */
export interface NamespacesOptions {
  /** Only namespaces matching this label selector are clusters. Default: every namespace. */
  readonly labelSelector: string | undefined
  readonly health: HealthOptions
  /** The physical cache shared by every logical cluster. Default: the informer cache. */
  readonly cacheFactory: CacheFactory
  readonly syncTimeout: Duration.Input
}

/** The namespaces provider's defaults: every namespace, health-gated, one shared informer per type. */
export const NamespacesDefaults: NamespacesOptions = {
  labelSelector: undefined,
  health: HealthDefaults,
  cacheFactory: informerCacheFactory,
  syncTimeout: ClusterSetDefaults.syncTimeout,
}

/** What a caller gives. */
export type NamespacesInput = Given<Omit<NamespacesOptions, "health">> & {
  readonly health?: Given<HealthOptions> | undefined
}

const confinedMessage = (ns: string) => `logical cluster "${ns}" is confined to namespace "${ns}"`

/** A client that reaches only namespace `ns` of `client`'s API server. */
export const confineClient = (client: KubeClientShape, ns: string): KubeClientShape => {
  const refuse = (verb: string, path: string) => new Forbidden({ verb, path, message: confinedMessage(ns) })
  /** The namespace to use, or the refusal (cluster-scoped resource, another namespace). */
  const check = (verb: string, r: ResourceRef, namespace: string | undefined): Forbidden | undefined =>
    !r.namespaced
      ? refuse(verb, resourcePath(r))
      : namespace !== undefined && namespace !== "" && namespace !== ns
        ? refuse(verb, resourcePath(r, { namespace }))
        : undefined
  const at = <A, E>(
    verb: string,
    r: ResourceRef,
    namespace: string | undefined,
    run: () => Effect.Effect<A, E>,
  ) => {
    const refused = check(verb, r, namespace)
    return refused === undefined ? Effect.suspend(run) : Effect.fail(refused)
  }
  const key = (k: ObjectKey): ObjectKey => ({ ...k, namespace: ns })
  const own = <T extends KubeObject>(o: T): T => ({ ...o, metadata: { ...o.metadata, namespace: ns } })
  return {
    get: (r, k) => at("get", r, k.namespace, () => client.get(r, key(k))),
    list: (r, o) => at("list", r, o?.namespace, () => client.list(r, { ...o, namespace: ns })),
    listAll: (r, o) => at("list", r, o?.namespace, () => client.listAll(r, { ...o, namespace: ns })),
    create: (r, obj, o) => at("create", r, obj.metadata.namespace, () => client.create(r, own(obj), o)),
    update: (r, obj, o) => at("update", r, obj.metadata.namespace, () => client.update(r, own(obj), o)),
    patch: (r, k, p, o) => at("patch", r, k.namespace, () => client.patch(r, key(k), p, o)),
    delete: (r, k, o) => at("delete", r, k.namespace, () => client.delete(r, key(k), o)),
    getStatus: (r, k) => at("get", r, k.namespace, () => client.getStatus(r, key(k))),
    updateStatus: (r, obj, o) =>
      at("update", r, obj.metadata.namespace, () => client.updateStatus(r, own(obj), o)),
    patchStatus: (r, k, p, o) => at("patch", r, k.namespace, () => client.patchStatus(r, key(k), p, o)),
    watch: (r, o) => {
      const refused = check("watch", r, o?.namespace)
      return refused === undefined ? client.watch(r, { ...o, namespace: ns }) : Stream.fail(refused)
    },
    probe: (o) => client.probe(o),
    raw: (req) => {
      const other = /\/namespaces\/([^/?]+)/.exec(req.path)?.[1]
      if (other !== undefined && decodeURIComponent(other) !== ns)
        return Effect.fail(refuse(req.verb ?? "raw", req.path))
      if (req.method !== "GET" && other === undefined) return Effect.fail(refuse(req.verb ?? "raw", req.path))
      return client.raw(req)
    },
  }
}

/** A store showing only namespace `ns` of `inner`. */
const confineStore = <T extends KubeObject>(inner: ReadonlyStore<T>, ns: string): ReadonlyStore<T> => {
  const mine = (o: T) => o.metadata.namespace === ns
  return {
    get: (k) => {
      const key = typeof k === "string" ? k : keyOf(k)
      return key.startsWith(`${ns}/`) ? inner.get(key) : undefined
    },
    list: () => inner.byNamespace(ns),
    keys: () => inner.byNamespace(ns).map((o) => keyOf({ namespace: ns, name: o.metadata.name ?? "" })),
    size: () => inner.byNamespace(ns).length,
    byIndex: (index, value) => inner.byIndex(index, value).filter(mine),
    indexValues: (index) => inner.indexValues(index).filter((v) => inner.byIndex(index, v).some(mine)),
    byNamespace: (n) => (n === ns ? inner.byNamespace(ns) : []),
    byOwner: (uid) => inner.byOwner(uid).filter(mine),
    byLabel: (k, v) => inner.byLabel(k, v).filter(mine),
  }
}

/** An informer showing only namespace `ns` of a shared all-namespaces informer. */
const confineInformer = <T extends KubeObject>(inner: Informer<T>, ns: string): Informer<T> => ({
  resource: inner.resource,
  namespace: ns,
  store: confineStore(inner.store, ns),
  hasSynced: inner.hasSynced,
  waitForSync: inner.waitForSync,
  subscribe: (handler) =>
    inner.subscribe((event) => (event.object.metadata.namespace === ns ? handler(event) : Effect.void)),
})

/**
 * A cache showing only namespace `ns` of `physical`, through its shared all-namespaces informers.
 * `addIndex` adds an index to the physical cache once, however many facades ask.
 */
export const confineCache = (
  physical: Cache,
  ns: string,
  addIndex: (resource: ResourceRef, name: string, extract: IndexFunc<KubeObject>) => Effect.Effect<void>,
): Cache => {
  const refuse = (r: ResourceRef, namespace: string | undefined) =>
    !r.namespaced
      ? Effect.fail(informerNotFound(r, undefined, confinedMessage(ns)))
      : namespace !== undefined && namespace !== "" && namespace !== ns
        ? Effect.fail(informerNotFound(r, namespace, confinedMessage(ns)))
        : undefined
  /** The shared informer (all namespaces), started on first use. */
  const shared = <T extends KubeObject>(r: ResourceRef) => physical.getInformer<T>(r)
  // One confined informer per shared one, as a cache hands out one informer per resource: a
  // caller that follows each informer once (by identity) must not see a new one on each call.
  const confined = new WeakMap<Informer<KubeObject>, Informer<KubeObject>>()
  const confine = <T extends KubeObject>(i: Informer<T>): Informer<T> => {
    const inner = i as unknown as Informer<KubeObject>
    const known = confined.get(inner) ?? confineInformer(inner, ns)
    confined.set(inner, known)
    return known as unknown as Informer<T>
  }
  const getInformer = <T extends KubeObject = KubeObject>(r: ResourceRef, o?: ScopeOptions) =>
    refuse(r, o?.namespace) ?? Effect.map(shared<T>(r), confine)
  return {
    get: <T extends KubeObject = KubeObject>(r: ResourceRef, key: ObjectKey) =>
      refuse(r, key.namespace) ??
      Effect.andThen(shared(r), physical.get<T>(r, { namespace: ns, name: key.name })),
    list: <T extends KubeObject = KubeObject>(r: ResourceRef, o: CacheListOptions = {}) =>
      refuse(r, o.namespace) ?? Effect.andThen(shared(r), physical.list<T>(r, { ...o, namespace: ns })),
    getInformer,
    getInformerForKind: <T extends KubeObject = KubeObject>(
      gvk: { readonly group: string; readonly version: string; readonly kind: string },
      o?: ScopeOptions,
    ) =>
      Effect.flatMap(
        physical.getInformerForKind<T>(gvk),
        (i) => refuse(i.resource, o?.namespace) ?? Effect.succeed(confine(i)),
      ),
    indexField: <T extends KubeObject = KubeObject>(r: ResourceRef, name: string, extract: IndexFunc<T>) =>
      addIndex(r, name, extract as IndexFunc<KubeObject>),
    waitForCacheSync: physical.waitForCacheSync,
    start: Effect.void,
    isStarted: physical.isStarted,
  }
}

/** Makes the provider over the hub's client. */
export const makeNamespacesProvider = (
  hub: KubeClientShape,
  given: NamespacesInput = {},
): Effect.Effect<Provider, ProviderUsageError> =>
  Effect.gen(function* () {
    yield* checkKeys(`${NamespacesName} options`, given, Object.keys(NamespacesDefaults))
    const options: NamespacesOptions = {
      ...withDefaults(NamespacesDefaults, { ...given, health: undefined }),
      health: withDefaults(HealthDefaults, given.health ?? {}),
    }
    const set = makeClusterSet({
      provider: NamespacesName,
      health: options.health,
      cacheFactory: options.cacheFactory,
      syncTimeout: options.syncTimeout,
    })

    const run: Provider["run"] = (aware) =>
      Effect.gen(function* () {
        const sink = yield* set.bind(aware)
        const physical = yield* options.cacheFactory(hub, { cluster: NamespacesName })
        yield* physical.start
        const indexed = new Set<string>()
        const addIndex = (r: ResourceRef, name: string, extract: IndexFunc<KubeObject>) =>
          Effect.suspend(() => {
            const id = `${r.group}/${r.resource}/${name}`
            if (indexed.has(id)) return Effect.void
            indexed.add(id)
            return physical.indexField(r, name, extract)
          })
        // One probe of the shared API server per interval serves every logical cluster.
        const probe = yield* Effect.cachedWithTTL(
          hub.probe({ timeout: options.health.timeout }),
          Duration.millis(millis(options.health.interval) / 2),
        )
        const shared: KubeClientShape = { ...hub, probe: () => probe }
        const namespaces = yield* makeReflector(hub, {
          resource: Resources.namespaces,
          labelSelector: options.labelSelector,
          name: `${NamespacesName}/namespaces`,
        })
        yield* namespaces.subscribe((event) => {
          const ns = event.object.metadata.name ?? ""
          const name = ClusterName(ns)
          const terminating =
            event.object.metadata.deletionTimestamp !== undefined ||
            (event.object as { status?: { phase?: string } }).status?.phase === "Terminating"
          if (event._tag === "Deleted" || terminating) return sink.remove(name)
          return sink.upsert({
            name,
            generation: event.object.metadata.uid ?? ns,
            connect: Effect.succeed({
              client: confineClient(shared, ns),
              cache: confineCache(physical, ns, addIndex),
            }),
          })
        })
      })

    return {
      name: NamespacesName,
      get: set.get,
      indexField: set.indexField,
      run,
      clusters: set.clusters,
    } satisfies Provider
  })
