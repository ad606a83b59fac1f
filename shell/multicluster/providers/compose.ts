/**
 * A composition of providers: the clusters of every provider, named `<provider>#<cluster>`
 * (multicluster-runtime's multi provider), so that a manager can reconcile, say, the contexts of
 * a kubeconfig file and the clusters of kubeconfig Secrets at once.
 *
 * # Guarantees
 * - Names never collide: the provider's name and `#` prefix each cluster's; provider names are
 *   unique and contain no `#` (checked when composing).
 * - Each constituent stays health-gated by its own engine; the composition adds no state but
 *   the renamed `Cluster` of each engaged one (the same object for engage, get and disengage).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import { ClusterName } from "../../workqueue/request.ts"
import { type Aware, type Cluster, ClusterNotFound, type Provider } from "../types.ts"
import { closest, ProviderUsageError } from "./errors.ts"

/** The separator of a composed cluster name. */
export const ComposeSeparator = "#"

/** The name of the composition (each cluster is named after its own provider). */
export const ComposeName = "compose"

/** `<provider>#<cluster>`. */
export const composedName = (provider: string, cluster: string): ClusterName =>
  ClusterName(`${provider}${ComposeSeparator}${cluster}`)

/** Composes `providers`; fails on duplicate provider names or names containing `#`. */
export const composeProviders = (
  providers: ReadonlyArray<Provider>,
): Effect.Effect<Provider, ProviderUsageError> =>
  Effect.gen(function* () {
    const byName = new Map<string, Provider>()
    for (const p of providers) {
      if (p.name.includes(ComposeSeparator) || byName.has(p.name)) {
        return yield* new ProviderUsageError({
          flag: "--provider",
          message: `--provider: cannot compose provider "${p.name}": ${
            byName.has(p.name) ? "it is named twice" : `its name contains "${ComposeSeparator}"`
          }`,
        })
      }
      byName.set(p.name, p)
    }
    /** The renamed Cluster of each engaged one: the same object for engage, get and disengage. */
    const renamed = new WeakMap<Cluster, Cluster>()
    const rename = (p: Provider, c: Cluster): Cluster => {
      const known = renamed.get(c)
      if (known !== undefined) return known
      const out: Cluster = { ...c, name: composedName(p.name, c.name) }
      renamed.set(c, out)
      return out
    }
    const wrap = (p: Provider, aware: Aware): Aware => ({
      engage: (c, scope) => aware.engage(rename(p, c), scope),
      disengage: (c) => aware.disengage(rename(p, c)),
    })
    const get = (name: ClusterName): Effect.Effect<Cluster, ClusterNotFound> => {
      const at = name.indexOf(ComposeSeparator)
      const p = at < 0 ? undefined : byName.get(name.slice(0, at))
      if (p === undefined) {
        const near = closest(at < 0 ? name : name.slice(0, at), [...byName.keys()])
        return Effect.fail(
          new ClusterNotFound({
            cluster: name,
            message: `"${name}" is not <provider>${ComposeSeparator}<cluster> of a composed provider${
              near === undefined ? "" : ` (providers: ${[...byName.keys()].join(", ")})`
            }`,
          }),
        )
      }
      return Effect.map(p.get(ClusterName(name.slice(at + 1))), (c) => rename(p, c))
    }
    return {
      name: ComposeName,
      get,
      indexField: (resource, name, extract) =>
        Effect.forEach(providers, (p) => p.indexField(resource, name, extract), { discard: true }),
      run: (aware) => Effect.forEach(providers, (p) => p.run(wrap(p, aware)), { discard: true }),
      clusters: Effect.map(
        Effect.forEach(providers, (p) =>
          Effect.map(p.clusters, (cs) => cs.map((c) => ({ ...c, name: composedName(p.name, c.name) }))),
        ),
        (all) => all.flat(),
      ),
    } satisfies Provider
  })
