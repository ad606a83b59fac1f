/**
 * Generates `docs/krtt/<area>.md` from the transcribed tables in `spec/`: every table with its
 * row ids, the resolutions of overlaps and gaps, and a diagram; and `docs/api.md` from `api/`
 * (docs/api.ts). `npm run docs:generate` writes the files; `docs/generate.test.ts` fails when a
 * committed file is stale.
 *
 * @module
 */
import { writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { type AnyTableSpec, idOf } from "../core/krtt/index.ts"
import { bindings } from "../shell/krtt/registry.ts"
import { renderApi } from "./api.ts"

const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ")

/** One table as markdown. */
export const renderTable = (spec: AnyTableSpec): string => {
  const head = `| Row | ${spec.columns.join(" | ")} |`
  const rule = `|:----|${spec.columns.map(() => ":---").join("|")}|`
  const rows = spec.rows.map(
    (r) =>
      `| \`${idOf(spec, r)}\`${r.derived ? " (derived)" : ""} | ${spec.columns.map((c) => cell(r.cells[c] ?? "")).join(" | ")} |`,
  )
  const notes = spec.rows
    .filter((r) => r.reason !== undefined)
    .map((r) => `- \`${idOf(spec, r)}\`${r.derived ? " (derived)" : ""}: ${r.reason}`)
  const priority =
    spec.priority.length === 0
      ? "No overlapping rows need a priority."
      : `When several rows apply, the first of rows ${spec.priority.join(", ")} that applies wins; other rows follow in table order.`
  return [
    `## ${spec.title} (\`${spec.id}\`)`,
    "",
    `Transcribed from \`shared/seeds/${spec.source}\`. ${spec.rows.filter((r) => !r.derived).length} documented rows${
      spec.rows.some((r) => r.derived) ? `, ${spec.rows.filter((r) => r.derived).length} derived` : ""
    }.`,
    "",
    head,
    rule,
    ...rows,
    "",
    "### Resolutions",
    "",
    priority,
    "",
    ...spec.resolutions.map((r) => `- ${r}`),
    ...notes,
    "",
  ].join("\n")
}

const clustercacheDiagram = `\`\`\`mermaid
stateDiagram-v2
    [*] --> NoAccessor
    NoAccessor --> NotConnected: reconciler row 1 Cluster exists
    NotConnected --> NotConnected: reconciler row 3 infrastructure not provisioned
    NotConnected --> Connecting: reconciler row 4 Connect()
    Connecting --> Connected: accessor row 4 cache synced
    Connecting --> RetryWait: accessor row 5 / reconciler row 6 connect failed
    RetryWait --> RetryWait: reconciler row 5 within 30 s
    RetryWait --> Connecting: reconciler row 4 retry interval elapsed
    Connected --> Connected: reconciler row 15 probe not due
    Connected --> Probing: reconciler row 7 interval (10 s) elapsed
    Probing --> Connected: reconciler row 8 success / reconciler row 9 failure below threshold
    Probing --> RetryWait: reconciler row 10 5th consecutive failure, requeue 30 s
    Probing --> NotConnected: reconciler row 11 401, requeue 1 ms
    NotConnected --> [*]: reconciler row 2 / reconciler row 13 Cluster gone
    Connected --> [*]: reconciler row 13 Cluster gone (disconnect)
    RetryWait --> [*]: reconciler row 13 Cluster gone
\`\`\``

const clusterDeletionDiagram = `\`\`\`mermaid
stateDiagram-v2
    [*] --> Deleting: deletion row 1 deletionTimestamp set
    Deleting --> WaitingForBeforeDeleteHook: deletion row 2 no ok-to-delete annotation
    WaitingForBeforeDeleteHook --> Deleting: annotation runtime.cluster.x-k8s.io/ok-to-delete
    Deleting --> DeletingDescendants: deletion row 4 delete owned MD, MS, Machines, MP
    DeletingDescendants --> WaitingForWorkersDeletion: deletion row 5 requeue 5 s
    WaitingForWorkersDeletion --> DeletingDescendants: requeue
    DeletingDescendants --> WaitingForControlPlaneDeletion: deletion row 6 no descendants, delete control plane
    WaitingForControlPlaneDeletion --> WaitingForInfrastructureDeletion: deletion row 7 control plane gone, delete infrastructure
    WaitingForInfrastructureDeletion --> DeletionCompleted: deletion row 8 infrastructure gone
    DeletionCompleted --> [*]: remove finalizer cluster.cluster.x-k8s.io
\`\`\``

const multiclusterDiagram = `\`\`\`mermaid
stateDiagram-v2
    [*] --> Absent
    Absent --> StartingCache: rows 1, 3 ClusterAdded, options engage
    Absent --> Excluded: rows 2, 4, 5, 6, 15 options do not engage
    Excluded --> StartingCache: row 16 new generation, options engage
    StartingCache --> WaitingForSync: row 7 CacheStarted, WaitForCacheSync (2 min)
    WaitingForSync --> ApplyingIndexes: row 8 CacheSynced
    ApplyingIndexes --> Engaging: row 9 IndexesApplied, StartSources (one per watch)
    Engaging --> Engaged: row 10 SourcesStarted
    Engaged --> Engaged: row 12 request, Reconcile
    StartingCache --> Failed: row 14 engage failed, cancel scope, RetryAfter
    WaitingForSync --> Failed: row 14 sync failed or timed out
    ApplyingIndexes --> Failed: row 14
    Engaging --> Failed: row 14
    Engaged --> Failed: row 14 a source failed
    Failed --> Failed: row 21 RetryDue before retryAt
    Failed --> StartingCache: row 20 RetryDue at retryAt (1 s doubling to 5 min)
    Engaged --> StartingCache: row 16 CredentialsChanged, cancel old scope
    Engaged --> Unhealthy: row 22 ClusterUnhealthy, cancel scope
    Failed --> Unhealthy: row 22
    Unhealthy --> StartingCache: row 23 ClusterHealthy
    Engaged --> Absent: row 11 ClusterRemoved, cancel scope
    Unhealthy --> Absent: row 11
    Failed --> Absent: row 11
    Excluded --> Absent: row 11
    Absent --> Absent: row 17 request dropped (ClusterNotFound, one log line)
\`\`\``

const scopedcacheDiagram = `\`\`\`mermaid
stateDiagram-v2
    [*] --> Pending: informers row 1 AddInformer before Start
    [*] --> Starting: informers row 2 AddInformer, cache started
    [*] --> Covered: informers row 10 AddInformer under a cluster-level informer
    Pending --> Starting: lifecycle row 1 Start
    Starting --> Synced: informers row 15 first list stored
    Starting --> Covered: informers row 9 cluster-level informer added (StopInformer)
    Synced --> Covered: informers row 9 cluster-level informer added (StopInformer)
    Pending --> Covered: informers row 9
    Covered --> Starting: informers rows 5, 6, 7 the cluster-level informer leaves (StartInformer)
    Covered --> Pending: informers rows 5, 6 the cluster-level informer leaves before Start
    Starting --> Starting: informers rows 3, 4, 8, 12 dependents change, 13 last removed (termination off)
    Synced --> Synced: informers rows 3, 4, 8, 12, 13
    Starting --> [*]: informers row 5 last dependent, row 6 forced, row 7 403 (StopInformer)
    Synced --> [*]: informers row 5 last dependent, row 6 forced, row 7 403 (StopInformer)
    Pending --> [*]: informers rows 5, 6
    Covered --> [*]: informers rows 5, 6
\`\`\``

const ipamDiagram = `\`\`\`mermaid
stateDiagram-v2
    [*] --> Selected: trigger#1 Cluster created (a rule selects it)
    Selected --> Injected: reconcile#6 allocate, annotate, create ClusterConfig
    Selected --> Waiting: reconcile#7 parents exhausted (condition, Warning Event)
    Waiting --> Injected: reconcile#6 on a later trigger (trigger#3, #6, #7)
    Injected --> Injected: reconcile#4 / #5 / #13 align annotation and ClusterConfigs
    Injected --> Injected: trigger#8 / #9 Cluster update or deletion timestamp (no reconcile)
    Injected --> Releasing: trigger#2 Cluster gone / trigger#5 ClusterConfig gets its deletion timestamp
    Releasing --> [*]: reconcile#1 remove finalizer, release CIDRs, delete ClusterConfig
\`\`\``

const propagateDiagram = `\`\`\`mermaid
stateDiagram-v2
    [*] --> Synced: copy#1 create namespace and copy / copy#2 create copy
    Synced --> Synced: copy#3 update (edited) / copy#8 replace (Secret type) / copy#4 nothing
    Synced --> Synced: copy#2 re-create (copy deleted in the cluster)
    Synced --> Clean: copy#5 delete (source deleted, unlabelled, or cluster not selected)
    Clean --> Synced: copy#1 / copy#2 (labelled again, selected again)
    Synced --> Blocked: copy#7 informer forbidden (Warning Event)
    Blocked --> Synced: copy#2 / copy#3 / copy#4 once the Role is back
    [*] --> Conflict: copy#9 an object that is not ours (Warning Event)
    Synced --> InvalidSelector: copy#10 bad krtt.io/propagation (Warning Event, nothing written)
\`\`\``

const inventoryDiagram = `\`\`\`mermaid
stateDiagram-v2
    [*] --> Reachable: entry#1 engaged (put at once)
    Reachable --> Reachable: entry#3 unchanged / entry#6 change written after the debounce
    Reachable --> Pending: entry#4 Nodes or version changed (wait the debounce, 2 s)
    Pending --> Pending: entry#5 still within the debounce
    Pending --> Reachable: entry#6 written / entry#3 back to the stored facts
    Reachable --> Unreachable: entry#7 disengaged by health (put at once)
    Pending --> Unreachable: entry#7
    Unreachable --> Unreachable: entry#8
    Unreachable --> Reachable: entry#2 engaged again (put at once)
    Reachable --> [*]: entry#10 left the provider (key removed)
    Unreachable --> [*]: entry#10
\`\`\``

interface Area {
  readonly file: string
  readonly title: string
  readonly prefix: string
  readonly intro: string
  readonly diagram: string
}

const areas: ReadonlyArray<Area> = [
  {
    file: "clustercache.md",
    title: "ClusterCache tables (seed 000)",
    prefix: "clustercache.",
    intro:
      "The pure transitions live in `core/clustercache/`; the transcriptions in `spec/clustercache/`. Input shapes for `krtt explain` are in [clustercache-inputs.md](clustercache-inputs.md).",
    diagram: `## Connection lifecycle\n\nStates of one accessor; edges name the deciding rows (ids without the \`clustercache.\` prefix).\n\n${clustercacheDiagram}\n`,
  },
  {
    file: "cluster.md",
    title: "Cluster controller tables (seed 001)",
    prefix: "cluster.",
    intro:
      "The pure transitions live in `core/cluster/`; the transcriptions in `spec/cluster/`. Input shapes for `krtt explain` are in [../cluster-inputs.md](../cluster-inputs.md).",
    diagram: `## Deletion sequence\n\nThe order \`reconcileDelete\` keeps; edges name the deciding rows of \`cluster.deletion\`. Nothing of the control plane or infrastructure is deleted while owned descendants remain, the infrastructure never before the control plane is gone, the finalizer last.\n\n${clusterDeletionDiagram}\n`,
  },
  {
    file: "multicluster.md",
    title: "Multi-cluster engagement table (seed 003)",
    prefix: "multicluster.",
    intro:
      'The pure transition lives in `core/multicluster/`; the transcription in `spec/multicluster/`. One (controller, cluster) pair per table input; the hub is the cluster named `""`. Input shapes for `krtt explain` are in [../multicluster-inputs.md](../multicluster-inputs.md).',
    diagram: `## Lifecycle of a (controller, cluster) pair\n\nEdges name the deciding rows of \`multicluster.engagement\`. Start → cache synced → indexes applied → engage, in that order; every edge that leaves an engagement under way or engaged (\`StartingCache\` to \`Engaged\`) for \`Failed\`, \`Unhealthy\`, \`Absent\` or a new generation cancels its engage scope first. Requests are reconciled only when \`Engaged\`, requeued while an engagement is under way (row 19), dropped otherwise (rows 17, 18).\n\n${multiclusterDiagram}\n`,
  },
  {
    file: "scopedcache.md",
    title: "Scoped cache tables (seed 002)",
    prefix: "scopedcache.",
    intro:
      "The pure transitions and the registry (scope → GVK → informer key → {state, dependents by UID}) live in `core/scopedcache/`; the transcriptions and the resolutions of the seed's Open Questions in `spec/scopedcache/`. The seed is prose, not a table: rows 1-7 of `scopedcache.informers`, 1-3 of `lifecycle` and 1-4 of `reads` are its stated rules, the others are derived, each with its reason. Input shapes for `krtt explain` are in [../scopedcache-inputs.md](../scopedcache-inputs.md).",
    diagram: `## Lifecycle of one informer\n\nStates of one registered informer; edges name the deciding rows (ids without the \`scopedcache.\` prefix). \`Covered\`: a namespace-level informer whose GVK and key a cluster-level informer watches; it does not run and keeps its dependents. With automatic termination on, an informer runs iff it has at least one dependent, once the cache is started and unless it is covered.\n\n${scopedcacheDiagram}\n`,
  },
  {
    file: "ipam.md",
    title: "IPAM Cluster controller tables (seed 004)",
    prefix: "ipam.",
    intro:
      "The pure decisions live in `core/ipam/` (trigger, reconcile, allocator, matching, config validation, state restore); the transcriptions in `spec/ipam/`. The seed is prose, not a table: every bullet of its trigger specifics is a row of `ipam.trigger` (those that must not trigger included), and the reconcile sentence, the state document and the release rule are rows of `ipam.reconcile`; derived rows carry their reason, taken from upstream openmcp-project/platform-service-gardener-ipam. Input shapes for `krtt explain` are in [../ipam-inputs.md](../ipam-inputs.md).",
    diagram: `## Life of a Cluster's CIDRs\n\nEdges name the deciding rows (ids without the \`ipam.\` prefix).\n\n${ipamDiagram}\n`,
  },
  {
    file: "inventory.md",
    title: "Inventory table (seed 003's aggregating controller)",
    prefix: "inventory.",
    intro:
      "`krtt inventory` keeps one hub ConfigMap `krtt-inventory` with a key per engaged cluster ([../fleet.md](../fleet.md)). The pure decision for one cluster's entry lives in `core/inventory/entry.ts`; the transcription in `spec/inventory/`. Rows 1, 3-8 and 10 are the issue's sentences, rows 2, 9, 11 and 12 derived, each with its reason. An input example for `krtt explain` is in [../fleet.md](../fleet.md).",
    diagram: `## One cluster's entry\n\nStates of one cluster's key; edges name the deciding rows (ids without the \`inventory.\` prefix). Waiting clusters (engagement under way, another replica's) change nothing (entry#12).\n\n${inventoryDiagram}\n`,
  },
  {
    file: "propagate.md",
    title: "Propagation table (seed 003's uniform controller)",
    prefix: "propagate.",
    intro:
      '`krtt propagate` keeps every hub ConfigMap and Secret labelled `krtt.io/propagate: "true"` identical in every engaged cluster ([../fleet.md](../fleet.md)). The pure decision for one source and one cluster lives in `core/propagate/copy.ts`, the source-level summary (finalizer, `krtt.io/propagated-to`) in `core/propagate/summary.ts`; the transcription in `spec/propagate/`. Rows 1-7 are the issue\'s sentences, rows 8-10 derived, each with its reason. An input example for `krtt explain` is in [../fleet.md](../fleet.md).',
    diagram: `## One source in one cluster\n\nStatuses of one (source, cluster) pair; edges name the deciding rows (ids without the \`propagate.\` prefix).\n\n${propagateDiagram}\n`,
  },
]

/** The generated markdown of an area. */
export const renderArea = (area: Area, extra = ""): string => {
  const specs = bindings.map((b) => b.spec).filter((s) => s.id.startsWith(area.prefix))
  return [
    `<!-- Generated by \`npm run docs:generate\` from spec/; do not edit. -->`,
    `# ${area.title}`,
    "",
    area.intro,
    "",
    area.diagram,
    extra,
    ...specs.map(renderTable),
  ].join("\n")
}

/** Every generated file: path relative to `docs/` and its content. */
export const generated = (): ReadonlyArray<{ readonly path: string; readonly content: string }> => [
  ...areas.map((a) => ({ path: `krtt/${a.file}`, content: renderArea(a) })),
  { path: "api.md", content: renderApi() },
]

if (import.meta.main) {
  for (const { path, content } of generated()) {
    const target = fileURLToPath(new URL(path, import.meta.url))
    writeFileSync(target, content)
    process.stdout.write(`wrote docs/${path}\n`)
  }
}
