/**
 * A validator of Kubernetes structural schemas (a CRD's `openAPIV3Schema`), for the subset the
 * API server checks on a write: types and formats, `required`, `enum`, `pattern`, lengths, item
 * and property counts, `minimum`/`maximum`, map lists' keys (`x-kubernetes-list-type: map`).
 * Fields the schema does not know are reported too: the API server would prune them silently.
 * CEL rules (`x-kubernetes-validations`) are not evaluated.
 *
 * Used to hold the statuses the Cluster controller writes to upstream Cluster API's own CRD
 * ("422 status.conditions[0].message: Required value").
 *
 * @module
 */

export type Schema = Readonly<Record<string, unknown>>

/** One violation, with the field path as the API server names it (`status.conditions[0].message`). */
export interface Violation {
  readonly path: string
  readonly message: string
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

const typeOf = (v: unknown): string =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "array"
      : typeof v === "number"
        ? Number.isInteger(v)
          ? "integer"
          : "number"
        : typeof v

/** The violations of `value` against `schema`, at `path`. */
export const validate = (schema: Schema, value: unknown, path = ""): ReadonlyArray<Violation> => {
  const out: Array<Violation> = []
  const at = (message: string) => out.push({ path, message })
  if (value === null) {
    if (schema.nullable !== true) at("Invalid value: null")
    return out
  }
  const type = schema.type as string | undefined
  const actual = typeOf(value)
  if (type !== undefined && !(type === actual || (type === "number" && actual === "integer"))) {
    at(`Invalid value: "${actual}": must be of type ${type}`)
    return out
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    at(
      `Unsupported value: ${JSON.stringify(value)}: supported values: ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`,
    )
  if (typeof value === "string") {
    if (typeof schema.minLength === "number" && value.length < schema.minLength)
      at(`Invalid value: "": should be at least ${schema.minLength} chars long`)
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength)
      at(`Too long: may not be more than ${schema.maxLength} bytes`)
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern, "u").test(value))
      at(`Invalid value: ${JSON.stringify(value)}: should match '${schema.pattern}'`)
    if (schema.format === "date-time" && !RFC3339.test(value))
      at(`Invalid value: ${JSON.stringify(value)}: must be RFC 3339`)
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum)
      at(`Invalid value: ${value}: should be greater than or equal to ${schema.minimum}`)
    if (typeof schema.maximum === "number" && value > schema.maximum)
      at(`Invalid value: ${value}: should be less than or equal to ${schema.maximum}`)
    if (schema.format === "int32" && (value < -(2 ** 31) || value >= 2 ** 31))
      at(`Invalid value: ${value}: not an int32`)
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems)
      at(`Invalid value: ${value.length}: should have at least ${schema.minItems} items`)
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems)
      at(`Too many: ${value.length}: must have at most ${schema.maxItems} items`)
    const items = schema.items as Schema | undefined
    value.forEach((item, i) => {
      if (items !== undefined) out.push(...validate(items, item, `${path}[${i}]`))
    })
    const keys = schema["x-kubernetes-list-map-keys"] as ReadonlyArray<string> | undefined
    if (schema["x-kubernetes-list-type"] === "map" && keys !== undefined) {
      const seen = new Set<string>()
      value.forEach((item, i) => {
        const k = JSON.stringify(keys.map((key) => (item as Record<string, unknown>)[key]))
        if (seen.has(k)) out.push({ path: `${path}[${i}]`, message: `Duplicate value: ${k}` })
        seen.add(k)
      })
    }
    if (schema["x-kubernetes-list-type"] === "set") {
      const seen = new Set(value.map((x) => JSON.stringify(x)))
      if (seen.size !== value.length) at("Duplicate value in a set")
    }
  }
  if (actual === "object") {
    const obj = value as Record<string, unknown>
    const defined = Object.keys(obj).filter((k) => obj[k] !== undefined)
    if (typeof schema.minProperties === "number" && defined.length < schema.minProperties)
      at(`Invalid value: ${defined.length}: should have at least ${schema.minProperties} properties`)
    if (typeof schema.maxProperties === "number" && defined.length > schema.maxProperties)
      at(`Too many: ${defined.length}: must have at most ${schema.maxProperties} properties`)
    for (const r of (schema.required as ReadonlyArray<string> | undefined) ?? [])
      if (obj[r] === undefined) out.push({ path: join(path, r), message: "Required value" })
    const props = schema.properties as Readonly<Record<string, Schema>> | undefined
    const additional = schema.additionalProperties as Schema | boolean | undefined
    const preserve = schema["x-kubernetes-preserve-unknown-fields"] === true
    for (const k of defined) {
      const p = props?.[k]
      if (p !== undefined) out.push(...validate(p, obj[k], join(path, k)))
      else if (typeof additional === "object") out.push(...validate(additional, obj[k], join(path, k)))
      else if (!preserve && additional !== true && props !== undefined)
        out.push({ path: join(path, k), message: "Unknown field: the API server would prune it" })
    }
  }
  return out
}

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`)

/** The schema of a top-level field (`status`, `spec`) of a CRD version. */
export const fieldSchema = (
  crd: {
    readonly spec: {
      readonly versions: ReadonlyArray<{
        readonly name: string
        readonly schema?: { readonly openAPIV3Schema: Record<string, unknown> }
      }>
    }
  },
  version: string,
  field: string,
): Schema => {
  const v = crd.spec.versions.find((x) => x.name === version)
  const props = v?.schema?.openAPIV3Schema.properties as Record<string, Schema> | undefined
  const s = props?.[field]
  if (s === undefined) throw new Error(`the CRD has no ${field} schema in version ${version}`)
  return s
}
