/**
 * What `status.controlPlane.versions` and `status.workers.versions` must hold after a reconcile
 * that writes the status (seed 001, Status Fields; Cluster API v1.14.2's
 * `core/reconcilers/cluster/cluster_controller_status.go` and `internal/util/version/version.go`,
 * which the seed predates). Written from upstream's behaviour, not from `core/`: the totals per
 * version string are checked exactly, the order where it is plain to tell (`X.Y.Z` versions
 * ascending, versions that do not start like one last), and a control-plane object's list as
 * copied when it is plainly valid, the previous list kept when it is not a list at all.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util"
import type { ClusterStatus, Machine, StatusVersion } from "../../core/cluster/index.ts"
import { clusterOf, cpFound, type I, phasesRead } from "./reading.ts"

const CP_LABEL = "cluster.x-k8s.io/control-plane"
const POOL_LABEL = "cluster.x-k8s.io/pool-name"
const PLAIN = /^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/
/** Clearly not a version: does not start with a digit, after an optional `v` and white space. */
const clearlyNot = (v: string) => !/^\s*v?[0-9]/.test(v)

/** A Machine's version: the kubelet's when reported, else `spec.version`. */
const versionOf = (m: Machine) => {
  const k = m.status?.nodeInfo?.kubeletVersion
  return k !== undefined && k !== "" ? k : (m.spec?.version ?? "")
}

const ownedByCluster = (i: I, m: { readonly metadata: Machine["metadata"] }) => {
  const c = clusterOf(i)
  return (m.metadata.ownerReferences ?? []).some(
    (o) =>
      o.kind === "Cluster" &&
      o.name === c?.metadata.name &&
      (c.metadata.uid === undefined || o.uid === undefined || o.uid === c.metadata.uid),
  )
}

type Totals = Map<string, number>

const add = (t: Totals, version: string, n: number) => {
  if (version !== "") t.set(version, (t.get(version) ?? 0) + n)
}

const plainKey = (v: string): ReadonlyArray<number> | undefined => {
  const m = PLAIN.exec(v)
  return m === null ? undefined : [Number(m[1]), Number(m[2]), Number(m[3])]
}

const plainLess = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => {
  for (let k = 0; k < 3; k++) if (a[k] !== b[k]) return (a[k] as number) < (b[k] as number)
  return false
}

/** Why `got` is not the aggregation of `totals`; `undefined` when it is. */
const checkAggregated = (
  got: ReadonlyArray<StatusVersion> | undefined,
  totals: Totals,
): string | undefined => {
  if (totals.size === 0) return got === undefined ? undefined : "versions where there are none"
  if (got === undefined) return "no versions"
  if (new Set(got.map((v) => v.version)).size !== got.length) return "a version listed twice"
  if (got.length !== totals.size) return "versions missing or extra"
  for (const v of got)
    if ((v.replicas ?? 0) !== totals.get(v.version) || v.replicas === 0) return `replicas of ${v.version}`
  let lastPlain: ReadonlyArray<number> | undefined
  let sawNonVersion = false
  for (const v of got) {
    const k = plainKey(v.version)
    if (k !== undefined) {
      if (sawNonVersion) return `${v.version} after a non-version`
      if (lastPlain !== undefined && plainLess(k, lastPlain)) return `${v.version} out of order`
      lastPlain = k
    }
    if (clearlyNot(v.version)) sawNonVersion = true
    else if (sawNonVersion) return `${v.version} after a non-version`
  }
  return undefined
}

const machineTotals = (ms: ReadonlyArray<Machine>): Totals => {
  const t: Totals = new Map()
  for (const m of ms) add(t, versionOf(m), 1)
  return t
}

/** `status.workers.versions`: why it is wrong, or `undefined`. */
export const checkWorkerVersions = (i: I, st: ClusterStatus): string | undefined => {
  const d = i.observed.descendants
  const before = clusterOf(i)?.status?.workers?.versions
  // Nothing is listed while waiting for the topology controller.
  if (d._tag === "ListFailed" || !phasesRead(i))
    return isDeepStrictEqual(st.workers?.versions, before)
      ? undefined
      : "workers.versions changed though listing failed"
  const t: Totals = new Map()
  const pools = i.observed.featureGates.machinePool ? d.machinePools : []
  const sets = d.machineSets.filter((g) => ownedByCluster(i, g))
  for (const g of [...pools, ...d.machineDeployments, ...sets])
    for (const v of g.status?.versions ?? []) add(t, v.version, v.replicas ?? 0)
  for (const m of d.machines)
    if (
      m.metadata.labels?.[CP_LABEL] === undefined &&
      m.metadata.labels?.[POOL_LABEL] === undefined &&
      ownedByCluster(i, m)
    )
      add(t, versionOf(m), 1)
  const why = checkAggregated(st.workers?.versions, t)
  return why === undefined ? undefined : `workers.versions: ${why}`
}

/** A control-plane object's `status.versions` that is plainly valid, as upstream copies it. */
const plainlyValid = (raw: unknown): ReadonlyArray<StatusVersion> | undefined => {
  if (!Array.isArray(raw)) return undefined
  const out: Array<StatusVersion> = []
  let last: ReadonlyArray<number> | undefined
  for (const item of raw as ReadonlyArray<unknown>) {
    if (typeof item !== "object" || item === null) return undefined
    const { version, replicas, ...rest } = item as { version?: unknown; replicas?: unknown }
    if (Object.keys(rest).length > 0 || typeof version !== "string") return undefined
    const k = plainKey(version)
    if (k === undefined || (last !== undefined && plainLess(k, last))) return undefined
    if (
      replicas !== undefined &&
      (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0 || replicas > 2 ** 31 - 1)
    )
      return undefined
    last = k
    out.push(replicas === undefined || replicas === 0 ? { version } : { version, replicas })
  }
  return out
}

/** `status.controlPlane.versions`: why it is wrong, or `undefined`. */
export const checkControlPlaneVersions = (i: I, st: ClusterStatus): string | undefined => {
  const got = st.controlPlane?.versions
  const before = clusterOf(i)?.status?.controlPlane?.versions
  if (i.desired.controlPlaneRef !== undefined || i.desired.topology !== undefined) {
    const cp = i.desired.controlPlaneRef === undefined || !phasesRead(i) ? undefined : cpFound(i)
    if (cp === undefined)
      return got === undefined ? undefined : "controlPlane.versions without a control-plane object"
    const status = (cp as { status?: Record<string, unknown> }).status
    if (status === undefined || !("versions" in status) || status.versions === undefined)
      return got === undefined ? undefined : "controlPlane.versions though the object has none"
    const raw = status.versions
    const valid = plainlyValid(raw)
    if (valid !== undefined)
      return isDeepStrictEqual(got, valid.length === 0 ? undefined : valid)
        ? undefined
        : "controlPlane.versions not copied"
    if (!Array.isArray(raw))
      return isDeepStrictEqual(got, before) ? undefined : "controlPlane.versions not kept on a read error"
    return undefined
  }
  const d = i.observed.descendants
  if (d._tag === "ListFailed" || !phasesRead(i))
    return isDeepStrictEqual(got, before) ? undefined : "controlPlane.versions changed though listing failed"
  const why = checkAggregated(
    got,
    machineTotals(d.machines.filter((m) => m.metadata.labels?.[CP_LABEL] !== undefined)),
  )
  return why === undefined ? undefined : `controlPlane.versions: ${why}`
}
