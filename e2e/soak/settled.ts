/**
 * Whether the fleet has settled on what the ledger says, and what is not settled yet: every
 * Cluster API Cluster Provisioned and connected (and every deleted one gone with its provider
 * objects), every openmcp Cluster holding one CIDR of its own (no two alike, none kept for a
 * Cluster that is gone), every source's copy on every workload cluster at the source's
 * generation (and a deleted source's copies gone).
 *
 * @module
 */
import { conditionOf, steadyGet, steadyList } from "../chaos/support.ts"
import { type KubeObject, paths } from "../fixtures/index.ts"
import { appliedRules, CLUSTERS, cidrsOf, GARDENER, overlapping, rangeOf } from "../ipam/support.ts"
import type { Ledger } from "./churn.ts"
import { type Fleet, IPAM_CONFIG, IPAM_PARENT, NS } from "./fleet.ts"

const capiUnsettled = async (fleet: Fleet, ledger: Ledger): Promise<ReadonlyArray<string>> => {
  const out: Array<string> = []
  for (const name of ledger.capi.live) {
    const c = await steadyGet(fleet.mgmt, paths.cluster(NS.capi, name))
    const probe = conditionOf(c, "RemoteConnectionProbe")?.status
    if (c?.status?.phase !== "Provisioned" || probe !== "True")
      out.push(`Cluster ${name}: phase ${String(c?.status?.phase)}, RemoteConnectionProbe ${String(probe)}`)
  }
  const left = new Set<string>()
  for (const list of [paths.cluster(NS.capi), paths.infra(NS.capi), paths.controlPlane(NS.capi)])
    for (const o of await steadyList(fleet.mgmt, list)) left.add(`${o.kind}/${o.metadata.name}`)
  for (const name of ledger.capi.gone)
    for (const kind of ["Cluster", "E2EInfraCluster", "E2EControlPlane"])
      if (left.has(`${kind}/${name}`)) out.push(`${kind} ${name} still there after its Cluster was deleted`)
  return out
}

const ipamUnsettled = async (fleet: Fleet, ledger: Ledger): Promise<ReadonlyArray<string>> => {
  const out: Array<string> = []
  const clusters = new Map(
    (await steadyList(fleet.mgmt, `${CLUSTERS}/namespaces/${NS.ipam}/clusters`)).map((c) => [
      c.metadata.name,
      c,
    ]),
  )
  const configs = (await steadyList(fleet.mgmt, `${GARDENER}/namespaces/${NS.ipam}/clusterconfigs`)).filter(
    (cc) => cc.metadata.deletionTimestamp === undefined,
  )
  const ownerOf = (cc: KubeObject) => cc.metadata.name?.split("--ipam--")[0] ?? ""
  for (const name of ledger.ipam.live) {
    const c = clusters.get(name)
    const held = configs.filter((cc) => ownerOf(cc) === name).flatMap(cidrsOf)
    if (c === undefined) out.push(`openmcp Cluster ${name} missing`)
    else if (held.length !== 1 || appliedRules(c).nodes === undefined)
      out.push(
        `openmcp Cluster ${name}: CIDRs ${JSON.stringify(held)}, applied rules ${JSON.stringify(appliedRules(c))}`,
      )
  }
  for (const name of ledger.ipam.gone) if (clusters.has(name)) out.push(`openmcp Cluster ${name} still there`)
  const live = new Set(ledger.ipam.live)
  for (const cc of configs)
    if (!live.has(ownerOf(cc)))
      out.push(
        `ClusterConfig ${cc.metadata.name} holds ${JSON.stringify(cidrsOf(cc))} for a Cluster that is gone`,
      )
  const held = configs.flatMap((cc) => cidrsOf(cc).map((cidr) => ({ owner: ownerOf(cc), cidr })))
  out.push(...overlapping(held).map((o) => `CIDRs overlap: ${o}`))
  const [p0, p1] = rangeOf(IPAM_PARENT)
  for (const h of held) {
    const [lo, hi] = rangeOf(h.cidr)
    if (lo < p0 || hi > p1)
      out.push(`${h.owner}'s ${h.cidr} is outside ${IPAM_PARENT} (config ${IPAM_CONFIG})`)
  }
  return out
}

const sourcesUnsettled = async (fleet: Fleet, ledger: Ledger): Promise<ReadonlyArray<string>> => {
  const out: Array<string> = []
  const path = `/api/v1/namespaces/${NS.team}/configmaps`
  for (const w of fleet.workloads) {
    const copies = new Map((await steadyList(w, path)).map((o) => [o.metadata.name, o]))
    for (const name of ledger.sources.live) {
      const want = String(ledger.sources.generation.get(name) ?? 0)
      const have = (copies.get(name)?.data as Record<string, string> | undefined)?.generation
      if (have !== want)
        out.push(`${w.name}: copy of ${name} at generation ${String(have)}, source at ${want}`)
    }
    for (const name of ledger.sources.gone)
      if (copies.has(name)) out.push(`${w.name}: copy of ${name} left after the source was deleted`)
  }
  const sources = new Map((await steadyList(fleet.mgmt, path)).map((o) => [o.metadata.name, o]))
  for (const name of ledger.sources.gone) if (sources.has(name)) out.push(`source ${name} not gone`)
  return out
}

/** Everything not settled yet (empty once settled). */
export const unsettled = async (fleet: Fleet, ledger: Ledger): Promise<ReadonlyArray<string>> => [
  ...(await capiUnsettled(fleet, ledger)),
  ...(await ipamUnsettled(fleet, ledger)),
  ...(await sourcesUnsettled(fleet, ledger)),
]
