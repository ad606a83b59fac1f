/**
 * The Cluster API kinds installed in the management cluster that `krtt run` does not reconcile.
 *
 * krtt runs the Cluster controller and the ClusterCache only; upstream's core manager also runs
 * the Machine, MachineSet, MachineDeployment, MachinePool, MachineHealthCheck, ClusterClass,
 * ClusterResourceSet, ExtensionConfig, MachineDrainRule… controllers. At start the manager finds
 * the kinds of Cluster API's groups through discovery, counts their objects and warns once, in
 * one log line, when any exist: those objects need upstream's manager.
 *
 * Counting is cheap: a LIST with `limit=1` whose `metadata.remainingItemCount` gives the rest;
 * only when the server gives no count are the pages read (500 at a time, names only counted).
 * Nothing here fails: a kind that cannot be listed (Forbidden, a timeout) is reported as not
 * counted, and failed discovery is reported as such.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { KubeClientShape } from "../kube/client.ts"
import { serverResources } from "../kube/discovery.ts"
import type { KubeError } from "../kube/errors.ts"
import type { ObjectList, ResourceRef } from "../kube/resource.ts"

/** The API groups of the kinds upstream's core manager reconciles. */
export const ClusterApiGroups: ReadonlyArray<string> = [
  "cluster.x-k8s.io",
  "addons.cluster.x-k8s.io",
  "runtime.cluster.x-k8s.io",
]

/** The kinds krtt reconciles, as `group/Kind`. */
export const ReconciledKinds: ReadonlySet<string> = new Set(["cluster.x-k8s.io/Cluster"])

/** Where the documentation says what krtt replaces and what it does not. */
export const ScopeDocument = "docs/operator.md#scope"

/** How many objects of one kind exist, or why they could not be counted. */
export type KindCount =
  | { readonly _tag: "Counted"; readonly kind: string; readonly group: string; readonly count: number }
  | { readonly _tag: "Uncounted"; readonly kind: string; readonly group: string; readonly reason: string }

/** What the manager found: the counts, or why discovery failed. */
export type UnreconciledReport =
  | { readonly _tag: "Found"; readonly kinds: ReadonlyArray<KindCount> }
  | { readonly _tag: "DiscoveryFailed"; readonly reason: string }

const describeError = (e: KubeError): string => `${e._tag}: ${e.message}`

interface ApiGroup {
  readonly name?: unknown
  readonly preferredVersion?: { readonly version?: unknown } | undefined
}

/** The preferred version of each of `groups` that the server serves, in the order of `groups`. */
const servedGroups = (
  client: KubeClientShape,
  groups: ReadonlyArray<string>,
): Effect.Effect<ReadonlyArray<{ readonly group: string; readonly version: string }>, KubeError> =>
  Effect.map(client.raw({ method: "GET", path: "/apis", verb: "discovery" }), (body) => {
    const list = (body as { readonly groups?: ReadonlyArray<ApiGroup> } | undefined)?.groups ?? []
    const served = list.flatMap((g) => {
      const version = g.preferredVersion?.version
      return typeof g.name === "string" && groups.includes(g.name) && typeof version === "string"
        ? [{ group: g.name, version }]
        : []
    })
    return served.sort((a, b) => groups.indexOf(a.group) - groups.indexOf(b.group))
  })

/** Page size when the server gives no `remainingItemCount` (client-go's pager's). */
const PageSize = 500

/**
 * The number of objects of `ref` (in `namespace`, or everywhere): one LIST with `limit=1`, plus
 * its `remainingItemCount`; without one, the pages are read and counted.
 */
export const countObjects = (
  client: KubeClientShape,
  ref: ResourceRef,
  namespace?: string,
): Effect.Effect<number, KubeError> =>
  Effect.gen(function* () {
    const first = yield* client.list(ref, { namespace, limit: 1 })
    if (first.continue === undefined) return first.items.length
    if (first.remainingItemCount !== undefined) return first.items.length + first.remainingItemCount
    let count = first.items.length
    let token: string | undefined = first.continue
    while (token !== undefined) {
      const page: ObjectList = yield* client.list(ref, { namespace, limit: PageSize, continue: token })
      count += page.items.length
      token = page.continue
    }
    return count
  })

const countKind = (
  client: KubeClientShape,
  ref: ResourceRef,
  namespace: string | undefined,
): Effect.Effect<KindCount> =>
  countObjects(client, ref, namespace).pipe(
    Effect.map((count): KindCount => ({ _tag: "Counted", kind: ref.kind, group: ref.group, count })),
    Effect.catch((e) =>
      Effect.succeed<KindCount>({
        _tag: "Uncounted",
        kind: ref.kind,
        group: ref.group,
        reason: describeError(e),
      }),
    ),
  )

/**
 * Finds the kinds of Cluster API's groups that krtt does not reconcile and counts their objects
 * (in `namespace` when the manager is narrowed to one). Never fails.
 */
export const findUnreconciled = (
  client: KubeClientShape,
  options: { readonly namespace?: string | undefined } = {},
): Effect.Effect<UnreconciledReport> =>
  Effect.gen(function* () {
    const groups = yield* servedGroups(client, ClusterApiGroups)
    const resources = (yield* Effect.forEach(groups, (gv) => serverResources(client, gv), {
      concurrency: 3,
    })).flat()
    const others = resources.filter((r) => !ReconciledKinds.has(`${r.group}/${r.kind}`))
    const kinds = yield* Effect.forEach(others, (r) => countKind(client, r, options.namespace), {
      concurrency: 4,
    })
    return { _tag: "Found", kinds } as UnreconciledReport
  }).pipe(
    Effect.catch((e) =>
      Effect.succeed<UnreconciledReport>({ _tag: "DiscoveryFailed", reason: describeError(e) }),
    ),
  )

/** `Machine` → `Machines`, `ClusterClass` → `ClusterClasses`, `Policy` → `Policies`. */
export const pluralOf = (kind: string): string =>
  /(s|x|ch|sh)$/.test(kind) ? `${kind}es` : /[^aeiou]y$/.test(kind) ? `${kind.slice(0, -1)}ies` : `${kind}s`

const counted = (c: { readonly kind: string; readonly count: number }): string =>
  `${c.count} ${c.count === 1 ? c.kind : pluralOf(c.kind)}`

/**
 * The warning for a report, or `undefined` when there is nothing to say (no object of a kind
 * krtt does not reconcile, and every kind counted).
 */
export const unreconciledWarning = (
  report: UnreconciledReport,
): { readonly message: string; readonly annotations: Record<string, string> } | undefined => {
  if (report._tag === "DiscoveryFailed") {
    return {
      message: `krtt reconciles only Clusters: could not discover the other Cluster API kinds installed (${report.reason}); keep upstream's manager for any of them (${ScopeDocument})`,
      annotations: { discoveryError: report.reason },
    }
  }
  const found = report.kinds.flatMap((k) => (k._tag === "Counted" && k.count > 0 ? [k] : []))
  const uncounted = report.kinds.flatMap((k) => (k._tag === "Uncounted" ? [k] : []))
  if (found.length === 0 && uncounted.length === 0) return undefined
  const parts = [
    ...(found.length > 0 ? [`found ${found.map(counted).join(", ")} that it does not reconcile`] : []),
    ...(uncounted.length > 0
      ? [`could not count ${uncounted.map((k) => `${pluralOf(k.kind)} (${k.reason})`).join(", ")}`]
      : []),
  ]
  return {
    message: `krtt reconciles only Clusters: ${parts.join("; ")}; keep upstream's manager for them (${ScopeDocument})`,
    annotations: {
      unreconciled: found.map((k) => `${k.kind}=${k.count}`).join(","),
      uncounted: uncounted.map((k) => k.kind).join(","),
    },
  }
}

/** Finds, counts and warns once (one log line); logs nothing when there is nothing to say. */
export const warnUnreconciled = (
  client: KubeClientShape,
  options: { readonly namespace?: string | undefined } = {},
): Effect.Effect<void> =>
  Effect.flatMap(findUnreconciled(client, options), (report) => {
    const warning = unreconciledWarning(report)
    return warning === undefined
      ? Effect.void
      : Effect.logWarning(warning.message).pipe(Effect.annotateLogs(warning.annotations))
  })
