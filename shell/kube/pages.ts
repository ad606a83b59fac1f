/**
 * Paginated lists: every page of a list joined, like client-go's pager.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { ListAllOptions, ListOptions } from "./client.ts"
import type { KubeError } from "./errors.ts"
import type { KubeObject, ObjectList, ResourceRef } from "./resource.ts"

/** client-go's pager default. */
export const DefaultPageSize = 500

/**
 * Lists every page with `limit`/`continue` through `list`. The result's resourceVersion is the
 * first page's: the server serves later pages from the same snapshot, so a watch from it misses
 * nothing. A `Gone` on a later page (the snapshot was compacted) fails the whole list.
 */
export const listAllPages = <T extends KubeObject>(
  list: (resource: ResourceRef, options: ListOptions) => Effect.Effect<ObjectList<T>, KubeError>,
  resource: ResourceRef,
  options: ListAllOptions = {},
): Effect.Effect<ObjectList<T>, KubeError> =>
  Effect.gen(function* () {
    const items: Array<T> = []
    const base: ListOptions = {
      namespace: options.namespace,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      limit: options.pageSize ?? DefaultPageSize,
    }
    let page = yield* list(resource, base)
    const resourceVersion = page.resourceVersion
    items.push(...page.items)
    while (page.continue !== undefined && page.continue !== "") {
      page = yield* list(resource, { ...base, continue: page.continue })
      items.push(...page.items)
    }
    return { items, resourceVersion }
  })
