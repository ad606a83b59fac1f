/**
 * The state a chaos run is judged by: every object of the fake API servers but Events, masked of
 * what differs between equal runs (resourceVersions, uids, timestamps, generated names, the third
 * party's own fields), one sorted line per object; and how two such states compare.
 *
 * Guarantees: two runs that reached the same state (up to the masked fields) have equal
 * snapshots, line for line; a duplicated object is a difference (`firstDifference` compares
 * multisets).
 *
 * @module
 */
import { createHash } from "node:crypto"
import { compareText } from "../../core/krtt/compare.ts"
import type { FakeApiServer } from "../apiserver/server.ts"
import type { KubeObject } from "../kube/resource.ts"
import { type Condition, FOREIGN_CONDITION, THIRD_PARTY_PREFIX } from "./thirdParty.ts"

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const MASKED_KEYS = new Set(["resourceVersion", "uid", "managedFields", "creationTimestamp"])

/** Masks what differs between equal runs: resourceVersions, uids, timestamps, generated names, the third party's own fields. */
export const mask = (u: unknown, key = ""): unknown => {
  if (MASKED_KEYS.has(key)) return "<masked>"
  if (typeof u === "string") return TIME.test(u) ? "<time>" : u
  if (Array.isArray(u))
    return u
      .filter((c) => !(key === "conditions" && (c as Condition)?.type === FOREIGN_CONDITION))
      .map((x) => mask(x))
  if (typeof u === "object" && u !== null) {
    const entries = Object.entries(u)
      .filter(([k]) => !k.startsWith(THIRD_PARTY_PREFIX))
      .filter(
        ([k, v]) =>
          !(
            (k === "labels" || k === "annotations") &&
            typeof v === "object" &&
            v !== null &&
            Object.keys(v).every((x) => x.startsWith(THIRD_PARTY_PREFIX))
          ),
      )
      .sort(([a], [b]) => compareText(a, b))
      .map(([k, v]) => [k, mask(v, k)])
    return Object.fromEntries(entries)
  }
  return u
}

/** Names made from `generateName` (`<prefix><5 characters>`) lose their suffix. */
export const nameOf = (o: KubeObject) =>
  o.metadata.generateName !== undefined ? `${o.metadata.generateName}<generated>` : (o.metadata.name ?? "")

/**
 * The state compared with the reference: every object but Events, masked; with `workloads`,
 * theirs too (each line prefixed with its server URL).
 */
export const snapshot = (
  mgmt: FakeApiServer,
  workloads: ReadonlyArray<readonly [string, FakeApiServer]> = [],
  maskObject: (resource: string, o: KubeObject) => KubeObject = (_, o) => o,
): ReadonlyArray<string> =>
  [["", mgmt] as const, ...workloads]
    .flatMap(([url, server]) =>
      server
        .resources()
        .filter((r) => r.resource !== "events")
        .flatMap((r) =>
          server.objects(r).map((o) => {
            const masked = mask(
              maskObject(r.resource, { ...o, metadata: { ...o.metadata, name: nameOf(o) } }),
            )
            return `${url === "" ? "" : `${url} `}${r.resource} ${o.metadata.namespace ?? ""}/${nameOf(o)} ${JSON.stringify(masked)}`
          }),
        ),
    )
    .sort()

/**
 * The Events of every server, one line each, without duplicates (a retry may emit one more):
 * where, about what, type, reason, message (times masked) and reporting component. Not compared
 * by the oracles (a perturbed run may emit Events the fault-free one does not); the fault-free
 * run's are part of its digest, so that a runtime emitting other Events is told apart.
 */
export const eventLines = (
  servers: ReadonlyArray<readonly [string, FakeApiServer]>,
): ReadonlyArray<string> => {
  const lines = servers.flatMap(([url, server]) =>
    server
      .resources()
      .filter((r) => r.resource === "events")
      .flatMap((r) =>
        server.objects(r).map((o) => {
          const e = o as KubeObject & Record<string, unknown>
          const about = e.involvedObject as Record<string, unknown> | undefined
          const fields = [
            about?.kind,
            about?.namespace,
            about?.name,
            e.type,
            e.reason,
            e.message,
            e.reportingComponent,
          ]
          return `${url} ${JSON.stringify(mask(fields))}`
        }),
      ),
  )
  return [...new Set(lines)].sort()
}

export const sameState = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i])

/** What a run did besides its final state and its creates and deletes. */
export interface RunTrace {
  /** The states at the end of each step. */
  readonly steps?: ReadonlyArray<ReadonlyArray<string>> | undefined
  /** The Events emitted (`eventLines`). */
  readonly events?: ReadonlyArray<string> | undefined
  /** What it logged (`captureLogs`). */
  readonly logs?: ReadonlyArray<string> | undefined
  /** How often each informer listed (`InformerLedger.lists`). */
  readonly lists?: ReadonlyArray<string> | undefined
  /** The requests and the successful writes of the operator. */
  readonly requests?: number | undefined
  readonly writes?: number | undefined
  /** What its metrics read at the end (`metricLines`). */
  readonly metrics?: ReadonlyArray<string> | undefined
}

/**
 * A short digest of a final state, of every object's creates and deletes, and of what `trace`
 * holds (the states between, the Events emitted, the log, the informers' lists, the requests and
 * writes, the metrics): runs that pass through the same states and end alike, by way of the same
 * creates and deletes, with the same Events, log, traffic and metrics, have equal digests.
 */
export const stateDigest = (
  final: ReadonlyArray<string>,
  lifecycle: Readonly<Record<string, string>>,
  trace: RunTrace = {},
): string => {
  const history = Object.entries(lifecycle).sort(([a], [b]) => compareText(a, b))
  const { steps = [], events = [], logs = [], lists = [], requests = 0, writes = 0, metrics = [] } = trace
  return createHash("sha256")
    .update(JSON.stringify([final, history, steps, events, logs, lists, requests, writes, metrics]))
    .digest("hex")
    .slice(0, 16)
}

/** The first line where two states differ (as multisets: a duplicate counts), for a failure message. */
export const firstDifference = (expected: ReadonlyArray<string>, actual: ReadonlyArray<string>): string => {
  const counts = new Map<string, number>()
  for (const x of expected) counts.set(x, (counts.get(x) ?? 0) + 1)
  const extra: Array<string> = []
  for (const x of actual) {
    const n = counts.get(x) ?? 0
    if (n > 0) counts.set(x, n - 1)
    else extra.push(x)
  }
  const missing = [...counts.entries()].filter(([, n]) => n > 0).map(([x]) => x)
  if (missing.length === 0 && extra.length === 0) return "no difference"
  // Two versions of one object: show where they part (after the object's name), not only their start.
  const [m, x] = [missing[0], extra[0]]
  let from = 0
  if (m !== undefined && x !== undefined && m.split(" ", 2).join(" ") === x.split(" ", 2).join(" ")) {
    while (from < m.length && m[from] === x[from]) from++
    from = Math.max(0, from - 120)
  }
  const short = (s: string | undefined) => {
    if (s === undefined) return ""
    const head = from > 0 ? `${s.split(" ", 2).join(" ")} …${s.slice(from, from + 400)}` : s.slice(0, 400)
    return head.length < s.length ? `${head}…` : s
  }
  return `expected ${short(m) || "(nothing more)"} but found ${short(x) || "(nothing)"}`
}
