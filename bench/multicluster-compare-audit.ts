/**
 * Counting the requests of the controller under test from the API servers' own audit logs, so
 * that both runtimes are counted the same way, outside their processes: every kube-apiserver of
 * the bench's control plane writes audit events (level Metadata, one line of JSON each) to its
 * standard output, which testenv keeps in the cluster's `kube-apiserver.log`. Each cluster of the
 * bench has a user of its own on its workload API server, and the controller has one on the hub,
 * so the user of an event says whose request it was.
 *
 * # Expected flow
 * `writeAuditPolicy` before the control plane starts (its flags from `auditFlags`), `logOffset`
 * of each API server when a run starts, `readEvents` from that offset once it ended, then
 * `countIn` per time window (a request counts once, when the API server received it; a watch
 * counts when opened).
 *
 * @module
 */
import { closeSync, openSync, readSync, statSync } from "node:fs"
import { writeFile } from "node:fs/promises"
import { join } from "node:path"

/** The audit policy: nothing from the API server's own loopback client, Metadata for the rest. */
const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  users: ["system:apiserver", "admin"]
- level: Metadata
`

/** Writes the policy into `dir`; returns its path. */
export const writeAuditPolicy = async (dir: string): Promise<string> => {
  const path = join(dir, "audit-policy.yaml")
  await writeFile(path, POLICY)
  return path
}

/** The kube-apiserver flags that write the audit events to its log. */
export const auditFlags = (policyPath: string): ReadonlyArray<string> => [
  `--audit-policy-file=${policyPath}`,
  "--audit-log-path=-",
  "--audit-log-format=json",
]

/** One request as the audit log tells it. */
export interface AuditRequest {
  readonly user: string
  /** When the API server received it, ms since the epoch. */
  readonly at: number
  /** `verb resource` (`get /api` for a path outside the API groups' resources). */
  readonly key: string
}

/** The size of a log now: where a run's events start. */
export const logOffset = (path: string): number => statSync(path).size

/** The requests in `path` from byte `from` on (each once, though its events are several). */
export const readEvents = (path: string, from: number): ReadonlyArray<AuditRequest> => {
  const size = statSync(path).size
  const buffer = Buffer.alloc(Math.max(0, size - from))
  const fd = openSync(path, "r")
  try {
    readSync(fd, buffer, 0, buffer.length, from)
  } finally {
    closeSync(fd)
  }
  const seen = new Set<string>()
  const out: Array<AuditRequest> = []
  for (const line of buffer.toString("utf8").split("\n")) {
    if (!line.startsWith('{"kind":"Event"')) continue
    let event: {
      auditID: string
      verb: string
      requestURI: string
      requestReceivedTimestamp: string
      user?: { username?: string }
      objectRef?: { resource?: string; subresource?: string }
    }
    try {
      event = JSON.parse(line)
    } catch {
      continue // a line cut by the read's end
    }
    if (seen.has(event.auditID)) continue
    seen.add(event.auditID)
    const resource =
      event.objectRef?.resource === undefined
        ? (event.requestURI.split("?")[0] ?? "")
        : `${event.objectRef.resource}${event.objectRef.subresource === undefined ? "" : `/${event.objectRef.subresource}`}`
    out.push({
      user: event.user?.username ?? "",
      at: Date.parse(event.requestReceivedTimestamp),
      key: `${event.verb} ${resource}`,
    })
  }
  return out
}

/** Requests by key, of the users `users` accepts, received in `[from, to)`. */
export const countIn = (
  requests: ReadonlyArray<AuditRequest>,
  users: (user: string) => boolean,
  from: number,
  to: number,
): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const r of requests)
    if (r.at >= from && r.at < to && users(r.user)) counts.set(r.key, (counts.get(r.key) ?? 0) + 1)
  return counts
}

/** Distinct users `users` accepts seen in `[from, to)`. */
export const usersIn = (
  requests: ReadonlyArray<AuditRequest>,
  users: (user: string) => boolean,
  from: number,
  to: number,
): Set<string> =>
  new Set(requests.filter((r) => r.at >= from && r.at < to && users(r.user)).map((r) => r.user))

/** The sum of a count map. */
export const total = (m: ReadonlyMap<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0)
