/**
 * `krtt why cluster`: reads Clusters with get and list only, diagnoses each (diagnose.ts) and
 * renders the report as text or JSON. A bad argument or a missing Cluster is a WhyUsageError:
 * exit code 2 with a message naming it.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeObject } from "../kube/resource.ts"
import { clusterCacheRow } from "./clustercache.ts"
import { type ClusterDiagnosis, diagnose } from "./diagnose.ts"
import { ClusterResource, listCrds, observeReadOnly } from "./observe.ts"

/** A mistake of the user's or a Cluster that cannot be read: exit 2, the message says which. */
export class WhyUsageError extends Data.TaggedError("WhyUsageError")<{ readonly message: string }> {}

/** What `krtt why cluster` was asked. */
export interface WhyFlags {
  /** `NAMESPACE/NAME`, absent with `all`. */
  readonly target: string | undefined
  readonly all: boolean
  readonly namespace: string | undefined
  readonly json: boolean
  readonly probe: boolean
}

const targetKey = (flags: WhyFlags) => {
  if (flags.all && flags.target !== undefined)
    return new WhyUsageError({ message: "give either NAMESPACE/NAME or --all, not both" })
  if (!flags.all && flags.target === undefined)
    return new WhyUsageError({ message: "NAMESPACE/NAME: give the Cluster to diagnose, or --all" })
  if (!flags.all && flags.namespace !== undefined)
    return new WhyUsageError({ message: "--namespace: only with --all (NAMESPACE/NAME names the namespace)" })
  if (flags.target === undefined) return undefined
  const parts = flags.target.split("/")
  if (parts.length !== 2 || parts[0] === "" || parts[1] === "")
    return new WhyUsageError({
      message: `NAMESPACE/NAME: "${flags.target}" is not of the form NAMESPACE/NAME`,
    })
  return { namespace: parts[0] as string, name: parts[1] as string }
}

const readClusters = (client: KubeClientShape, flags: WhyFlags) =>
  Effect.gen(function* () {
    const key = targetKey(flags)
    if (key instanceof WhyUsageError) return yield* key
    if (key !== undefined) {
      const one = yield* client.get(ClusterResource, key).pipe(
        Effect.mapError(
          (e) =>
            new WhyUsageError({
              message:
                e._tag === "NotFound"
                  ? `NAMESPACE/NAME: Cluster ${key.namespace}/${key.name} not found`
                  : `cannot read Cluster ${key.namespace}/${key.name}: ${e.message}`,
            }),
        ),
      )
      return [one]
    }
    const listed = yield* client
      .listAll(ClusterResource, flags.namespace === undefined ? {} : { namespace: flags.namespace })
      .pipe(Effect.mapError((e) => new WhyUsageError({ message: `cannot list Clusters: ${e.message}` })))
    return [...listed.items].sort((a, b) =>
      `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(
        `${b.metadata.namespace}/${b.metadata.name}`,
      ),
    )
  })

/** Diagnoses the Clusters the flags name; reads only. */
export const whyClusters = (
  client: KubeClientShape,
  flags: WhyFlags,
): Effect.Effect<ReadonlyArray<ClusterDiagnosis>, WhyUsageError> =>
  Effect.gen(function* () {
    const clusters = yield* readClusters(client, flags)
    const crds = yield* listCrds(client).pipe(
      Effect.mapError(
        (e) => new WhyUsageError({ message: `cannot list CustomResourceDefinitions: ${e.message}` }),
      ),
    )
    const now = yield* Clock.currentTimeMillis
    return yield* Effect.forEach(clusters, (cluster: KubeObject) =>
      Effect.gen(function* () {
        const d = diagnose(yield* observeReadOnly(client, crds, cluster), now)
        const cache = yield* clusterCacheRow(client, cluster, { probe: flags.probe, now })
        return { ...d, rows: [...d.rows, cache] }
      }),
    )
  })

/** The JSON document: `{"clusters":[{"name","rows","expectedStatus","differences"}]}`. */
export const whyJson = (ds: ReadonlyArray<ClusterDiagnosis>): string =>
  JSON.stringify({ clusters: ds }, (_k, v) => (v === undefined ? null : v), 2)

const show = (v: unknown) => (v === undefined ? "(absent)" : JSON.stringify(v))

/** The text of one Cluster in detail. */
export const renderOne = (d: ClusterDiagnosis): string =>
  [
    `Cluster ${d.name}`,
    ...d.rows.flatMap((r) => [
      `  ${r.row} decides.`,
      `    ${r.text}`,
      ...(r.waitingOn === undefined ? [] : [`    Waiting on: ${r.waitingOn}`]),
    ]),
    "  Expected status (what krtt's tables would write):",
    `    ${JSON.stringify(d.expectedStatus)}`,
    d.differences.length === 0
      ? "  The Cluster's status matches: 0 differences."
      : `  ${d.differences.length} ${d.differences.length === 1 ? "difference" : "differences"} (field: actual → expected):`,
    ...d.differences.map((x) => `    ${x.field}: ${show(x.actual)} → ${show(x.expected)}`),
  ].join("\n")

/** One line per Cluster, for `--all`. */
export const renderAll = (ds: ReadonlyArray<ClusterDiagnosis>): string =>
  ds.length === 0
    ? "no Clusters"
    : ds
        .map((d) => `${d.name}  ${d.rows.map((r) => r.row).join(", ")}  differences: ${d.differences.length}`)
        .join("\n")

/** The report the flags ask for. */
export const render = (ds: ReadonlyArray<ClusterDiagnosis>, flags: WhyFlags): string =>
  flags.json ? whyJson(ds) : flags.all ? renderAll(ds) : ds.map(renderOne).join("\n")
