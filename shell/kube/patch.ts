/**
 * Patches: the four kinds the API server takes, their content types, and the JSON merge patch
 * algorithm (RFC 7386) that the in-memory server applies.
 *
 * @module
 */
import * as JsonPatch from "effect/JsonPatch"
import type * as Schema from "effect/Schema"

/** A patch document and how the server should read it. */
export type Patch =
  /** RFC 7386 JSON merge patch: objects merge, `null` deletes, arrays replace. */
  | { readonly type: "merge"; readonly body: unknown }
  /** RFC 6902 JSON patch (`add`/`remove`/`replace` operations). */
  | { readonly type: "json"; readonly body: JsonPatch.JsonPatch }
  /** Strategic merge patch (built-in kinds only; the in-memory server treats it as a merge patch). */
  | { readonly type: "strategic"; readonly body: unknown }
  /**
   * Server-side apply: `body` is the full intent of one field manager (apiVersion and kind are
   * filled in from the resource when absent). Needs `fieldManager`; `force` takes over fields
   * owned by other managers.
   */
  | { readonly type: "apply"; readonly body: unknown }

/** A JSON merge patch. */
export const mergePatch = (body: unknown): Patch => ({ type: "merge", body })

/** A JSON patch. */
export const jsonPatch = (ops: JsonPatch.JsonPatch): Patch => ({ type: "json", body: ops })

/** A server-side apply patch (pass `fieldManager`, and `force` if needed, in the patch options). */
export const applyPatch = (body: unknown): Patch => ({ type: "apply", body })

/** The `Content-Type` the API server expects for a patch. */
export const contentTypeOf = (patch: Patch): string => {
  switch (patch.type) {
    case "merge":
      return "application/merge-patch+json"
    case "json":
      return "application/json-patch+json"
    case "strategic":
      return "application/strategic-merge-patch+json"
    case "apply":
      return "application/apply-patch+yaml"
  }
}

const isPlainObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** RFC 7386: applies a merge patch to `target` without mutating either. */
export const applyMergePatch = (target: unknown, patch: unknown): unknown => {
  if (!isPlainObject(patch)) return patch
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key]
    else out[key] = applyMergePatch(out[key], value)
  }
  return out
}

/**
 * Applies a JSON patch; throws an `Error` with a readable message when an operation does not
 * apply (the in-memory server turns it into 422 Invalid).
 */
export const applyJsonPatch = (target: unknown, ops: JsonPatch.JsonPatch): unknown =>
  JsonPatch.apply(ops, target as Schema.Json)
