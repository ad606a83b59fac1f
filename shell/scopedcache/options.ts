/**
 * The scoped cache's options and their defaults: controller-runtime's `cache.Options` where it
 * has one (`DefaultNamespaces`, `DefaultLabelSelector`, `DefaultFieldSelector`,
 * `DefaultTransform`, `ByObject`), and the seed's own wishes (seed 002, Open Questions and
 * user stories): a user-defined informer key, a user-defined list-options function, automatic
 * termination on or off, and an informer factory (`ScopedInformerFactory`).
 *
 * Options are strict: an unknown key fails with `InvalidScopedCacheOptionsError` naming the closest
 * known key, and every field is checked for its type.
 *
 * @module
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import {
  informerKey,
  ScopedCacheDefaults as RegistryDefaults,
  type ScopedCacheOptions as RegistryOptions,
} from "../../core/scopedcache/options.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import { parseLabelSelector } from "../kube/selector.ts"
import type { ReconnectBackoff, ReflectorTiming } from "../reflector/options.ts"
import { type AccessReviewer, selfSubjectAccessReviewer } from "./accessReview.ts"
import { type InformerFactory, reflectorInformerFactory } from "./informer.ts"

/** Reflector timing over its defaults (the backoff field by field). */
export type ReflectorOverrides = Partial<Omit<ReflectorTiming, "backoff">> & {
  readonly backoff?: Partial<ReconnectBackoff> | undefined
}

/** What a key function and a list-options function are asked about. */
export interface InformerRequest {
  readonly resource: ResourceRef
  /** `undefined` at cluster scope. */
  readonly namespace: string | undefined
  readonly labelSelector: string | undefined
  readonly fieldSelector: string | undefined
}

/** Makes an informer's key within its scope and resource (seed 002: "a configurable informer key"). */
export type KeyFunc = (request: InformerRequest) => string

/** Selectors an informer lists and watches with (seed 002: list options from a user function). */
export interface InformerListOptions {
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
}

/** Gives the list options of a new informer; its answer overrides the defaults and `byResource`. */
export type ListOptionsFunc = (request: {
  readonly resource: ResourceRef
  readonly namespace: string | undefined
}) => InformerListOptions

/** Changes an object before it is stored (controller-runtime's `TransformFunc`). */
export type TransformFunc = (object: KubeObject) => KubeObject

/** Per-resource options (controller-runtime's `ByObject`), keyed `<resource>` or `<resource>.<group>`. */
export interface ResourceOptions {
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
  readonly transform?: TransformFunc | undefined
}

/**
 * Every option of a scoped cache, resolved: the registry's (`automaticTermination`, `informerKey`,
 * `accessReview`; see `core/scopedcache/options.ts` and the resolutions in
 * `spec/scopedcache/`) plus the shell's.
 */
export interface ScopedCacheConfig extends RegistryOptions {
  /**
   * Review the access of the running informers this often, and stop those that lost it: the API
   * server does not re-authorize a watch that is already open, so without this a revocation is
   * noticed only at the next list or watch (minutes). One SelfSubjectAccessReview of `watch` per
   * resource and namespace with running informers, per interval. Default 10 s; 0 turns it off.
   */
  readonly permissionRecheckInterval: Duration.Input
  /**
   * `getInformer` / `getInformerForKind` add the informer when it is missing, as the seed's
   * Wrapper does ("If none is found, it will attempt to create the requested informer"), with a
   * dependent of their own (`getInformer:<ref>`) until the informer's first `subscribe`; from then
   * on each subscription is a dependent until its scope closes, so the informer stops with its
   * last subscription. Off: they return existing informers only (InformerNotFound otherwise).
   * Default false; `scopedCacheFactory` turns it on, since multi-cluster controllers find their
   * informers through `getInformer`.
   */
  readonly startOnGetInformer: boolean
  /**
   * How long a read waits for the informers that serve it to sync before it fails with Timeout
   * (controller-runtime's `CacheSyncTimeout`). Default 2 min.
   */
  readonly syncTimeout: Duration.Input
  /** How long closing an informer after a 403 may take before it is abandoned. Default 1 s. */
  readonly stopTimeout: Duration.Input
  /**
   * Namespaces that an informer added without a namespace watches (one informer per namespace)
   * for namespaced resources (controller-runtime's `DefaultNamespaces`). Default: none, the
   * informer watches at cluster scope.
   */
  readonly defaultNamespaces: ReadonlyArray<string> | undefined
  readonly defaultLabelSelector: string | undefined
  readonly defaultFieldSelector: string | undefined
  readonly defaultTransform: TransformFunc | undefined
  /** Per resource, keyed `<resource>` (core group) or `<resource>.<group>`. */
  readonly byResource: Readonly<Record<string, ResourceOptions>>
  /** A user key function; overrides `informerKey`. Default: none. */
  readonly keyOf: KeyFunc | undefined
  /** Default: none (the selectors of the defaults and `byResource`). */
  readonly listOptions: ListOptionsFunc | undefined
  /** Default: the project's reflector (`reflectorInformerFactory`). */
  readonly informerFactory: InformerFactory
  /** Default: SelfSubjectAccessReviews through the cluster's client. */
  readonly accessReviewer: (client: KubeClientShape) => AccessReviewer
  /** Timing of every informer's reflector (defaults: the reflector's). */
  readonly reflector: ReflectorOverrides
}

/** The documented numbers and switches, in one object (the registry's plus the shell's). */
export const ScopedCacheDefaults = {
  ...RegistryDefaults,
  startOnGetInformer: false,
  /** A revoked grant is noticed within this (plus one review) on open watches. */
  permissionRecheckInterval: "10 seconds",
  /** A watch or list answered 403 stops its informer within one second. */
  stopTimeout: "1 second",
  /** controller-runtime's CacheSyncTimeout. */
  syncTimeout: "2 minutes",
} as const satisfies Partial<ScopedCacheConfig>

/** The key of a new informer: the user's key function, else the registry's `informerKey`. */
export const keyFor = (config: ScopedCacheConfig, request: InformerRequest): string =>
  config.keyOf?.(request) ??
  informerKey(
    config.informerKey,
    { group: request.resource.group, version: request.resource.version, kind: request.resource.kind },
    { labelSelector: request.labelSelector, fieldSelector: request.fieldSelector },
  )

/** `<resource>` or `<resource>.<group>`: how `byResource` names a resource. */
export const resourceName = (r: Pick<ResourceRef, "resource" | "group">): string =>
  r.group === "" ? r.resource : `${r.resource}.${r.group}`

/** Options as a user writes them: every field optional. */
export type ScopedCacheOptions = Partial<ScopedCacheConfig>

/** The options were refused; `field` names the offending one. */
export class InvalidScopedCacheOptionsError extends Data.TaggedError("InvalidScopedCacheOptionsError")<{
  readonly field: string
  readonly message: string
}> {}

const KNOWN: ReadonlyArray<keyof ScopedCacheConfig> = [
  "automaticTermination",
  "informerKey",
  "accessReview",
  "startOnGetInformer",
  "permissionRecheckInterval",
  "stopTimeout",
  "syncTimeout",
  "defaultNamespaces",
  "defaultLabelSelector",
  "defaultFieldSelector",
  "defaultTransform",
  "byResource",
  "keyOf",
  "listOptions",
  "informerFactory",
  "accessReviewer",
  "reflector",
]
const RESOURCE_KNOWN = ["labelSelector", "fieldSelector", "transform"] as const

/** Edit distance, for "did you mean". */
const distance = (a: string, b: string): number => {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] ?? 0
    row[0] = i
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j] ?? 0
      row[j] = Math.min(cur + 1, (row[j - 1] ?? 0) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1))
      prev = cur
    }
  }
  return row[b.length] ?? 0
}

/** The known key closest to `key`. */
export const closest = (key: string, known: ReadonlyArray<string>): string =>
  [...known].sort(
    (x, y) => distance(key.toLowerCase(), x.toLowerCase()) - distance(key.toLowerCase(), y.toLowerCase()),
  )[0] ?? ""

const fail = (field: string, message: string) =>
  new InvalidScopedCacheOptionsError({ field, message: `${field}: ${message}` })

const checkKeys = (
  where: string,
  value: object,
  known: ReadonlyArray<string>,
): InvalidScopedCacheOptionsError | undefined => {
  for (const key of Object.keys(value))
    if (!known.includes(key)) {
      const field = where === "" ? key : `${where}.${key}`
      return fail(
        field,
        `unknown option; did you mean ${where === "" ? "" : `${where}.`}${closest(key, known)}?`,
      )
    }
  return undefined
}

const checkSelector = (field: string, kind: "label" | "field", value: unknown) => {
  if (value === undefined) return undefined
  if (typeof value !== "string") return fail(field, `must be a ${kind} selector string`)
  if (kind === "label" && parseLabelSelector(value) === undefined)
    return fail(field, `is not a valid label selector: ${JSON.stringify(value)}`)
  return undefined
}

const checkDuration = (field: string, value: unknown) => {
  if (value === undefined) return undefined
  try {
    const d = Duration.fromInputUnsafe(value as Duration.Input)
    return Duration.toMillis(d) < 0 ? fail(field, "must not be negative") : undefined
  } catch {
    return fail(
      field,
      `must be a duration (e.g. "1 second" or a number of milliseconds), got ${JSON.stringify(value)}`,
    )
  }
}

const checkFunction = (field: string, value: unknown) =>
  value === undefined || typeof value === "function" ? undefined : fail(field, "must be a function")

const checkBoolean = (field: string, value: unknown) =>
  value === undefined || typeof value === "boolean" ? undefined : fail(field, "must be true or false")

/** Checks options and merges them over the defaults; the first problem found is returned. */
export const scopedCacheConfig = (
  options: ScopedCacheOptions = {},
): ScopedCacheConfig | InvalidScopedCacheOptionsError => {
  if (typeof options !== "object" || options === null) return fail("options", "must be an object")
  const o = options as Record<string, unknown>
  const problem =
    checkKeys("", o, KNOWN) ??
    checkBoolean("automaticTermination", o.automaticTermination) ??
    checkBoolean("accessReview", o.accessReview) ??
    checkBoolean("startOnGetInformer", o.startOnGetInformer) ??
    (o.informerKey === undefined || o.informerKey === "gvk" || o.informerKey === "gvkAndSelectors"
      ? undefined
      : fail("informerKey", `must be "gvk" or "gvkAndSelectors", got ${JSON.stringify(o.informerKey)}`)) ??
    checkDuration("permissionRecheckInterval", o.permissionRecheckInterval) ??
    checkDuration("stopTimeout", o.stopTimeout) ??
    checkDuration("syncTimeout", o.syncTimeout) ??
    checkSelector("defaultLabelSelector", "label", o.defaultLabelSelector) ??
    checkSelector("defaultFieldSelector", "field", o.defaultFieldSelector) ??
    checkFunction("defaultTransform", o.defaultTransform) ??
    checkFunction("keyOf", o.keyOf) ??
    checkFunction("listOptions", o.listOptions) ??
    checkFunction("informerFactory", o.informerFactory) ??
    checkFunction("accessReviewer", o.accessReviewer) ??
    checkNamespaces(o.defaultNamespaces) ??
    checkByResource(o.byResource) ??
    (o.reflector !== undefined && (typeof o.reflector !== "object" || o.reflector === null)
      ? fail("reflector", "must be an object of reflector timing")
      : undefined)
  if (problem !== undefined) return problem
  return {
    ...ScopedCacheDefaults,
    defaultNamespaces: undefined,
    defaultLabelSelector: undefined,
    defaultFieldSelector: undefined,
    defaultTransform: undefined,
    byResource: {},
    keyOf: undefined,
    listOptions: undefined,
    informerFactory: reflectorInformerFactory,
    accessReviewer: selfSubjectAccessReviewer,
    reflector: {},
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
  }
}

const checkNamespaces = (value: unknown) => {
  if (value === undefined) return undefined
  if (!Array.isArray(value)) return fail("defaultNamespaces", "must be a list of namespace names")
  const bad = value.findIndex((n) => typeof n !== "string" || n === "")
  return bad < 0 ? undefined : fail(`defaultNamespaces[${bad}]`, "must be a non-empty namespace name")
}

const checkByResource = (value: unknown) => {
  if (value === undefined) return undefined
  if (typeof value !== "object" || value === null)
    return fail("byResource", "must be an object keyed by resource")
  for (const [name, ro] of Object.entries(value)) {
    const where = `byResource.${name}`
    if (typeof ro !== "object" || ro === null) return fail(where, "must be an object")
    const r = ro as Record<string, unknown>
    const p =
      checkKeys(where, r, RESOURCE_KNOWN) ??
      checkSelector(`${where}.labelSelector`, "label", r.labelSelector) ??
      checkSelector(`${where}.fieldSelector`, "field", r.fieldSelector) ??
      checkFunction(`${where}.transform`, r.transform)
    if (p !== undefined) return p
  }
  return undefined
}

/** The selectors and transform of a new informer: explicit > list-options function > byResource > defaults. */
export const informerSelection = (
  config: ScopedCacheConfig,
  request: {
    readonly resource: ResourceRef
    readonly namespace: string | undefined
    readonly labelSelector?: string | undefined
    readonly fieldSelector?: string | undefined
  },
): {
  readonly labelSelector: string | undefined
  readonly fieldSelector: string | undefined
  readonly transform: TransformFunc | undefined
} => {
  const byResource = config.byResource[resourceName(request.resource)]
  const fromFunc = config.listOptions?.({ resource: request.resource, namespace: request.namespace }) ?? {}
  const pick = (...values: ReadonlyArray<string | undefined>) => values.find((v) => v !== undefined)
  return {
    labelSelector: pick(
      request.labelSelector,
      fromFunc.labelSelector,
      byResource?.labelSelector,
      config.defaultLabelSelector,
    ),
    fieldSelector: pick(
      request.fieldSelector,
      fromFunc.fieldSelector,
      byResource?.fieldSelector,
      config.defaultFieldSelector,
    ),
    transform: byResource?.transform ?? config.defaultTransform,
  }
}

/** Milliseconds of a duration option. */
export const millisOf = (d: Duration.Input): number => Duration.toMillis(Duration.fromInputUnsafe(d))
