/**
 * Seed 004, "Reconciliation Trigger Specifics", transcribed bullet by bullet: every bullet is a
 * row, those that trigger and those that must not. Rows 15-19 are derived from upstream's
 * controllers (platform-service-gardener-ipam internal/controllers/cluster and config), where
 * the seed is silent; row 20 makes a Cluster waiting for CIDRs (ipam.reconcile#7) get them as
 * soon as a release frees some.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util"
import type { ClusterConfigView, TriggerInput, TriggerResult } from "../../core/ipam/index.ts"
import type { TableSpec } from "../../core/krtt/index.ts"
import { rowsFor } from "../builder.ts"
import { anyRuleSelects, ENV, ignored, MANAGED_BY, PURPOSE, reconcileAnnotation } from "./model.ts"

export const TRIGGER_COLUMNS = ["Event", "Condition", "Decision", "Seed"] as const
const { doc, derived } = rowsFor<TriggerInput, TriggerResult, unknown>(TRIGGER_COLUMNS)

type E = TriggerInput["trigger"]
const tag = (i: TriggerInput) => i.trigger._tag
const hasConfig = (i: TriggerInput) => i.observed.config !== undefined
const clusterEvent = (i: TriggerInput) =>
  ["ClusterCreated", "ClusterUpdated", "ClusterDeleted"].includes(tag(i))
const ccEvent = (i: TriggerInput) =>
  ["ClusterConfigCreated", "ClusterConfigUpdated", "ClusterConfigDeleted"].includes(tag(i))
const theCluster = (i: TriggerInput) => (i.trigger as Extract<E, { cluster: unknown }>).cluster
const theCc = (i: TriggerInput) => (i.trigger as Extract<E, { clusterConfig: unknown }>).clusterConfig
const oldOf = (i: TriggerInput) =>
  (i.trigger as Extract<E, { old: unknown }>).old as
    | { annotations: Record<string, string>; deletionTimestamp?: string | undefined }
    | undefined

/** A Cluster event this controller looks at: config known, not ignored, a rule selects it. */
const liveCluster = (i: TriggerInput) =>
  hasConfig(i) &&
  clusterEvent(i) &&
  !ignored(theCluster(i)) &&
  anyRuleSelects(i.observed.config as NonNullable<TriggerInput["observed"]["config"]>, theCluster(i))

/** The Cluster controlling a ClusterConfig, by its controller owner reference. */
const ownerOf = (cc: ClusterConfigView) =>
  cc.ownerReferences.find(
    (o) =>
      o.controller === true && o.kind === "Cluster" && o.apiVersion.startsWith("clusters.openmcp.cloud/"),
  )

const ours = (i: TriggerInput) => {
  const cc = theCc(i)
  return (
    cc.labels[MANAGED_BY] === i.desired.managedBy &&
    cc.labels[PURPOSE] === "gardener-ipam" &&
    cc.labels[ENV] === i.desired.environment &&
    ownerOf(cc) !== undefined
  )
}
const liveCc = (i: TriggerInput) => hasConfig(i) && ccEvent(i) && ours(i) && !ignored(theCc(i))

const gotReconcile = (i: TriggerInput) => {
  const o = oldOf(i)
  const now = clusterEvent(i) ? theCluster(i) : theCc(i)
  return o !== undefined && reconcileAnnotation(now) && !reconcileAnnotation(o)
}
const lostIgnore = (i: TriggerInput) => {
  const o = oldOf(i)
  return o !== undefined && ignored(o)
}
const gotDeletion = (i: TriggerInput) => {
  const o = oldOf(i)
  const now = clusterEvent(i) ? theCluster(i) : theCc(i)
  return o !== undefined && now.deletionTimestamp !== undefined && o.deletionTimestamp === undefined
}

const nothing = (_: TriggerInput, r: TriggerResult) => r.actions.length === 0 && !r.status.triggered
const enqueues =
  (who: (i: TriggerInput) => { namespace: string; name: string }) => (i: TriggerInput, r: TriggerResult) => {
    const w = who(i)
    return (
      r.status.triggered &&
      r.actions.length === 1 &&
      r.actions[0]?._tag === "Enqueue" &&
      r.actions[0].namespace === w.namespace &&
      r.actions[0].name === w.name
    )
  }
const theClusterKey = (i: TriggerInput) => theCluster(i)
const theOwnerKey = (i: TriggerInput) => ({
  namespace: theCc(i).namespace,
  name: ownerOf(theCc(i))?.name ?? "",
})

/** Every Cluster a rule selects and that is not ignored, each once. */
const everyMatching = (i: TriggerInput, r: TriggerResult) => {
  const config = i.observed.config
  if (config === undefined) return false
  const want = i.observed.clusters
    .filter((c) => !ignored(c) && anyRuleSelects(config, c))
    .map((c) => `${c.namespace}/${c.name}`)
    .sort()
  const got = r.actions.map((a) => `${a.namespace}/${a.name}`).sort()
  return isDeepStrictEqual(want, got) && r.status.triggered === want.length > 0
}

export const triggerTable: TableSpec<TriggerInput, TriggerResult, unknown> = {
  id: "ipam.trigger",
  source: "004_7ee85527bb2e4056.txt",
  title: "Reconciliation Trigger Specifics",
  columns: TRIGGER_COLUMNS,
  rows: [
    doc(
      1,
      [
        "Cluster created",
        "a rule selects it, no ignore annotation",
        "reconcile the Cluster",
        "*Creation* of `Cluster` resources trigger a reconciliation",
      ],
      { applies: (i) => liveCluster(i) && tag(i) === "ClusterCreated", holds: enqueues(theClusterKey) },
    ),
    doc(
      2,
      [
        "Cluster deleted (gone)",
        "a rule selects its last state, no ignore annotation",
        "reconcile the Cluster (its CIDRs are released)",
        "..., as does their *deletion*",
      ],
      { applies: (i) => liveCluster(i) && tag(i) === "ClusterDeleted", holds: enqueues(theClusterKey) },
    ),
    doc(
      3,
      [
        "Cluster updated",
        "gains `openmcp.cloud/operation: reconcile`",
        "reconcile the Cluster; the reconcile removes the annotation",
        "Adding the *reconcile annotation* (`openmcp.cloud/operation: reconcile`) to a `Cluster` triggers its deletion.",
      ],
      {
        applies: (i) => liveCluster(i) && tag(i) === "ClusterUpdated" && gotReconcile(i),
        holds: enqueues(theClusterKey),
        reason:
          "Resolution: the seed says 'triggers its deletion'; upstream's code (GotAnnotationPredicate on the reconcile value, then EnsureAnnotation ... DELETE in the reconcile) triggers a reconciliation and removes the annotation after use. Nothing is deleted.",
      },
    ),
    doc(
      4,
      [
        "managed ClusterConfig deleted",
        "labels of this controller, a controller owner of kind Cluster, no ignore annotation",
        "reconcile the owning Cluster",
        "*Deletion* ... of a `ClusterConfig` resource managed by this controller (identified via labels) triggers a reconciliation of its owning `Cluster`.",
      ],
      { applies: (i) => liveCc(i) && tag(i) === "ClusterConfigDeleted", holds: enqueues(theOwnerKey) },
    ),
    doc(
      5,
      [
        "managed ClusterConfig updated",
        "gains a deletion timestamp",
        "reconcile the owning Cluster",
        "... or *update* of a `ClusterConfig` resource managed by this controller ... triggers a reconciliation of its owning `Cluster`.",
      ],
      {
        applies: (i) => liveCc(i) && tag(i) === "ClusterConfigUpdated" && gotDeletion(i),
        holds: enqueues(theOwnerKey),
        reason:
          "The update that matters most: the deletion timestamp the garbage collector sets through the owner reference once the Cluster is gone ('This is noticed via the corresponding ClusterConfig resources, which get a deletion timestamp'). Every other update triggers too (rows 10, 11, 17).",
      },
    ),
    doc(
      6,
      [
        "IPAMConfig changed",
        "its injection rules differ (or it is the first valid config)",
        "reconcile every Cluster a rule selects (after the update), ignored ones excepted",
        "Changes to the injection rules in the `IPAMConfig` trigger a deletion for all `Cluster` resources which match the selectors of at least one injection rule (after they have been updated).",
      ],
      {
        applies: (i) =>
          hasConfig(i) &&
          i.trigger._tag === "ConfigChanged" &&
          (i.trigger.old === undefined ||
            !isDeepStrictEqual(i.trigger.old.injectionRules, i.observed.config?.injectionRules)),
        holds: everyMatching,
        reason:
          "Resolution: 'trigger a deletion' reads as 'trigger a reconciliation' (upstream's config controller enqueues the matching Clusters). Ignored Clusters are not enqueued: they are never reconciled (row 13).",
      },
    ),
    doc(
      7,
      [
        "controller started, or state refreshed",
        "an IPAMConfig is known",
        "reconcile every Cluster a rule selects, ignored ones excepted",
        "This also happens whenever the controller is started or the state is refreshed.",
      ],
      {
        applies: (i) => hasConfig(i) && (tag(i) === "Started" || tag(i) === "StateRefreshed"),
        holds: everyMatching,
      },
    ),
    doc(
      8,
      [
        "Cluster updated",
        "no reconcile annotation gained, no ignore annotation lost, no deletion timestamp gained",
        "nothing",
        "*Update* of a `Cluster` [does not trigger]. ... CIDRs are not automatically applied to a `Cluster` which is modified to match an injection rule it did not match before.",
      ],
      {
        applies: (i) =>
          liveCluster(i) &&
          tag(i) === "ClusterUpdated" &&
          !gotReconcile(i) &&
          !lostIgnore(i) &&
          !gotDeletion(i),
        holds: nothing,
      },
    ),
    doc(
      9,
      [
        "Cluster updated",
        "gains a deletion timestamp",
        "nothing",
        "A `Cluster` getting a deletion timestamp does not trigger a reconciliation.",
      ],
      {
        applies: (i) =>
          liveCluster(i) &&
          tag(i) === "ClusterUpdated" &&
          gotDeletion(i) &&
          !gotReconcile(i) &&
          !lostIgnore(i),
        holds: nothing,
        reason:
          "A deletion timestamp that comes with a new reconcile annotation (row 3) or a removed ignore annotation (row 17) still triggers through those rows.",
      },
    ),
    doc(
      10,
      [
        "managed ClusterConfig updated",
        "any other change (no deletion timestamp, reconcile annotation or ignore removal)",
        "reconcile the owning Cluster",
        "*Deletion* or *update* of a `ClusterConfig` resource managed by this controller (identified via labels) triggers a reconciliation of its owning `Cluster`.",
      ],
      {
        applies: (i) =>
          liveCc(i) &&
          tag(i) === "ClusterConfigUpdated" &&
          !gotDeletion(i) &&
          !gotReconcile(i) &&
          !lostIgnore(i),
        holds: enqueues(theOwnerKey),
        reason:
          "Resolution: the seed names ClusterConfig updates both as a trigger (this bullet) and as a non-trigger ('*Updates* of a ClusterConfig resource do not trigger a reconciliation'). Upstream's code (Owns ClusterConfig with OnUpdatePredicate) triggers on every update, and IPAM is run as upstream runs it: a ClusterConfig changed by hand is put right by the next reconcile. The controller's own writes (finalizer, patches, the used-up annotation) cost one more reconcile, which writes nothing.",
      },
    ),
    doc(
      11,
      [
        "managed ClusterConfig updated",
        "gains `openmcp.cloud/operation: reconcile`",
        "reconcile the owning Cluster",
        "An exception is the *reconcile annotation* being added to an owned `ClusterConfig`.",
      ],
      {
        applies: (i) => liveCc(i) && tag(i) === "ClusterConfigUpdated" && !gotDeletion(i) && gotReconcile(i),
        holds: enqueues(theOwnerKey),
        reason:
          "The reconcile of the owning Cluster removes the annotation from the ClusterConfig (ipam.reconcile), as it does the Cluster's: each use triggers once.",
      },
    ),
    doc(
      12,
      [
        "Cluster created, updated or deleted",
        "no injection rule selects it",
        "nothing",
        "`Cluster` resources which don't match any injection rule ... are never reconciled by this controller.",
      ],
      {
        applies: (i) =>
          hasConfig(i) &&
          clusterEvent(i) &&
          !ignored(theCluster(i)) &&
          !anyRuleSelects(
            i.observed.config as NonNullable<TriggerInput["observed"]["config"]>,
            theCluster(i),
          ),
        holds: nothing,
        reason:
          "Selection is evaluated on the new object of an update and on the last state of a deleted Cluster.",
      },
    ),
    doc(
      13,
      [
        "Cluster created, updated or deleted",
        "`openmcp.cloud/operation: ignore`",
        "nothing",
        "`Cluster` resources which ... have the *ignore annotation* (`openmcp.cloud/operation: ignore`) are never reconciled by this controller.",
      ],
      { applies: (i) => hasConfig(i) && clusterEvent(i) && ignored(theCluster(i)), holds: nothing },
    ),
    doc(
      14,
      [
        "managed ClusterConfig created, updated or deleted",
        "`openmcp.cloud/operation: ignore`",
        "nothing",
        "Similarly, `ClusterConfig` resources with an *ignore annotation* are ignored for triggering reconciliations.",
      ],
      { applies: (i) => hasConfig(i) && ccEvent(i) && ours(i) && ignored(theCc(i)), holds: nothing },
    ),
    derived(
      15,
      [
        "ClusterConfig created, updated or deleted",
        "not labelled as this controller's (managed-by, managed-purpose gardener-ipam, environment) or no controller owner of kind Cluster",
        "nothing",
        "(derived)",
      ],
      {
        applies: (i) => hasConfig(i) && ccEvent(i) && !ours(i),
        holds: nothing,
        reason:
          "Upstream watches owned ClusterConfigs with HasLabelPredicate on its three identity labels: other ClusterConfigs are not its own ('managed by this controller (identified via labels)').",
      },
    ),
    derived(16, ["any", "no valid IPAMConfig known", "nothing", "(derived)"], {
      applies: (i) => !hasConfig(i),
      holds: nothing,
      reason:
        "Upstream's Cluster predicate returns false while GetConfig() is nil: without rules no Cluster can match.",
    }),
    derived(
      17,
      [
        "Cluster or managed ClusterConfig updated",
        "loses `openmcp.cloud/operation: ignore` (no reconcile annotation gained, no deletion timestamp on a ClusterConfig)",
        "reconcile the Cluster (owner)",
        "(derived)",
      ],
      {
        applies: (i) =>
          (liveCluster(i) && tag(i) === "ClusterUpdated" && lostIgnore(i) && !gotReconcile(i)) ||
          (liveCc(i) &&
            tag(i) === "ClusterConfigUpdated" &&
            lostIgnore(i) &&
            !gotReconcile(i) &&
            !gotDeletion(i)),
        holds: (i, r) => enqueues(clusterEvent(i) ? theClusterKey : theOwnerKey)(i, r),
        reason:
          "Upstream's predicates include LostAnnotationPredicate(ignore) for both kinds: an object that stops being ignored is caught up at once.",
      },
    ),
    derived(
      18,
      [
        "IPAMConfig changed",
        "its injection rules are the same (parent CIDRs or the refresh cycle changed)",
        "nothing",
        "(derived)",
      ],
      {
        applies: (i) =>
          hasConfig(i) &&
          i.trigger._tag === "ConfigChanged" &&
          i.trigger.old !== undefined &&
          isDeepStrictEqual(i.trigger.old.injectionRules, i.observed.config?.injectionRules),
        holds: nothing,
        reason:
          "Upstream's config controller triggers Clusters only when injection rules changed; new parents serve new allocations without a reconcile.",
      },
    ),
    derived(19, ["managed ClusterConfig created", "no ignore annotation", "nothing", "(derived)"], {
      applies: (i) => liveCc(i) && tag(i) === "ClusterConfigCreated",
      holds: nothing,
      reason:
        "Upstream's ClusterConfig predicates are update, delete and the annotations: the controller creates ClusterConfigs itself and must not re-trigger on its own creations.",
    }),
    derived(
      20,
      [
        "CIDRs released (a reconcile released the ClusterConfigs of a gone Cluster)",
        "Clusters waiting for CIDRs (their last reconcile found a parent exhausted, ipam.reconcile#7)",
        "reconcile each waiting Cluster",
        "(derived)",
      ],
      {
        applies: (i) => hasConfig(i) && tag(i) === "CidrsReleased",
        holds: (i, r) => {
          const want = [...new Set((i.observed.waiting ?? []).map((c) => `${c.namespace}/${c.name}`))].sort()
          const got = r.actions.map((a) => `${a.namespace}/${a.name}`).sort()
          return isDeepStrictEqual(want, got) && r.status.triggered === want.length > 0
        },
        reason:
          "Upstream retries an exhausted Cluster only through the rate limiter (its backoff reaches minutes); a release is the moment capacity comes back, so a waiting Cluster gets its CIDRs within the same second.",
      },
    ),
  ],
  priority: [],
  resolutions: [
    "Rows are disjoint by construction: first the config (row 16), then the kind of event, then ignore annotations and labels, then selection, then what changed.",
    "'triggers its deletion' (rows 3 and 6) is read as 'triggers a reconciliation', as upstream's code does; the reconcile annotation is removed by the reconcile (ipam.reconcile).",
    "A managed ClusterConfig that the controller first sees already carrying a deletion timestamp (its Cluster was deleted while the controller was down, and the garbage collector got there first) is fed to this table as that timestamp arriving, so row 5 decides and the owning Cluster is reconciled. The seed only speaks of the timestamp appearing; without this, a Cluster deleted during a restart would never have its CIDRs released. Upstream reaches the same end through its state restore.",
  ],
}
