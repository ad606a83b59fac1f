/**
 * Reads across several informers: a list served by informers of several namespaces (and
 * perhaps a cluster-level one) is merged without duplicates (seed 002, Non-Cluster-Scoped cache:
 * "Use informers to LIST resources – For all namespaces currently tracked – For a particular
 * namespace").
 *
 * @module
 */

import { compareText } from "../../core/krtt/compare.ts"
import type { KubeObject } from "../kube/resource.ts"
import { matchesFieldSelector, matchesLabelSelector } from "../kube/selector.ts"
import { type ReadonlyStore, storeKey } from "../reflector/store.ts"

/** What a merged list keeps. */
export interface MergeFilter {
  /** Only objects of this namespace. */
  readonly namespace?: string | undefined
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
  /** Only objects that this index files under this value. */
  readonly index?: { readonly name: string; readonly value: string } | undefined
}

/**
 * The objects of `stores` that pass `filter`, each once: two informers of one resource with
 * overlapping selections (or a namespace informer next to a cluster-level one) hold the same
 * object under the same key; the first store's copy is kept. Sorted by key, so that a list does
 * not depend on the order informers were added in.
 */
export const mergeStores = <T extends KubeObject>(
  stores: ReadonlyArray<ReadonlyStore<T>>,
  filter: MergeFilter = {},
): ReadonlyArray<T> => {
  const out = new Map<string, T>()
  for (const store of stores) {
    const candidates =
      filter.index !== undefined
        ? store.byIndex(filter.index.name, filter.index.value)
        : filter.namespace !== undefined
          ? store.byNamespace(filter.namespace)
          : store.list()
    for (const object of candidates) {
      const key = storeKey(object)
      if (out.has(key)) continue
      if (filter.namespace !== undefined && (object.metadata.namespace ?? "") !== filter.namespace) continue
      if (!matchesLabelSelector(filter.labelSelector, object)) continue
      if (!matchesFieldSelector(filter.fieldSelector, object)) continue
      out.set(key, object)
    }
  }
  return [...out.entries()].sort(([a], [b]) => compareText(a, b)).map(([, o]) => o)
}
