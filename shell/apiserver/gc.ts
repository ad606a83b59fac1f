/**
 * The in-memory API server's garbage collector: owner references cascade as kube-controller-manager's
 * garbage collector makes them (pkg/controller/garbagecollector; kubernetes.io "Garbage
 * Collection"), on the server's own writes instead of a watch of its own.
 *
 * # Expected Flow
 * Every committed write goes through `observe`, which keeps an owner-uid → dependents index and
 * queues the objects the write may concern; after each API call the server runs `drain`, which
 * works the queue until it is empty. Each step of the collector is a write of its own (its own
 * resourceVersion and watch event), after the write that caused it.
 *
 * # Guarantees
 * - Background (the default): once an owner has left storage, a dependent whose every owner
 *   reference is absent (no object of that kind and name, or another uid) is deleted. Its own GC
 *   finalizer, if any, decides its propagation, else Background.
 * - A dependent with an existing owner lives; the references to absent owners and to owners
 *   waiting for their dependents are removed from it (upstream's "solid" case).
 * - Foreground: an owner with `deletionTimestamp` and the `foregroundDeletion` finalizer has every
 *   dependent deleted (in Foreground themselves when they have dependents); the finalizer is
 *   removed once no dependent with `blockOwnerDeletion: true` remains.
 * - Orphan: an owner with `deletionTimestamp` and the `orphan` finalizer has its references
 *   removed from its dependents, then the finalizer removed.
 * - Dependents going through finalizers of their own get `deletionTimestamp` like any delete and
 *   leave when their finalizers are gone; their owner's foreground deletion waits for them.
 *
 * # Assumptions
 * - An owner reference names the owner by apiVersion's group, kind and name; the resource is found
 *   among the server's known resources. A namespaced owner is looked up in the dependent's
 *   namespace only: cross-namespace owners are absent.
 *
 * # Caveats
 * - An owner reference of a kind the server does not know, or a cluster-scoped dependent naming a
 *   namespaced kind, cannot be resolved and keeps the dependent (upstream: "not able to be
 *   garbage collected"); no `OwnerRefInvalidNamespace` Event is written.
 * - Collection is immediate (within the same call), where the real collector lags by its watch
 *   and work-queue delays.
 *
 * @module
 */
import type { KubeObject, OwnerReference, ResourceRef } from "../kube/resource.ts"
import { ForegroundFinalizer, OrphanFinalizer, type PropagationPolicy, prepareDelete } from "./objects.ts"
import { type Change, type FakeStore, groupResource } from "./storage.ts"

/** Limits of the collector. */
export interface GarbageCollectorLimits {
  /** Steps one `drain` may take per stored object before it fails. */
  readonly stepsPerObject: number
}

/** The collector's default limits. */
export const GarbageCollectorDefaults: GarbageCollectorLimits = {
  /**
   * Steps one `drain` may take per stored object before it fails (a collector that does not
   * settle is a bug of the fake, never a hang).
   */
  stepsPerObject: 16,
}

/** One object the collector looks at: where it is stored and the uid it had when queued. */
interface Item {
  readonly ref: ResourceRef
  readonly namespace: string | undefined
  readonly name: string
  readonly uid: string
}

const itemId = (item: Item): string =>
  `${groupResource(item.ref)}|${item.namespace ?? ""}/${item.name}|${item.uid}`

const itemOf = (ref: ResourceRef, o: KubeObject): Item => ({
  ref,
  namespace: ref.namespaced ? o.metadata.namespace : undefined,
  name: o.metadata.name ?? "",
  uid: o.metadata.uid ?? "",
})

const ownerRefs = (o: KubeObject | undefined): ReadonlyArray<OwnerReference> =>
  o?.metadata.ownerReferences ?? []

const finalizersOf = (o: KubeObject): ReadonlyArray<string> => o.metadata.finalizers ?? []

const isDeleting = (o: KubeObject): boolean => o.metadata.deletionTimestamp !== undefined

/** Being deleted in Foreground: waiting for its dependents (upstream's `isDeletingDependents`). */
const isDeletingDependents = (o: KubeObject): boolean =>
  isDeleting(o) && finalizersOf(o).includes(ForegroundFinalizer)

const groupOf = (apiVersion: string): string => {
  const slash = apiVersion.indexOf("/")
  return slash < 0 ? "" : apiVersion.slice(0, slash)
}

/** How an owner reference resolves (upstream's classifyReferences). */
type Resolution =
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Unresolvable" }
  | { readonly _tag: "Present"; readonly ref: ResourceRef; readonly owner: KubeObject }

/** The collector over one store; see the module doc. */
export class GarbageCollector {
  /** owner uid → dependent id → dependent. */
  private readonly dependents = new Map<string, Map<string, Item>>()
  /** The work queue, without duplicates, oldest first. */
  private readonly queue = new Map<string, Item>()

  private readonly store: FakeStore
  private readonly limits: GarbageCollectorLimits

  constructor(store: FakeStore, limits: GarbageCollectorLimits = GarbageCollectorDefaults) {
    this.store = store
    this.limits = limits
    store.listeners.add((change) => this.observe(change))
  }

  /** Indexes a committed write and queues what it concerns. Never writes itself. */
  observe(change: Change): void {
    const ref = this.store.refOf(change.key)
    if (ref === undefined) return
    const self = itemOf(ref, change.object)
    const before = ownerRefs(change.old)
    const after = change.type === "DELETED" ? [] : ownerRefs(change.object)
    for (const r of before) if (!after.some((a) => a.uid === r.uid)) this.unindex(r.uid, self)
    for (const r of after) this.index(r.uid, self)
    const dropped = before.filter((r) => !after.some((a) => a.uid === r.uid))
    // Owners waiting in Foreground re-check their blocking dependents when one leaves them.
    for (const r of dropped) this.enqueueOwner(ref, change.object, r)
    if (change.type === "DELETED") {
      for (const d of this.dependents.get(self.uid)?.values() ?? []) this.enqueue(d)
      this.dependents.delete(self.uid)
      return
    }
    const refsChanged = JSON.stringify(before) !== JSON.stringify(after)
    if (after.length > 0 && (change.type === "ADDED" || refsChanged)) this.enqueue(self)
    const o = change.object
    if (isDeleting(o) && finalizersOf(o).some((f) => f === OrphanFinalizer || f === ForegroundFinalizer)) {
      this.enqueue(self)
      const wasWaiting = change.old !== undefined && isDeletingDependents(change.old)
      if (isDeletingDependents(o) && !wasWaiting)
        for (const d of this.dependents.get(self.uid)?.values() ?? []) this.enqueue(d)
    }
  }

  /** Works the queue until it is empty; every step writes through `store.put`. */
  drain(now: number): void {
    let budget = this.limits.stepsPerObject * (this.store.size() + this.queue.size + 1)
    for (;;) {
      const next = this.queue.entries().next()
      if (next.done) return
      const [id, item] = next.value
      this.queue.delete(id)
      if (--budget < 0) {
        throw new Error(
          `garbage collector did not settle: ${this.queue.size + 1} items still queued (at ${id})`,
        )
      }
      this.attempt(item, now)
    }
  }

  private index(ownerUid: string, dependent: Item): void {
    let m = this.dependents.get(ownerUid)
    if (m === undefined) {
      m = new Map()
      this.dependents.set(ownerUid, m)
    }
    m.set(itemId(dependent), dependent)
  }

  private unindex(ownerUid: string, dependent: Item): void {
    const m = this.dependents.get(ownerUid)
    m?.delete(itemId(dependent))
    if (m !== undefined && m.size === 0) this.dependents.delete(ownerUid)
  }

  private enqueue(item: Item): void {
    this.queue.set(itemId(item), item)
  }

  private enqueueOwner(dependentRef: ResourceRef, dependent: KubeObject, r: OwnerReference): void {
    const res = this.resolve(dependentRef, dependent, r)
    if (res._tag === "Present") this.enqueue(itemOf(res.ref, res.owner))
  }

  /** The stored object an item names, when it still has the item's uid. */
  private current(item: Item): KubeObject | undefined {
    const o = this.store.find(item.ref, { namespace: item.namespace, name: item.name })
    return o !== undefined && o.metadata.uid === item.uid ? o : undefined
  }

  /** Finds the owner an owner reference of `dependent` names (never across namespaces). */
  private resolve(dependentRef: ResourceRef, dependent: KubeObject, r: OwnerReference): Resolution {
    const group = groupOf(r.apiVersion)
    const ref = this.store.resources().find((x) => x.group === group && x.kind === r.kind)
    if (ref === undefined || (ref.namespaced && !dependentRef.namespaced)) return { _tag: "Unresolvable" }
    const owner = this.store.find(ref, { namespace: dependent.metadata.namespace, name: r.name })
    return owner === undefined || owner.metadata.uid !== r.uid
      ? { _tag: "Absent" }
      : { _tag: "Present", ref, owner }
  }

  /** The stored dependents of `owner` whose reference to it resolves to it. */
  private dependentsOf(
    owner: KubeObject,
  ): ReadonlyArray<{ readonly item: Item; readonly object: KubeObject }> {
    const uid = owner.metadata.uid ?? ""
    const out: Array<{ readonly item: Item; readonly object: KubeObject }> = []
    for (const item of this.dependents.get(uid)?.values() ?? []) {
      const object = this.current(item)
      const r = object === undefined ? undefined : ownerRefs(object).find((x) => x.uid === uid)
      if (object === undefined || r === undefined) continue
      if (this.resolve(item.ref, object, r)._tag === "Present") out.push({ item, object })
    }
    return out
  }

  /** One step for one item (upstream's attemptToDeleteItem and attemptToOrphanWorker). */
  private attempt(item: Item, now: number): void {
    const o = this.current(item)
    if (o === undefined) return
    if (isDeleting(o)) {
      if (finalizersOf(o).includes(OrphanFinalizer)) this.orphan(item, o)
      else if (finalizersOf(o).includes(ForegroundFinalizer)) this.deletingDependents(item, o)
      return
    }
    const refs = ownerRefs(o)
    if (refs.length === 0) return
    const solid: Array<OwnerReference> = []
    const gone: Array<string> = []
    let waiting = false
    for (const r of refs) {
      const res = this.resolve(item.ref, o, r)
      if (res._tag === "Absent") gone.push(r.uid)
      else if (res._tag === "Present" && isDeletingDependents(res.owner)) {
        gone.push(r.uid)
        waiting = true
      } else solid.push(r)
    }
    if (solid.length > 0) {
      if (gone.length > 0) this.setOwnerRefs(item, o, solid)
      return
    }
    const own = this.dependentsOf(o)
    if (waiting && own.length > 0) {
      // A dependent of ours waits on its dependents too: stop blocking our owners, or a cycle of
      // foreground deletions never ends (upstream's cycle guard).
      if (own.some((d) => isDeletingDependents(d.object))) {
        this.setOwnerRefs(
          item,
          o,
          refs.map((r) => ({ ...r, blockOwnerDeletion: false })),
        )
      }
      this.delete(item, "Foreground", now)
      return
    }
    const f = finalizersOf(o)
    this.delete(
      item,
      f.includes(OrphanFinalizer) ? "Orphan" : f.includes(ForegroundFinalizer) ? "Foreground" : "Background",
      now,
    )
  }

  /** Removes `owner`'s references from its dependents, then its `orphan` finalizer. */
  private orphan(item: Item, owner: KubeObject): void {
    const uid = owner.metadata.uid
    for (const d of this.dependentsOf(owner)) {
      this.setOwnerRefs(
        d.item,
        d.object,
        ownerRefs(d.object).filter((r) => r.uid !== uid),
      )
    }
    this.removeFinalizer(item, OrphanFinalizer)
  }

  /** Foreground: queues the dependents; drops `foregroundDeletion` once none blocks. */
  private deletingDependents(item: Item, owner: KubeObject): void {
    const uid = owner.metadata.uid
    const dependents = this.dependentsOf(owner)
    const blocking = dependents.filter((d) =>
      ownerRefs(d.object).some((r) => r.uid === uid && r.blockOwnerDeletion === true),
    )
    if (blocking.length === 0) {
      this.removeFinalizer(item, ForegroundFinalizer)
      return
    }
    for (const d of dependents) if (!isDeleting(d.object)) this.enqueue(d.item)
  }

  private setOwnerRefs(item: Item, o: KubeObject, refs: ReadonlyArray<OwnerReference>): void {
    const { ownerReferences: _, ...rest } = o.metadata
    const metadata = refs.length === 0 ? rest : { ...rest, ownerReferences: refs }
    this.store.put(item.ref, "MODIFIED", { ...o, metadata }, o)
  }

  private removeFinalizer(item: Item, finalizer: string): void {
    const o = this.current(item)
    if (o === undefined) return
    const finalizers = finalizersOf(o).filter((f) => f !== finalizer)
    const metadata = { ...o.metadata, finalizers }
    const last = isDeleting(o) && finalizers.length === 0
    this.store.put(item.ref, last ? "DELETED" : "MODIFIED", { ...o, metadata }, o)
  }

  private delete(item: Item, policy: PropagationPolicy, now: number): void {
    const o = this.current(item)
    if (o === undefined) return
    const d = prepareDelete(o, { policy, garbageCollection: true, now })
    if (d._tag === "Removed") this.store.put(item.ref, "DELETED", o, o)
    else if (d._tag === "Finalizing") this.store.put(item.ref, "MODIFIED", d.object, o)
  }
}
