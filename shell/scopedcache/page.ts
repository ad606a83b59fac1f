/**
 * Pages of a list read from the scoped cache (`limit` and `continue`, as the API's list takes
 * them). A merged list is sorted by `namespace/name` (`merge.ts`), so a page ends at a key and
 * the `continue` token names that key: the next page starts after it. Each page reads the
 * informers' stores as they are when it is asked for, not a snapshot of the first page's time: an
 * object added or removed between pages is seen or missed according to its key, never twice.
 *
 * @module
 */
import { compareText } from "../../core/krtt/compare.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import { resourcePath } from "../kube/resource.ts"
import { storeKey } from "../reflector/store.ts"
import { InvalidContinueToken } from "./errors.ts"

/** One page of a list. */
export interface CachePage<T extends KubeObject = KubeObject> {
  readonly items: ReadonlyArray<T>
  /** Present when more objects follow: pass it as `continue` for the next page. */
  readonly continue: string | undefined
  /** How many objects follow this page in the stores now. */
  readonly remainingItemCount: number | undefined
}

/** Limit and continue of one page. */
export interface PageOptions {
  /** At most this many objects; all of them when absent or 0. */
  readonly limit?: number | undefined
  /** The token of the previous page. */
  readonly continue?: string | undefined
}

const PREFIX = "krtt-scopedcache:"

const encode = (resource: ResourceRef, after: string) =>
  Buffer.from(`${PREFIX}${JSON.stringify([resource.group, resource.resource, after])}`).toString("base64url")

/** The key a token continues after, or an `InvalidContinueToken`. */
const decode = (resource: ResourceRef, token: string): string | InvalidContinueToken => {
  const invalid = new InvalidContinueToken({
    verb: "list",
    path: resourcePath(resource, {}),
    message: "the continue token was not issued by this cache for this resource",
  })
  const text = Buffer.from(token, "base64url").toString("utf8")
  if (!text.startsWith(PREFIX)) return invalid
  try {
    const [group, name, after] = JSON.parse(text.slice(PREFIX.length)) as [unknown, unknown, unknown]
    return group === resource.group && name === resource.resource && typeof after === "string"
      ? after
      : invalid
  } catch {
    return invalid
  }
}

/** The page of `sorted` (sorted by `storeKey`) that `options` ask for. */
export const pageOf = <T extends KubeObject>(
  resource: ResourceRef,
  sorted: ReadonlyArray<T>,
  options: PageOptions,
): CachePage<T> | InvalidContinueToken => {
  let rest = sorted
  if (options.continue !== undefined && options.continue !== "") {
    const after = decode(resource, options.continue)
    if (after instanceof InvalidContinueToken) return after
    rest = sorted.filter((o) => compareText(storeKey(o), after) > 0)
  }
  const limit = options.limit ?? 0
  if (limit <= 0 || rest.length <= limit)
    return { items: rest, continue: undefined, remainingItemCount: undefined }
  const items = rest.slice(0, limit)
  const last = items[items.length - 1] as T
  return { items, continue: encode(resource, storeKey(last)), remainingItemCount: rest.length - limit }
}
