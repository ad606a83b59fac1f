/**
 * The soak's objects and their churn: which Cluster API Clusters, openmcp Clusters and propagated
 * ConfigMaps exist now and which were deleted (the ledger the settled check reads), and one
 * cycle's turnover of each.
 *
 * @module
 */

import { MERGE_PATCH, steady, steadyCluster } from "../chaos/support.ts"
import { endpointOf, paths } from "../fixtures/index.ts"
import { CLUSTERS, createCluster, clusterObject as openmcpCluster } from "../ipam/support.ts"
import { type Fleet, IPAM_LABEL, NS, PROPAGATE_LABEL } from "./fleet.ts"
import type { SoakSettings } from "./settings.ts"

/** Names that exist and names that were deleted, with a counter for new names. */
export interface Kept {
  readonly live: Array<string>
  readonly gone: Array<string>
  next: number
}

export interface Ledger {
  /** Cluster API Clusters, named `c<n>-w<k>` for the workload cluster `k` they point at. */
  readonly capi: Kept
  /** openmcp Clusters for the IPAM controller. */
  readonly ipam: Kept
  /** Propagated ConfigMaps; `generation` is the value of their `data.generation` now. */
  readonly sources: Kept & { readonly generation: Map<string, number> }
  /** Objects created and deleted so far, for the figures. */
  created: number
  deleted: number
}

export const emptyLedger = (): Ledger => ({
  capi: { live: [], gone: [], next: 0 },
  ipam: { live: [], gone: [], next: 0 },
  sources: { live: [], gone: [], next: 0, generation: new Map() },
  created: 0,
  deleted: 0,
})

/** The workload cluster a Cluster API Cluster of the ledger points at. */
export const workloadOf = (name: string): number => Number(name.split("-w")[1])

const addCapi = async (fleet: Fleet, ledger: Ledger): Promise<void> => {
  const n = ledger.capi.next++
  const k = n % fleet.workloads.length
  const workload = fleet.workloads[k] as (typeof fleet.workloads)[number]
  const name = `c${n}-w${k}`
  const identity = fleet.operatorIdentity[k]
  if (identity === undefined) throw new Error(`no operator identity for workload ${k}`)
  await steadyCluster(fleet.mgmt, NS.capi, name, identity.kubeconfig, endpointOf(workload.server))
  ledger.capi.live.push(name)
  ledger.created++
}

const addIpam = async (fleet: Fleet, ledger: Ledger): Promise<void> => {
  const name = `i${ledger.ipam.next++}`
  await createCluster(fleet.mgmt, openmcpCluster(NS.ipam, name, { labels: { [IPAM_LABEL]: "true" } }))
  ledger.ipam.live.push(name)
  ledger.created++
}

const addSource = async (fleet: Fleet, ledger: Ledger): Promise<void> => {
  const name = `s${ledger.sources.next++}`
  await steady(fleet.mgmt, "POST", `/api/v1/namespaces/${NS.team}/configmaps`, {
    body: { metadata: { name, labels: { [PROPAGATE_LABEL]: "true" } }, data: { generation: "0" } },
    ok: [201],
  })
  ledger.sources.live.push(name)
  ledger.sources.generation.set(name, 0)
  ledger.created++
}

/** A new `data.generation` for the oldest live source: every copy must follow it. */
export const changeSource = async (fleet: Fleet, ledger: Ledger): Promise<void> => {
  const name = ledger.sources.live[0]
  if (name === undefined) return
  const generation = (ledger.sources.generation.get(name) ?? 0) + 1
  await steady(fleet.mgmt, "PATCH", `/api/v1/namespaces/${NS.team}/configmaps/${name}`, {
    body: { data: { generation: String(generation) } },
    contentType: MERGE_PATCH,
    ok: [200],
  })
  ledger.sources.generation.set(name, generation)
}

/** Deletes the oldest live name of `kept` at `path(name)`, and books it as gone. */
const dropOldest = async (fleet: Fleet, ledger: Ledger, kept: Kept, path: (name: string) => string) => {
  const name = kept.live.shift()
  if (name === undefined) return
  await steady(fleet.mgmt, "DELETE", path(name), { ok: [200, 202, 404] })
  kept.gone.push(name)
  ledger.deleted++
}

/** The steady population: `capiClusters`, `ipamClusters` and `sources` created. */
export const populate = async (fleet: Fleet, ledger: Ledger, settings: SoakSettings): Promise<void> => {
  for (let i = 0; i < settings.capiClusters; i++) await addCapi(fleet, ledger)
  for (let i = 0; i < settings.ipamClusters; i++) await addIpam(fleet, ledger)
  for (let i = 0; i < settings.sources; i++) await addSource(fleet, ledger)
}

/**
 * One cycle's turnover: two Cluster API Clusters and two openmcp Clusters replaced (the oldest
 * deleted, new ones created), one source changed, one deleted and one created.
 */
export const churn = async (fleet: Fleet, ledger: Ledger): Promise<void> => {
  for (let i = 0; i < 2; i++) {
    await dropOldest(fleet, ledger, ledger.capi, (name) => paths.cluster(NS.capi, name))
    await addCapi(fleet, ledger)
    await dropOldest(
      fleet,
      ledger,
      ledger.ipam,
      (name) => `${CLUSTERS}/namespaces/${NS.ipam}/clusters/${name}`,
    )
    await addIpam(fleet, ledger)
  }
  await changeSource(fleet, ledger)
  await dropOldest(
    fleet,
    ledger,
    ledger.sources,
    (name) => `/api/v1/namespaces/${NS.team}/configmaps/${name}`,
  )
  await addSource(fleet, ledger)
}
