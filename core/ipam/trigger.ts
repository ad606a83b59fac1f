/**
 * IPAM Cluster controller, "Reconciliation Trigger Specifics" (seed 004) as a pure decision:
 * for one watch event (or a config change, a start, a state refresh), which Clusters to
 * enqueue. Rows are `ipam.trigger#n`; spec/ipam/trigger.ts transcribes the seed's bullets.
 *
 * Expected flow: Cluster create and delete events enqueue the Cluster; updates do not, except
 * when the reconcile annotation appears (or, as upstream, the ignore annotation goes); a
 * managed ClusterConfig enqueues its owning Cluster when it is deleted or updated (its deletion
 * timestamp, which is how a Cluster's full deletion is noticed, the reconcile annotation, any
 * other change, as upstream); injection rule changes, the start and every state refresh enqueue
 * every matching Cluster; released CIDRs enqueue the Clusters waiting for CIDRs.
 *
 * Guarantees: nothing is enqueued without an IPAMConfig; a Cluster that matches no rule or
 * carries the ignore annotation is never enqueued by its own events; a ClusterConfig with the
 * ignore annotation, or not labelled as this controller's, never enqueues anything.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util"
import { type RowId, rowId, type TransitionInput, type TransitionResult } from "../krtt/index.ts"
import type { IpamConfigSpec } from "./config.ts"
import { matchesAnyRule } from "./match.ts"
import {
  type ClusterConfigView,
  type ClusterView,
  type ControllerIdentity,
  isIgnored,
  isManaged,
  owningCluster,
  wantsReconcile,
} from "./objects.ts"

export const TRIGGER = "ipam.trigger"

/** A watch event or a controller-level occasion. */
export type IpamEvent =
  | { readonly _tag: "ClusterCreated"; readonly cluster: ClusterView }
  | { readonly _tag: "ClusterUpdated"; readonly old: ClusterView; readonly cluster: ClusterView }
  | { readonly _tag: "ClusterDeleted"; readonly cluster: ClusterView }
  | { readonly _tag: "ClusterConfigCreated"; readonly clusterConfig: ClusterConfigView }
  | {
      readonly _tag: "ClusterConfigUpdated"
      readonly old: ClusterConfigView
      readonly clusterConfig: ClusterConfigView
    }
  | { readonly _tag: "ClusterConfigDeleted"; readonly clusterConfig: ClusterConfigView }
  /** The IPAMConfig changed; `old` is the last valid config before (undefined when there was none). */
  | { readonly _tag: "ConfigChanged"; readonly old: IpamConfigSpec | undefined }
  | { readonly _tag: "Started" }
  | { readonly _tag: "StateRefreshed" }
  /** A reconcile released CIDRs (the ClusterConfigs of a gone Cluster). */
  | { readonly _tag: "CidrsReleased" }

export interface TriggerObserved {
  /** The last valid IPAMConfig (after a change: the new one); undefined before one is known. */
  readonly config: IpamConfigSpec | undefined
  /** Every Cluster, for config changes, starts and refreshes (other events do not read it). */
  readonly clusters: ReadonlyArray<ClusterView>
  /**
   * The Clusters waiting for CIDRs (their last reconcile found a parent exhausted), read for
   * `CidrsReleased`; none when absent.
   */
  readonly waiting?: ReadonlyArray<{ readonly namespace: string; readonly name: string }> | undefined
}

export type TriggerInput = TransitionInput<TriggerObserved, ControllerIdentity, IpamEvent>

/** Enqueue a reconcile of a Cluster. */
export interface Enqueue {
  readonly _tag: "Enqueue"
  readonly namespace: string
  readonly name: string
}

export interface TriggerStatus {
  readonly triggered: boolean
}

export type TriggerResult = TransitionResult<Enqueue, TriggerStatus>

const r = (n: number): RowId => rowId(TRIGGER, n)
export const TriggerRow = {
  clusterCreated: r(1),
  clusterDeleted: r(2),
  clusterReconcileAnnotation: r(3),
  clusterConfigDeleted: r(4),
  clusterConfigDeleting: r(5),
  rulesChanged: r(6),
  startedOrRefreshed: r(7),
  clusterUpdated: r(8),
  clusterDeletionTimestamp: r(9),
  clusterConfigUpdated: r(10),
  clusterConfigReconcileAnnotation: r(11),
  clusterNoMatch: r(12),
  clusterIgnored: r(13),
  clusterConfigIgnored: r(14),
  clusterConfigForeign: r(15),
  noConfig: r(16),
  ignoreRemoved: r(17),
  configOtherChange: r(18),
  clusterConfigCreated: r(19),
  cidrsReleased: r(20),
} as const

const none = (row: RowId): TriggerResult => ({ actions: [], status: { triggered: false }, row })
const one = (row: RowId, c: { readonly namespace: string; readonly name: string }): TriggerResult => ({
  actions: [{ _tag: "Enqueue", namespace: c.namespace, name: c.name }],
  status: { triggered: true },
  row,
})

/** Every Cluster that matches a rule and is not ignored, sorted by namespace and name. */
export const matchingClusters = (
  config: IpamConfigSpec,
  clusters: ReadonlyArray<ClusterView>,
): ReadonlyArray<Enqueue> =>
  clusters
    .filter((c) => !isIgnored(c) && matchesAnyRule(config, c))
    .map((c): Enqueue => ({ _tag: "Enqueue", namespace: c.namespace, name: c.name }))
    .sort((a, b) => (`${a.namespace}/${a.name}` < `${b.namespace}/${b.name}` ? -1 : 1))

/** The seed's trigger rules as a transition. */
export const triggerTransition = (input: TriggerInput): TriggerResult => {
  const { observed, desired: who, trigger: e } = input
  const config = observed.config
  if (config === undefined) return none(TriggerRow.noConfig)
  switch (e._tag) {
    case "Started":
    case "StateRefreshed": {
      const actions = matchingClusters(config, observed.clusters)
      return { actions, status: { triggered: actions.length > 0 }, row: TriggerRow.startedOrRefreshed }
    }
    case "CidrsReleased": {
      const byKey = new Map((observed.waiting ?? []).map((c) => [`${c.namespace}/${c.name}`, c]))
      const actions = [...byKey.keys()]
        .sort()
        .map((k) => byKey.get(k) as { readonly namespace: string; readonly name: string })
        .map((c): Enqueue => ({ _tag: "Enqueue", namespace: c.namespace, name: c.name }))
      return { actions, status: { triggered: actions.length > 0 }, row: TriggerRow.cidrsReleased }
    }
    case "ConfigChanged": {
      if (e.old !== undefined && isDeepStrictEqual(e.old.injectionRules, config.injectionRules)) {
        return none(TriggerRow.configOtherChange)
      }
      const actions = matchingClusters(config, observed.clusters)
      return { actions, status: { triggered: actions.length > 0 }, row: TriggerRow.rulesChanged }
    }
    case "ClusterCreated":
    case "ClusterDeleted":
    case "ClusterUpdated": {
      const c = e.cluster
      if (isIgnored(c)) return none(TriggerRow.clusterIgnored)
      if (!matchesAnyRule(config, c)) return none(TriggerRow.clusterNoMatch)
      if (e._tag === "ClusterCreated") return one(TriggerRow.clusterCreated, c)
      if (e._tag === "ClusterDeleted") return one(TriggerRow.clusterDeleted, c)
      if (wantsReconcile(c) && !wantsReconcile(e.old)) return one(TriggerRow.clusterReconcileAnnotation, c)
      if (isIgnored(e.old)) return one(TriggerRow.ignoreRemoved, c)
      if (c.deletionTimestamp !== undefined && e.old.deletionTimestamp === undefined) {
        return none(TriggerRow.clusterDeletionTimestamp)
      }
      return none(TriggerRow.clusterUpdated)
    }
    case "ClusterConfigCreated":
    case "ClusterConfigDeleted":
    case "ClusterConfigUpdated": {
      const cc = e.clusterConfig
      const owner = owningCluster(cc)
      if (!isManaged(cc, who) || owner === undefined) return none(TriggerRow.clusterConfigForeign)
      if (isIgnored(cc)) return none(TriggerRow.clusterConfigIgnored)
      if (e._tag === "ClusterConfigCreated") return none(TriggerRow.clusterConfigCreated)
      if (e._tag === "ClusterConfigDeleted") return one(TriggerRow.clusterConfigDeleted, owner)
      if (cc.deletionTimestamp !== undefined && e.old.deletionTimestamp === undefined) {
        return one(TriggerRow.clusterConfigDeleting, owner)
      }
      if (wantsReconcile(cc) && !wantsReconcile(e.old))
        return one(TriggerRow.clusterConfigReconcileAnnotation, owner)
      if (isIgnored(e.old)) return one(TriggerRow.ignoreRemoved, owner)
      return one(TriggerRow.clusterConfigUpdated, owner)
    }
    // Stryker disable next-line ConditionalExpression,BlockStatement
    default: {
      const never: never = e
      return never
    }
  }
}
