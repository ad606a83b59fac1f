/**
 * Conversion of Cluster objects between `cluster.x-k8s.io/v1beta1` and `v1beta2`, as upstream
 * Cluster API v1.13's conversion webhook does for the fields whose shape changed, and lossless:
 * what one version cannot hold travels in the annotation `cluster.x-k8s.io/conversion-data`
 * (upstream's name) and comes back on the way back.
 *
 * Field by field:
 * - `spec.infrastructureRef`, `spec.controlPlaneRef`: v1beta1's `ObjectReference`
 *   (`apiVersion`, `kind`, `name`, ...) ⇄ v1beta2's contract reference (`apiGroup`, `kind`,
 *   `name`); going down, the version comes from the provider CRD's contract label (a resolver the
 *   caller gives), as upstream does.
 * - `spec.topology`: `class`/`classNamespace` ⇄ `classRef.{name,namespace}`; `version`,
 *   `controlPlane`, `workers`, `variables` are carried as they are (their inner fields are not
 *   converted: a topology Cluster is best written in v1beta2); `rolloutAfter` exists in v1beta1
 *   only.
 * - `spec.paused`, `spec.clusterNetwork`, `spec.controlPlaneEndpoint`, `spec.availabilityGates`:
 *   the same shape.
 * - `status`: v1beta1's `conditions` ⇄ v1beta2's `deprecated.v1beta1.conditions`,
 *   `v1beta2.conditions` ⇄ `conditions`, `v1beta2.{controlPlane,workers}` ⇄ `{controlPlane,
 *   workers}`, `failureReason`/`failureMessage` ⇄ `deprecated.v1beta1.*`,
 *   `infrastructureReady`/`controlPlaneReady` ⇄ `initialization.{infrastructureProvisioned,
 *   controlPlaneInitialized}`, failure domains as a map ⇄ a list sorted by name; `phase` and
 *   `observedGeneration` as they are.
 *
 * Lossless: converting stores the source's `spec` and `status` in the annotation; converting back
 * takes, for each top-level field of `spec` and `status` that was not changed in the other
 * version, the stored value (so `X → Y → X` returns `X` exactly), and the converted value for the
 * fields that were changed there. A field counts as changed when its converted value differs from
 * the converted value of the stored copy as the other version saw it: fields are compared in the
 * version converted to, so an edit of a renamed field (v1beta1's `controlPlaneReady`, v1beta2's
 * `initialization`) is seen under the name it maps to.
 *
 * @module
 */
import { ConversionDataAnnotation } from "./contract.ts"

type Obj = Readonly<Record<string, unknown>>

/** A Cluster in either version, as JSON. */
export interface ClusterObject {
  readonly apiVersion: string
  readonly kind: string
  readonly metadata: Obj & { readonly annotations?: Readonly<Record<string, string>> }
  readonly spec?: Obj
  readonly status?: Obj
}

/** The served version of a provider kind, from its CRD's contract label; `undefined`: unknown. */
export type VersionResolver = (apiGroup: string, kind: string) => string | undefined

/** A Cluster that cannot be converted: the message names the field. */
export class ConversionError extends Error {
  override readonly name = "ConversionError"
}

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)
const defined = (o: Record<string, unknown>): Obj => {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k]
  return o
}
const groupOf = (apiVersion: string): string => {
  const slash = apiVersion.indexOf("/")
  return slash === -1 ? "" : apiVersion.slice(0, slash)
}

/** Deep equality of JSON values, key order ignored. */
export const jsonEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  // Stryker disable next-line LogicalOperator
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((x, i) => jsonEqual(x, b[i]))
  }
  if (!isObj(a) || !isObj(b)) return false
  const ka = Object.keys(a).filter((k) => a[k] !== undefined)
  const kb = Object.keys(b).filter((k) => b[k] !== undefined)
  return ka.length === kb.length && ka.every((k) => jsonEqual(a[k], b[k]))
}

// ---------------------------------------------------------------------------------------------
// spec

const refUp = (ref: unknown, field: string): Obj | undefined => {
  if (ref === undefined) return undefined
  if (
    !isObj(ref) ||
    typeof ref.apiVersion !== "string" ||
    typeof ref.kind !== "string" ||
    typeof ref.name !== "string"
  )
    throw new ConversionError(`${field}: apiVersion, kind and name are required`)
  return { apiGroup: groupOf(ref.apiVersion), kind: ref.kind, name: ref.name }
}

const refDown = (ref: unknown, field: string, resolve: VersionResolver): Obj | undefined => {
  if (ref === undefined) return undefined
  if (
    !isObj(ref) ||
    typeof ref.apiGroup !== "string" ||
    typeof ref.kind !== "string" ||
    typeof ref.name !== "string"
  )
    throw new ConversionError(`${field}: apiGroup, kind and name are required`)
  const version = resolve(ref.apiGroup, ref.kind)
  if (version === undefined)
    throw new ConversionError(
      `${field}: no served version of ${ref.kind} in group ${ref.apiGroup} is named by its CRD's cluster.x-k8s.io/v1beta2 or v1beta1 label`,
    )
  return {
    apiVersion: ref.apiGroup === "" ? version : `${ref.apiGroup}/${version}`,
    kind: ref.kind,
    name: ref.name,
  }
}

const topologyUp = (t: unknown): Obj | undefined => {
  if (!isObj(t)) return undefined
  const { class: cls, classNamespace, rolloutAfter: _dropped, ...rest } = t
  return defined({
    ...rest,
    classRef: defined({ name: cls, namespace: classNamespace }),
  })
}

const topologyDown = (t: unknown): Obj | undefined => {
  if (!isObj(t)) return undefined
  const { classRef, ...rest } = t
  const ref = isObj(classRef) ? classRef : {}
  return defined({ ...rest, class: ref.name ?? "", classNamespace: ref.namespace })
}

const specUp = (spec: Obj): Obj =>
  defined({
    ...spec,
    infrastructureRef: refUp(spec.infrastructureRef, "spec.infrastructureRef"),
    controlPlaneRef: refUp(spec.controlPlaneRef, "spec.controlPlaneRef"),
    topology: topologyUp(spec.topology),
  })

const specDown = (spec: Obj, resolve: VersionResolver): Obj =>
  defined({
    ...spec,
    infrastructureRef: refDown(spec.infrastructureRef, "spec.infrastructureRef", resolve),
    controlPlaneRef: refDown(spec.controlPlaneRef, "spec.controlPlaneRef", resolve),
    topology: topologyDown(spec.topology),
  })

// ---------------------------------------------------------------------------------------------
// status

const domainsUp = (fd: unknown): ReadonlyArray<Obj> | undefined => {
  if (!isObj(fd)) return undefined
  const names = Object.keys(fd).sort()
  return names.length === 0 ? undefined : names.map((name) => ({ name, ...(fd[name] as Obj) }))
}

const domainsDown = (fd: unknown): Obj | undefined => {
  if (!Array.isArray(fd) || fd.length === 0) return undefined
  const out: Record<string, unknown> = {}
  for (const d of fd as ReadonlyArray<Obj>) {
    const { name, ...rest } = d
    out[String(name)] = rest
  }
  return out
}

const statusUp = (st: Obj): Obj => {
  const {
    conditions,
    v1beta2,
    failureReason,
    failureMessage,
    infrastructureReady,
    controlPlaneReady,
    failureDomains,
    ...rest
  } = st
  const v2 = isObj(v1beta2) ? v1beta2 : {}
  const deprecated = defined({ conditions, failureReason, failureMessage })
  const initialization = defined({
    infrastructureProvisioned: infrastructureReady === true ? true : undefined,
    controlPlaneInitialized: controlPlaneReady === true ? true : undefined,
  })
  return defined({
    ...rest,
    conditions: v2.conditions,
    controlPlane: v2.controlPlane,
    workers: v2.workers,
    initialization: Object.keys(initialization).length === 0 ? undefined : initialization,
    failureDomains: domainsUp(failureDomains),
    deprecated: Object.keys(deprecated).length === 0 ? undefined : { v1beta1: deprecated },
  })
}

const statusDown = (st: Obj): Obj => {
  const { conditions, controlPlane, workers, initialization, failureDomains, deprecated, ...rest } = st
  const init = isObj(initialization) ? initialization : {}
  const v1 = isObj(deprecated) && isObj(deprecated.v1beta1) ? deprecated.v1beta1 : {}
  const v2 = defined({ conditions, controlPlane, workers })
  return defined({
    ...rest,
    conditions: v1.conditions,
    failureReason: v1.failureReason,
    failureMessage: v1.failureMessage,
    infrastructureReady: init.infrastructureProvisioned === true,
    controlPlaneReady: init.controlPlaneInitialized === true,
    failureDomains: domainsDown(failureDomains),
    v1beta2: Object.keys(v2).length === 0 ? undefined : v2,
  })
}

// ---------------------------------------------------------------------------------------------
// objects

interface Stored {
  readonly spec?: Obj
  readonly status?: Obj
  /** The annotation the source itself carried, given back when nothing was changed. */
  readonly annotation?: string
  /** The source had no annotations at all. */
  readonly noAnnotations?: boolean
}

const readStored = (meta: ClusterObject["metadata"]): Stored | undefined => {
  const raw = meta.annotations?.[ConversionDataAnnotation]
  // Stryker disable next-line ConditionalExpression
  if (raw === undefined) return undefined
  const v = safe(() => JSON.parse(raw) as unknown)
  return isObj(v) ? (v as Stored) : undefined
}

/**
 * Per top-level field: the stored value where the stored copy, converted to the other version and
 * back, gives the same value as what came in (nothing that maps to the field was changed there),
 * else the converted one. `changed`: what came in differs from the stored copy's conversion.
 */
const restore = (
  converted: Obj | undefined,
  incoming: Obj | undefined,
  stored: Obj | undefined,
  storedThere: Obj | undefined,
  storedBack: Obj | undefined,
): { readonly value: Obj | undefined; readonly changed: boolean } => {
  if (stored === undefined || storedThere === undefined)
    return { value: converted, changed: incoming !== undefined }
  const keys = new Set([...Object.keys(converted ?? {}), ...Object.keys(stored)])
  const out: Record<string, unknown> = {}
  for (const k of keys) out[k] = jsonEqual(storedBack?.[k], converted?.[k]) ? stored[k] : converted?.[k]
  const result = defined(out)
  return {
    value: Object.keys(result).length === 0 && converted === undefined ? undefined : result,
    changed: !jsonEqual(storedThere, incoming),
  }
}

const withAnnotation = (
  meta: ClusterObject["metadata"],
  value: string | undefined,
  dropEmpty: boolean,
): ClusterObject["metadata"] => {
  const { [ConversionDataAnnotation]: _old, ...others } = meta.annotations ?? {}
  const annotations = value === undefined ? others : { ...others, [ConversionDataAnnotation]: value }
  const { annotations: _a, ...rest } = meta
  return Object.keys(annotations).length === 0 && (meta.annotations === undefined || dropEmpty)
    ? rest
    : { ...rest, annotations }
}

const versionOf = (apiVersion: string) => apiVersion.slice(apiVersion.indexOf("/") + 1)

/** Converts a Cluster to `cluster.x-k8s.io/<to>` (`v1beta1` or `v1beta2`). */
export const convertCluster = (
  obj: ClusterObject,
  to: "v1beta1" | "v1beta2",
  resolve: VersionResolver,
): ClusterObject => {
  const from = versionOf(obj.apiVersion)
  if (from === to) return obj
  if ((from !== "v1beta1" && from !== "v1beta2") || obj.kind !== "Cluster")
    throw new ConversionError(`apiVersion: cannot convert ${obj.kind} of ${obj.apiVersion}`)
  const stored = readStored(obj.metadata)
  const spec = obj.spec ?? {}
  const status = obj.status
  const up = to === "v1beta2"
  const convertSpec = (s: Obj) => (up ? specUp(s) : specDown(s, resolve))
  const convertStatus = (s: Obj) => (up ? statusUp(s) : statusDown(s))
  const back = (s: Obj) => (up ? specDown(s, resolve) : specUp(s))
  const backStatus = (s: Obj) => (up ? statusDown(s) : statusUp(s))
  const convertedSpec = convertSpec(spec)
  const convertedStatus = status === undefined ? undefined : convertStatus(status)
  // The stored copy is of the version we convert to: what came in is the other version.
  // Stryker disable next-line ConditionalExpression
  const storedThereSpec = stored?.spec === undefined ? undefined : safe(() => back(stored.spec as Obj))
  const storedThereStatus = stored?.status === undefined ? undefined : backStatus(stored.status)
  const outSpec = restore(
    convertedSpec,
    spec,
    stored?.spec,
    storedThereSpec,
    // Stryker disable next-line ConditionalExpression
    storedThereSpec === undefined ? undefined : safe(() => convertSpec(storedThereSpec)),
  )
  const outStatus = restore(
    convertedStatus,
    status,
    stored?.status,
    storedThereStatus,
    storedThereStatus === undefined ? undefined : convertStatus(storedThereStatus),
  )
  // Nothing changed since the stored copy: the object comes back as it was, its own annotation
  // included. Else the source is kept for the way back (without older copies: bounded size).
  // Stryker disable next-line ConditionalExpression,LogicalOperator
  const restored = stored !== undefined && !outSpec.changed && !outStatus.changed
  const annotation = restored
    ? stored.annotation
    : JSON.stringify(
        defined({
          spec,
          status,
          annotation: stored === undefined ? obj.metadata.annotations?.[ConversionDataAnnotation] : undefined,
          noAnnotations: obj.metadata.annotations === undefined ? true : undefined,
        }),
      )
  return defined({
    apiVersion: `cluster.x-k8s.io/${to}`,
    kind: "Cluster",
    metadata: withAnnotation(obj.metadata, annotation, restored && stored?.noAnnotations === true),
    spec: outSpec.value,
    status: outStatus.value,
  }) as unknown as ClusterObject
}

/** `f()`, or `undefined` when it throws. */
// Stryker disable BlockStatement
const safe = <A>(f: () => A): A | undefined => {
  try {
    return f()
  } catch {
    return undefined
  }
}
// Stryker restore BlockStatement
