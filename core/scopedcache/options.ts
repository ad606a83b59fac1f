/**
 * The scoped cache's options in one object, with their defaults (seed 002, "Open Questions" and
 * "Potential Epic/User-Story Breakdown"; resolutions in `spec/scopedcache/resolutions.ts`).
 *
 * The tables read `automaticTermination`; the shell reads the rest (how it computes informer keys,
 * whether it reviews access before starting an informer). `cache.Options`-like settings that need
 * functions (selectors per GVK, transforms, a list-options function, a user key function) live in
 * the shell's options, which extend this object.
 *
 * @module
 */
import { type Gvk, gvkString } from "./types.ts"

/**
 * How the shell derives an informer's key when the caller does not give one (seed: "Should we make
 * the key used when adding generated informers to the cache configurable?").
 * - `gvk`: one informer per scope and GVK; the key is the GVK string.
 * - `gvkAndSelectors`: informers of one GVK with different label or field selectors are
 *   different informers; the key is the GVK string plus the selectors.
 * A user key function (shell option) overrides both.
 */
export type InformerKeyFunction = "gvk" | "gvkAndSelectors"

export interface ScopedCacheOptions {
  /**
   * Stop and forget an informer when its last dependent is removed (seed user story: "configure
   * whether or not informers should be automatically terminated"). Default `true`. When `false`,
   * an informer without dependents keeps running until it is removed with force or loses
   * permission.
   */
  readonly automaticTermination: boolean
  /** How informer keys are derived. Default `gvk`. */
  readonly informerKey: InformerKeyFunction
  /**
   * Ask a SelfSubjectAccessReview (list and watch) before starting an informer, so that an informer
   * the identity may not run is never started. Default `false` (a 403 on the list stops it instead).
   */
  readonly accessReview: boolean
}

/** The defaults. */
export const ScopedCacheDefaults: ScopedCacheOptions = {
  automaticTermination: true,
  informerKey: "gvk",
  accessReview: false,
}

/** The defaults with the given values overridden. */
export const scopedCacheOptions = (overrides: Partial<ScopedCacheOptions> = {}): ScopedCacheOptions => ({
  ...ScopedCacheDefaults,
  ...overrides,
})

/** Selectors that make informers of one GVK different (from the list-options function). */
export interface KeySelectors {
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
}

/** The informer key the chosen key function gives for a GVK and its list options' selectors. */
export const informerKey = (fn: InformerKeyFunction, gvk: Gvk, selectors: KeySelectors = {}): string => {
  const base = gvkString(gvk)
  if (fn === "gvk") return base
  const label = selectors.labelSelector ?? ""
  const field = selectors.fieldSelector ?? ""
  return label === "" && field === "" ? base : `${base}?labels=${label}&fields=${field}`
}
