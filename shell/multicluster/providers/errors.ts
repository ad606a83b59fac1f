/**
 * Errors of the providers' configuration, and the strict checking of their options objects: an
 * unknown key is an error naming the closest known one.
 *
 * @module
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { editDistance } from "../../../core/krtt/suggest.ts"

/**
 * A provider was asked for with a bad name, flag or option. `flag` names the flag (or options
 * key) at fault, e.g. `--provider-namespace`. Not retryable: the command line must change.
 */
export class ProviderUsageError extends Data.TaggedError("ProviderUsageError")<{
  readonly flag: string
  readonly message: string
}> {}

/** The known name closest to `name` (ties: the first in `known`). */
export const closest = (name: string, known: ReadonlyArray<string>): string | undefined => {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase())
    if (d < bestDistance) {
      best = k
      bestDistance = d
    }
  }
  return best
}

/**
 * Fails with `ProviderUsageError` when `options` has a key outside `known`, naming the closest
 * known key (`where` says whose options they are, e.g. `kubeconfig-secrets options`).
 */
export const checkKeys = (
  where: string,
  options: object,
  known: ReadonlyArray<string>,
): Effect.Effect<void, ProviderUsageError> => {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue
    const near = closest(key, known)
    return Effect.fail(
      new ProviderUsageError({
        flag: key,
        message: `${where}: unknown option "${key}"${near === undefined ? "" : ` (did you mean "${near}"?)`}`,
      }),
    )
  }
  return Effect.void
}

/** Options as callers give them: any field, `undefined` meaning "the default". */
export type Given<T> = { readonly [K in keyof T]?: T[K] | undefined }

/** `given` over `defaults`, fields given as `undefined` taking the default. */
export const withDefaults = <T extends object>(defaults: T, given: Given<T>): T => {
  const out: Record<string, unknown> = { ...(defaults as Record<string, unknown>) }
  for (const [k, v] of Object.entries(given)) if (v !== undefined) out[k] = v
  return out as T
}
