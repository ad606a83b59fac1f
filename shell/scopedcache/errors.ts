/**
 * The scoped cache's own errors, told apart from the API server's (seed 002, user story: "determine
 * which errors come from the dynamic cache and which errors come from the Kubernetes API server").
 *
 * Each is a subclass of the error a read of the project's `Cache` interface fails with, so that a
 * controller written for any cache (`Effect.catchTag("NotFound", …)`) goes on working; the class
 * (`instanceof CacheNotFound`), `origin: "cache"` and `isCacheError` tell the cache's apart:
 *
 * | error | `_tag` | when |
 * | --- | --- | --- |
 * | `CacheNotFound` | `NotFound` | an informer covers the object and its store lacks it; the API server was not asked |
 * | `InformerForbidden` | `Forbidden` | the informer of that scope stopped after a 403 (or a denying access review), until an informer is added there again |
 * | `CacheNotStarted` | `InformerNotFound` | a read before `start` (`scopedcache.reads` row 5, controller-runtime's `ErrCacheNotStarted`) |
 * | `InformerNotFound` | `InformerNotFound` | no informer covers the read (`shell/cache/types.ts`) |
 * | `InvalidContinueToken` | `Invalid` | a list's `continue` token that this cache did not issue |
 *
 * @module
 */
import { InformerNotFound } from "../cache/types.ts"
import { Forbidden, Invalid, NotFound } from "../kube/errors.ts"

/** The object is not in the store of the informer that covers it (the API server was not asked). */
export class CacheNotFound extends NotFound {
  readonly origin = "cache" as const
}

/** The informer of this scope stopped after a 403; reads there fail until one is added again. */
export class InformerForbidden extends Forbidden {
  readonly origin = "cache" as const
}

/** A read before the cache's `start`. */
export class CacheNotStarted extends InformerNotFound {
  readonly origin = "cache" as const
}

/** Whether `e` is an error of the scoped cache itself rather than of the API server. */
export const isCacheError = (
  e: unknown,
): e is CacheNotFound | InformerForbidden | CacheNotStarted | InformerNotFound | InvalidContinueToken =>
  e instanceof CacheNotFound ||
  e instanceof InformerForbidden ||
  e instanceof InvalidContinueToken ||
  e instanceof InformerNotFound

/** A `continue` token the cache did not issue (or issued for another list). */
export class InvalidContinueToken extends Invalid {
  readonly origin = "cache" as const
}
