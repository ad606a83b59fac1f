/**
 * What the differential suite reads of a scenario once its Cluster has settled: the Cluster,
 * each provider object named like it (of either contract), its kubeconfig Secret, the events
 * about the Cluster, and which descendants are there and being deleted.
 *
 * @module
 */
import type { Cluster } from "../../testenv/index.ts"
import { getObject, type KubeObject, paths } from "../fixtures/index.ts"
import { NAME } from "./objects.ts"
import { PROVIDERS, providerPath } from "./providers.ts"

export interface EventSeen {
  readonly type: string
  readonly reason: string
  readonly message: string
}

export interface Snapshot {
  /** Whether the Cluster reached the scenario's states and held still. */
  readonly settled: boolean
  readonly cluster: KubeObject | undefined
  /** The provider objects by kind, and the kubeconfig Secret as `Secret` (undefined: not there). */
  readonly providers: Readonly<Record<string, KubeObject | undefined>>
  readonly events: ReadonlyArray<EventSeen>
  /** Each descendant as `Kind/name`, with ` (deleting)` once its deletion has begun. */
  readonly descendants: ReadonlyArray<string>
}

const DESCENDANTS = ["machinedeployments", "machinesets", "machinepools", "machines"] as const

const descendantsOf = async (mgmt: Cluster, ns: string): Promise<ReadonlyArray<string>> => {
  const out: Array<string> = []
  for (const plural of DESCENDANTS) {
    const r = await mgmt.request("GET", `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/${plural}`)
    if (r.status !== 200) throw new Error(`GET ${plural} of ${ns}: HTTP ${r.status}`)
    for (const o of (r.body as { items: ReadonlyArray<KubeObject> }).items)
      out.push(
        `${o.kind}/${o.metadata.name}${o.metadata.deletionTimestamp === undefined ? "" : " (deleting)"}`,
      )
  }
  return out.sort()
}

interface CoreEvent {
  readonly involvedObject?: { readonly kind?: string; readonly name?: string }
  readonly type?: string
  readonly reason?: string
  readonly message?: string
}

const clusterEvents = async (mgmt: Cluster, ns: string): Promise<ReadonlyArray<EventSeen>> => {
  const r = await mgmt.request("GET", `/api/v1/namespaces/${ns}/events`)
  if (r.status !== 200) throw new Error(`GET events of ${ns}: HTTP ${r.status}`)
  return ((r.body as { items: ReadonlyArray<CoreEvent> }).items ?? [])
    .filter((e) => e.involvedObject?.kind === "Cluster" && e.involvedObject.name === NAME)
    .map((e) => ({ type: e.type ?? "", reason: e.reason ?? "", message: e.message ?? "" }))
}

/** Reads a scenario's objects and events. */
export const snapshot = async (mgmt: Cluster, ns: string, settled: boolean): Promise<Snapshot> => {
  const providers: Record<string, KubeObject | undefined> = {}
  for (const p of Object.values(PROVIDERS))
    providers[p.kind] = await getObject(mgmt, providerPath(p, ns, NAME))
  providers.Secret = await getObject(mgmt, paths.secret(ns, `${NAME}-kubeconfig`))
  return {
    settled,
    cluster: await getObject(mgmt, paths.cluster(ns, NAME)),
    providers,
    events: await clusterEvents(mgmt, ns),
    descendants: await descendantsOf(mgmt, ns),
  }
}
