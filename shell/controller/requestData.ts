/**
 * Requests as plain data: what every request type has (the cluster it is for) and the canonical
 * key that tells two requests apart (Go's `comparable`). Event handlers de-duplicate by this key,
 * and multi-cluster request types queue by it.
 *
 * # Guarantees
 * - `requestDataKey` is the JSON of the request with object keys sorted: two requests with equal
 *   fields have one key, whatever their key order; fields that are `undefined` are left out.
 * - `canonicalJson` names the path of the first value that is not JSON data (a function, a
 *   class instance, a non-finite number), so a caller can refuse the request with that path.
 *
 * @module
 */
import type { ClusterName } from "../workqueue/request.ts"

/** What every request type has: the cluster it is for (`""`: the hub). */
export interface ClusterAware {
  readonly cluster: ClusterName
}

/** The canonical JSON of a value, or the path of its first value that is not JSON data. */
export type CanonicalJson =
  | { readonly _tag: "Json"; readonly json: string }
  | { readonly _tag: "NotData"; readonly path: string }

const json = (text: string): CanonicalJson => ({ _tag: "Json", json: text })
const notData = (path: string): CanonicalJson => ({ _tag: "NotData", path })

/** The canonical JSON of the elements of an array, or its first element that is not data. */
const canonicalArray = (value: ReadonlyArray<unknown>, path: string): CanonicalJson => {
  const parts: Array<string> = []
  for (const [i, v] of value.entries()) {
    const c = canonicalJson(v, `${path}[${i}]`)
    if (c._tag === "NotData") return c
    parts.push(c.json)
  }
  return json(`[${parts.join(",")}]`)
}

/** The canonical JSON of a plain object, keys sorted, `undefined` fields left out. */
const canonicalObject = (value: Readonly<Record<string, unknown>>, path: string): CanonicalJson => {
  const parts: Array<string> = []
  for (const key of Object.keys(value).sort()) {
    const v = value[key]
    if (v === undefined) continue
    const c = canonicalJson(v, path === "" ? key : `${path}.${key}`)
    if (c._tag === "NotData") return c
    parts.push(`${JSON.stringify(key)}:${c.json}`)
  }
  return json(`{${parts.join(",")}}`)
}

/** Sorted-key JSON of plain data, or the path (from `path`) of the first value that is not data. */
export const canonicalJson = (value: unknown, path = ""): CanonicalJson => {
  if (value === null || typeof value === "string" || typeof value === "boolean")
    return json(JSON.stringify(value))
  if (typeof value === "number") return Number.isFinite(value) ? json(JSON.stringify(value)) : notData(path)
  if (Array.isArray(value)) return canonicalArray(value, path)
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype)
    return canonicalObject(value as Record<string, unknown>, path)
  return notData(path)
}

/** A de-duplication key of any request: its canonical JSON (plain JSON text if it is not data). */
export const requestDataKey = (request: unknown): string => {
  const c = canonicalJson(request)
  return c._tag === "Json" ? c.json : String(JSON.stringify(request))
}
