/**
 * Namespace lifecycle for the in-memory API server: the NamespaceLifecycle admission plugin, the
 * namespace registry's two-step delete and kube-controller-manager's namespace controller
 * (kubernetes.io "Namespaces"; pkg/controller/namespace), on the server's own writes.
 *
 * # Guarantees
 * - A new Namespace gets the `kubernetes` spec finalizer and `status.phase: Active`.
 * - Deleting a Namespace sets `deletionTimestamp` and `status.phase: Terminating`; a second delete
 *   changes nothing.
 * - Content may not be created in a namespace that does not exist (404 NotFound) or is being
 *   terminated (403 Forbidden); updates and deletes are not checked, as upstream.
 * - The namespace controller deletes every namespaced object of a terminating namespace
 *   (Background); objects with finalizers get `deletionTimestamp` and are waited for. Once the
 *   namespace is empty the `kubernetes` spec finalizer is removed and, without finalizers in
 *   `metadata`, the Namespace leaves storage.
 *
 * # Caveats
 * - No `NamespaceDeletion*` conditions, no `/finalize` subresource, and a Namespace with
 *   `metadata.finalizers` of its own leaves when they are removed even if content remains.
 *
 * @module
 */

import { Forbidden, NotFound } from "../kube/errors.ts"
import type { KubeObject } from "../kube/resource.ts"
import { Resources } from "../kube/resource.ts"
import { type Deletion, prepareDelete, type Served, timestamp } from "./objects.ts"
import { type Change, type FakeStore, groupResource } from "./storage.ts"

/** The spec finalizer the namespace controller owns (`v1.FinalizerKubernetes`). */
export const KubernetesFinalizer = "kubernetes"

/** The namespaces a cluster starts with. */
export const InitialNamespaces: ReadonlyArray<string> = [
  "default",
  "kube-node-lease",
  "kube-public",
  "kube-system",
]

const namespacesKey = groupResource(Resources.namespaces)

const isDeleting = (o: KubeObject): boolean => o.metadata.deletionTimestamp !== undefined

const specFinalizers = (ns: KubeObject): ReadonlyArray<string> => {
  const spec = ns.spec as { readonly finalizers?: ReadonlyArray<string> } | undefined
  return spec?.finalizers ?? []
}

/** A new Namespace as the registry stores it: the `kubernetes` finalizer, phase Active. */
export const prepareNamespace = (ns: KubeObject): KubeObject => {
  const spec = (ns.spec ?? {}) as Record<string, unknown>
  return {
    ...ns,
    spec: { ...spec, finalizers: spec.finalizers ?? [KubernetesFinalizer] },
    status: { phase: "Active" },
  }
}

/** The registry's delete of a Namespace: the first one starts termination, later ones wait. */
export const prepareNamespaceDelete = (ns: KubeObject, now: number): Deletion => {
  if (isDeleting(ns)) return { _tag: "Unchanged", object: ns }
  if (specFinalizers(ns).length === 0 && (ns.metadata.finalizers ?? []).length === 0)
    return { _tag: "Removed" }
  return {
    _tag: "Finalizing",
    object: {
      ...ns,
      metadata: { ...ns.metadata, deletionTimestamp: timestamp(now), deletionGracePeriodSeconds: 0 },
      status: { ...((ns.status ?? {}) as object), phase: "Terminating" },
    },
  }
}

/** NamespaceLifecycle admission of a create in `namespace`. */
export const admitCreate = (
  store: FakeStore,
  s: Served,
  namespace: string | undefined,
): NotFound | Forbidden | undefined => {
  if (!s.ref.namespaced || namespace === undefined) return undefined
  const ns = store.find(Resources.namespaces, { name: namespace })
  if (ns === undefined) {
    return new NotFound({ verb: s.verb, path: s.path, message: `namespaces "${namespace}" not found` })
  }
  return isDeleting(ns)
    ? new Forbidden({
        verb: s.verb,
        path: s.path,
        message: `${s.ref.resource} is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
      })
    : undefined
}

/** The namespace controller over one store; see the module doc. */
export class NamespaceController {
  private readonly store: FakeStore
  private readonly garbageCollection: boolean
  /** Terminating namespaces to look at, oldest first. */
  private readonly queue = new Set<string>()

  constructor(store: FakeStore, options: { readonly garbageCollection: boolean }) {
    this.store = store
    this.garbageCollection = options.garbageCollection
    store.listeners.add((change) => this.observe(change))
  }

  /** Queues a namespace that starts terminating, or whose content just left. Never writes. */
  observe(change: Change): void {
    if (change.key === namespacesKey) {
      if (change.type !== "DELETED" && isDeleting(change.object))
        this.queue.add(change.object.metadata.name ?? "")
      return
    }
    const namespace = change.object.metadata.namespace
    if (change.type !== "DELETED" || namespace === undefined) return
    const ns = this.store.find(Resources.namespaces, { name: namespace })
    if (ns !== undefined && isDeleting(ns)) this.queue.add(namespace)
  }

  /** Works the queue until it is empty; says whether it did anything. */
  drain(now: number): boolean {
    const worked = this.queue.size > 0
    for (const name of this.queue) {
      this.queue.delete(name)
      this.terminate(name, now)
    }
    return worked
  }

  /** Deletes the content of a terminating namespace; finalizes the namespace once it is empty. */
  private terminate(name: string, now: number): void {
    const ns = this.store.find(Resources.namespaces, { name })
    if (ns === undefined || !isDeleting(ns)) return
    let remaining = 0
    for (const ref of this.store.resources()) {
      if (!ref.namespaced) continue
      for (const o of [...this.store.collection(ref).values()]) {
        if (o.metadata.namespace !== name) continue
        if (isDeleting(o)) {
          remaining++
          continue
        }
        const d = prepareDelete(o, { policy: "Background", garbageCollection: this.garbageCollection, now })
        if (d._tag === "Removed") this.store.put(ref, "DELETED", o, o)
        else {
          remaining++
          if (d._tag === "Finalizing") this.store.put(ref, "MODIFIED", d.object, o)
        }
      }
    }
    if (remaining > 0 || !specFinalizers(ns).includes(KubernetesFinalizer)) return
    const current = this.store.find(Resources.namespaces, { name }) ?? ns
    const spec = {
      ...((current.spec ?? {}) as object),
      finalizers: specFinalizers(current).filter((f) => f !== KubernetesFinalizer),
    }
    const finalized = { ...current, spec }
    const last = specFinalizers(finalized).length === 0 && (current.metadata.finalizers ?? []).length === 0
    this.store.put(Resources.namespaces, last ? "DELETED" : "MODIFIED", finalized, current)
  }
}
