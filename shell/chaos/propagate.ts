/**
 * The propagate suite: `krtt propagate`'s controllers (shell/fleet/propagate/, table
 * `propagate.copy` of core/propagate) on the multi-cluster manager with the kubeconfig-secrets
 * provider over in-memory workload servers, in the situations of e2e/fleet/propagate.test.ts: a
 * labelled source reaches every engaged cluster (namespace created), a cluster added later gets
 * it, a source whose label is removed and one that is deleted have their copies removed (a
 * cluster down meanwhile when it is back), and an object of the same name that is not a copy is
 * left alone.
 *
 * Safety on every committed write (what table `propagate.copy` and the summary promise):
 * - an object in a workload cluster that is not a copy (no `krtt.io/propagated-from` label) is
 *   never changed or deleted by the operator ("it is left alone");
 * - a source's `krtt.io/propagate` finalizer is removed only when no cluster of the fleet (one
 *   whose kubeconfig Secret names its server) holds a copy of it, but for a cluster whose server
 *   is down and that `krtt-propagate-pending` lists ("released once every engaged cluster is
 *   clean"; the cluster away is cleaned when it is back, which the final state shows);
 * - `krtt-propagate-pending` forgets a cluster for a source only once that cluster holds no copy
 *   of it, and keeps every key that names no source as it was (`pendingKept.ts`).
 *
 * Deviation from `krtt propagate`: the workload caches are the scoped cache without access
 * reviews (the in-memory server has no authorization: a Role taken away, or one that lets the
 * operator read but not write, is played by injected 403 answers, `propagate.copy#7`).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import {
  PropagatedFromLabel,
  PropagateFinalizer,
  PropagateLabel,
  PropagationAnnotation,
} from "../../core/propagate/index.ts"
import type { Verb } from "../apiserver/faults.ts"
import type { FakeApiServer } from "../apiserver/server.ts"
import {
  addToManager as addPropagateToManager,
  kubeconfigSecretLabels,
  PendingConfigMap,
} from "../fleet/propagate/index.ts"
import { clustersOf } from "../fleet/propagate/pending.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, type ResourceRef, Resources } from "../kube/resource.ts"
import { scopedCacheFactory } from "../scopedcache/index.ts"
import {
  addCluster,
  FLEET,
  fleetServers,
  outage,
  removeCluster,
  startManager,
  urlOf,
} from "./multicluster.ts"
import { type FleetMember, pendingKept } from "./pendingKept.ts"
import { ChaosDefaults } from "./perturbations.ts"
import { patchStep, type Scenario, type Step } from "./scenarios.ts"
import type { Suite } from "./suite.ts"
import { givenBack, takeOver } from "./takeover.ts"
import { thirdPartyOn } from "./thirdParty.ts"

const TEAM = "team-a"
const SYSTEM = "krtt-system"

const source = (name: string, binary: boolean): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { namespace: TEAM, name, labels: { [PropagateLabel]: "true", app: "web" } },
  data: { color: "blue" },
  ...(binary ? { binaryData: { logo: Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString("base64") } } : {}),
})

/** A labelled source ConfigMap; `binary`: with `binaryData` beside its `data`. */
const createSource = (name: string, binary = false): Step => ({
  name: `source ConfigMap ${TEAM}/${name} created${binary ? " (with binaryData)" : ""}`,
  settleMillis: 20_000,
  run: ({ mgmt }) => Effect.asVoid(mgmt.client().create(Resources.configMaps, source(name, binary))),
})

const editSource = (name: string, color = "green"): Step =>
  patchStep(
    `source ConfigMap ${TEAM}/${name} edited (color ${color})`,
    20_000,
    Resources.configMaps,
    { namespace: TEAM, name },
    {
      data: { color },
    },
  )

const unlabelSource = (name: string): Step =>
  patchStep(
    `source ConfigMap ${TEAM}/${name} loses its label`,
    30_000,
    Resources.configMaps,
    { namespace: TEAM, name },
    {
      metadata: { labels: { [PropagateLabel]: null } },
    },
  )

const deleteSource = (name: string): Step => ({
  name: `source ConfigMap ${TEAM}/${name} deleted`,
  settleMillis: 30_000,
  run: ({ mgmt }) => Effect.asVoid(mgmt.client().delete(Resources.configMaps, { namespace: TEAM, name })),
})

/** Someone else's ConfigMap of a source's name in a workload cluster (not a copy). */
const foreign = (server: string, name: string): Step => ({
  name: `a ConfigMap ${TEAM}/${name} of someone else in ${server}`,
  settleMillis: 1_000,
  run: ({ workload }) =>
    Effect.gen(function* () {
      const c = workload(urlOf(server)).client()
      yield* c.create(Resources.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: TEAM } })
      yield* c.create(Resources.configMaps, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { namespace: TEAM, name },
        data: { owner: "someone else" },
      })
    }),
})

/** A Secret source of `type`, labelled. */
const secretSource = (name: string, type: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: { namespace: TEAM, name, labels: { [PropagateLabel]: "true" } },
  type,
  data: {
    username: Buffer.from("admin").toString("base64"),
    password: Buffer.from("s3cret").toString("base64"),
  },
})

/** A step done in workload server `server` by someone else than the operator. */
const inWorkload = (
  server: string,
  name: string,
  settleMillis: number,
  run: (c: KubeClientShape) => Effect.Effect<unknown, KubeError>,
): Step => ({
  name: `${name} in ${server}`,
  settleMillis,
  run: ({ workload }) => Effect.asVoid(run(workload(urlOf(server)).client())),
})

/** The copy of Secret source `name` replaced in `server` by one of another type, still marked a copy. */
const replaceCopy = (server: string, name: string): Step =>
  inWorkload(server, `the copy of Secret ${TEAM}/${name} replaced by an Opaque one`, 20_000, (c) =>
    Effect.gen(function* () {
      const copy = yield* c.get(Resources.secrets, { namespace: TEAM, name })
      yield* c.delete(Resources.secrets, { namespace: TEAM, name })
      const labels = copy.metadata.labels ?? {}
      yield* c.create(Resources.secrets, {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { namespace: TEAM, name, labels },
        type: "Opaque",
        data: { stale: Buffer.from("yes").toString("base64") },
      })
    }),
  )

/**
 * The operator's access to ConfigMaps of the team's namespace in workload server `server` revoked
 * (every call of it there answered 403 Forbidden, as with its Role taken away), or given back.
 */
const access = (server: string, allowed: boolean, settleMillis: number): Step => ({
  name: `the operator's access to ConfigMaps of ${TEAM} in ${server} ${allowed ? "given back" : "revoked"}`,
  settleMillis,
  run: ({ workload }) =>
    Effect.sync(() => {
      const w = workload(urlOf(server))
      if (allowed) w.clearFaults()
      else w.inject({ resource: "configmaps", namespace: TEAM, error: "Forbidden" })
    }),
})

/**
 * The workload server `server` answers the operator's next writes of ConfigMaps of the team's
 * namespace with `errors`, one call each, in order (an API server error, a Role that lets the
 * operator read but not write, an admission cache that does not know a namespace yet); `verb`:
 * which writes; without `errors`, every such write is refused 403 until the faults are cleared.
 */
const refuseWrites = (
  server: string,
  what: string,
  verb: ReadonlyArray<Verb>,
  errors: ReadonlyArray<KubeError["_tag"]> | undefined,
  settleMillis = 1_000,
): Step => ({
  name: `${server} refuses the operator's ${verb.join("/")} of ConfigMaps of ${TEAM}: ${what}`,
  settleMillis,
  run: ({ workload }) =>
    Effect.sync(() => {
      const w = workload(urlOf(server))
      const fault = { verb, resource: "configmaps", namespace: TEAM }
      if (errors === undefined) w.inject({ ...fault, error: "Forbidden" })
      else for (const error of errors) w.inject({ ...fault, error, times: 1 })
    }),
})

/**
 * The hub answers the operator's next `verb` calls on ConfigMaps of its own namespace (where
 * `krtt-propagate-pending` is) with `errors`, one call each, in order: a write that lost a race
 * with another writer (Conflict, AlreadyExists), a Role briefly without `update` (Forbidden).
 */
const hubRefuses = (what: string, verb: Verb, errors: ReadonlyArray<KubeError["_tag"]>): Step => ({
  name: `the hub answers the operator's ${verb} of ${PendingConfigMap}: ${what}`,
  settleMillis: 0,
  run: ({ mgmt }) =>
    Effect.sync(() => {
      for (const error of errors)
        mgmt.inject({ verb, resource: "configmaps", namespace: SYSTEM, error, times: 1 })
    }),
})

/**
 * An administrator writes `krtt-propagate-pending` before the operator does (restored from a
 * backup, edited by hand): a key of theirs, a source already listing a cluster, a value that is
 * a bare cluster name (not JSON) and one that is JSON but not a list.
 */
const prefillPending = (): Step => ({
  name: `${PendingConfigMap} written by hand before any release (a note, a listed cluster, a bare name, an object, a key without a name)`,
  settleMillis: 1_000,
  run: ({ mgmt }) =>
    Effect.asVoid(
      mgmt.client().create(Resources.configMaps, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { namespace: SYSTEM, name: PendingConfigMap },
        data: {
          note: "restored from backup",
          [`ConfigMap.${TEAM}.settings`]: '["west"]',
          [`ConfigMap.${TEAM}.logo`]: "north",
          [`Secret.${TEAM}.creds`]: '{"west": true}',
          [`ConfigMap.${TEAM}`]: '["west"]',
        },
      }),
    ),
})

/** A labelled Secret source `name` of `type`. */
const createSecret = (name: string, type: string): Step => ({
  name: `source Secret ${TEAM}/${name} created`,
  settleMillis: 20_000,
  run: ({ mgmt }) => Effect.asVoid(mgmt.client().create(Resources.secrets, secretSource(name, type))),
})

const deleteSecret = (name: string): Step => ({
  name: `source Secret ${TEAM}/${name} deleted`,
  settleMillis: 30_000,
  run: ({ mgmt }) => Effect.asVoid(mgmt.client().delete(Resources.secrets, { namespace: TEAM, name })),
})

/**
 * Someone edits `krtt-propagate-pending` by hand: a value that is not JSON, one with a non-string
 * cluster, a key of a kind that is not propagated, and a source name with dots.
 */
const garblePending = (): Step =>
  patchStep(
    "krtt-propagate-pending edited by hand (a value not JSON, a foreign kind, a dotted name)",
    5_000,
    Resources.configMaps,
    { namespace: SYSTEM, name: PendingConfigMap },
    {
      data: {
        [`ConfigMap.${TEAM}.garbled`]: "not json",
        [`Deployment.${TEAM}.web`]: '["west"]',
        [`ConfigMap.${TEAM}.dotted.name`]: '["west", 3]',
      },
    },
  )

const PropagateScenarios: ReadonlyArray<Scenario> = [
  {
    name: "propagate-copies",
    description: "a source copied to two clusters, a third added later, the source edited, then unlabelled",
    source:
      "e2e/fleet/propagate.test.ts: propagates to every cluster (namespace created), restores edits, removes copies when unlabelled",
    steps: [
      addCluster("east", "east", 10_000),
      addCluster("west", "west", 10_000),
      createSource("settings"),
      addCluster("north", "north"),
      editSource("settings"),
      unlabelSource("settings"),
    ],
  },
  {
    name: "propagate-delete",
    description:
      "a source deleted (its finalizer holds it until every copy is gone); a cluster removed meanwhile",
    source: "e2e/fleet/propagate.test.ts: a deleted source's copies are removed before its finalizer",
    steps: [
      addCluster("east", "east", 10_000),
      addCluster("west", "west", 10_000),
      createSource("settings"),
      createSource("extra"),
      removeCluster("west"),
      deleteSource("settings"),
    ],
  },
  {
    name: "propagate-away",
    description:
      "a source deleted while a workload API server is down (its cluster disengaged but known): the finalizer goes, the cluster is remembered in krtt-propagate-pending and cleaned when it is back",
    source:
      "e2e/fleet/propagate.test.ts: a deleted source is removed everywhere, a cluster down during the delete included",
    steps: [
      addCluster("east", "east", 10_000),
      addCluster("west", "west", 10_000),
      createSource("settings"),
      outage("west", false, 80_000),
      // Another replica's create of the pending ConfigMap won the race: read and create again.
      hubRefuses("another writer created it first", "create", ["AlreadyExists"]),
      deleteSource("settings"),
      garblePending(),
      outage("west", true, 60_000),
    ],
  },
  {
    name: "propagate-away-many",
    description:
      "three sources (one with binaryData, one a Secret) deleted while two of three workload API servers are down, krtt-propagate-pending written by hand before: all are remembered for both clusters, each cluster cleaned of all when it is back, one after the other (the first's forget losing a race, then refused), the second refused at first (still owed until its access is given back)",
    source:
      "e2e/fleet/propagate.test.ts: a deleted source is removed everywhere, a cluster down during the delete included; several at once",
    steps: [
      addCluster("east", "east", 10_000),
      addCluster("west", "west", 10_000),
      addCluster("north", "north", 10_000),
      createSource("settings"),
      createSource("logo", true),
      createSecret("creds", "Opaque"),
      outage("west", false, 1_000),
      outage("north", false, 80_000),
      prefillPending(),
      deleteSource("settings"),
      deleteSource("logo"),
      deleteSecret("creds"),
      // North's first forget loses a race (Conflict, read and written again), then is refused:
      // the cleanup fails, is logged, and is tried again after retryInterval.
      hubRefuses("another writer first, then a Role without update", "update", ["Conflict", "Forbidden"]),
      outage("north", true, 60_000),
      access("west", false, 1_000),
      outage("west", true, 60_000),
      access("west", true, 60_000),
    ],
  },
  {
    name: "propagate-drift",
    description:
      "a Secret source; its copies edited, deleted, their namespace deleted and one replaced by another type (all undone); then a selector on the clusters' labels, then the source deleted",
    source:
      "e2e/fleet/propagate.test.ts: restores drift, follows the selector; table propagate.copy rows 1 (namespace missing) and the type change",
    steps: [
      addCluster("east", "east", 10_000),
      addCluster("west", "west", 10_000),
      patchStep(
        "kubeconfig Secret east labelled env=prod",
        5_000,
        Resources.secrets,
        { namespace: FLEET, name: "east" },
        {
          metadata: { labels: { env: "prod" } },
        },
      ),
      {
        name: `source Secret ${TEAM}/creds created`,
        settleMillis: 20_000,
        run: ({ mgmt }) =>
          Effect.asVoid(
            mgmt.client().create(Resources.secrets, secretSource("creds", "kubernetes.io/basic-auth")),
          ),
      },
      inWorkload("east", `the copy of Secret ${TEAM}/creds edited`, 20_000, (c) =>
        c.patch(
          Resources.secrets,
          { namespace: TEAM, name: "creds" },
          mergePatch({ data: { password: "ZWRpdGVk" } }),
        ),
      ),
      inWorkload("west", `the copy of Secret ${TEAM}/creds deleted`, 20_000, (c) =>
        c.delete(Resources.secrets, { namespace: TEAM, name: "creds" }),
      ),
      inWorkload("west", `namespace ${TEAM} deleted`, 30_000, (c) =>
        c.delete(Resources.namespaces, { name: TEAM }),
      ),
      replaceCopy("east", "creds"),
      patchStep(
        `source Secret ${TEAM}/creds selects env=prod`,
        20_000,
        Resources.secrets,
        { namespace: TEAM, name: "creds" },
        {
          metadata: { annotations: { [PropagationAnnotation]: "env=prod" } },
        },
      ),
      {
        name: `source Secret ${TEAM}/creds deleted`,
        settleMillis: 30_000,
        run: ({ mgmt }) =>
          Effect.asVoid(mgmt.client().delete(Resources.secrets, { namespace: TEAM, name: "creds" })),
      },
    ],
  },
  {
    name: "propagate-forbidden",
    description:
      "a cluster where the operator may not touch the source's kind (a Secret of the namespace still copied): reported Forbidden, copied once access is back; then writes refused while reads are allowed, refused twice in one run, a create answered NotFound after its namespace was made, a delete refused once",
    source:
      "core/propagate table propagate.copy#7: a namespace the identity may not read or write is Forbidden, and retried",
    steps: [
      addCluster("east", "east", 10_000),
      addCluster("west", "west", 10_000),
      access("east", false, 1_000),
      createSource("settings"),
      // Secrets of the same namespace are still allowed: only the ConfigMaps' refusal waits.
      createSecret("creds", "Opaque"),
      editSource("settings"),
      access("east", true, 60_000),
      // Row 7 from a refused write: reads allowed, writes answered 403 (a Role with get/list/watch only).
      refuseWrites(
        "east",
        "a Role that lets it read but not write",
        ["create", "update", "delete"],
        undefined,
      ),
      editSource("settings", "yellow"),
      access("east", true, 30_000),
      // A write refused twice in one run: the live retry of an API server error is refused 403 (row 7).
      refuseWrites("east", "an API server error, then 403", ["update"], ["ApiError", "Forbidden"]),
      editSource("settings", "red"),
      // Refused twice without a 403: the pair fails (PropagationFailed) and is tried again.
      refuseWrites("east", "two API server errors", ["update"], ["ApiError", "ApiError"]),
      editSource("settings", "blue"),
      // A create answered NotFound after its namespace was created (row 1, then a live read).
      refuseWrites("east", "the namespace not known yet", ["create"], ["NotFound", "NotFound"], 0),
      inWorkload("east", `namespace ${TEAM} deleted`, 30_000, (c) =>
        c.delete(Resources.namespaces, { name: TEAM }),
      ),
      // A delete refused once: the live read after it finds the copy, which the retry deletes.
      refuseWrites("east", "an API server error", ["delete"], ["ApiError"]),
      deleteSource("settings"),
    ],
  },
  {
    name: "propagate-foreign",
    description: "a cluster already holding another's ConfigMap of the source's name: it is left alone",
    source: "core/propagate table propagate.copy: an object that is not a copy of this source is left alone",
    steps: [
      foreign("east", "settings"),
      addCluster("east", "east", 10_000),
      addCluster("west", "west", 10_000),
      createSource("settings"),
      deleteSource("settings"),
    ],
  },
]

const serverOf = (secret: KubeObject): string | undefined => {
  const encoded = (secret as { data?: Record<string, string> }).data?.kubeconfig
  if (encoded === undefined) return undefined
  return /server: "([^"]+)"/.exec(Buffer.from(encoded, "base64").toString("utf8"))?.[1]
}

/** The kinds the suite propagates, by the resource path the servers' commits name. */
const KINDS: Readonly<Record<string, { readonly name: string; readonly ref: ResourceRef }>> = {
  "/configmaps": { name: "ConfigMap", ref: Resources.configMaps },
  "/secrets": { name: "Secret", ref: Resources.secrets },
}

/** The clusters `krtt-propagate-pending` lists for a source key (`ConfigMap.<namespace>.<name>`). */
const pendingFor = (mgmt: FakeApiServer, key: string): ReadonlyArray<string> => {
  const pending = mgmt
    .objects(Resources.configMaps)
    .find((o) => o.metadata.namespace === SYSTEM && o.metadata.name === PendingConfigMap)
  return clustersOf((pending as { data?: Record<string, string> } | undefined)?.data?.[key])
}

/** The invariants of the module comment. */
const propagateInvariants = (
  mgmt: FakeApiServer,
  workloads: ReadonlyMap<FakeApiServer, string>,
  violations: Array<string>,
) => {
  /** The clusters of the fleet: name (its Secret's) and server, for each Secret naming a server we know. */
  const fleet = (): ReadonlyArray<FleetMember> => {
    const byUrl = new Map([...workloads].map(([server, url]) => [url, server]))
    return mgmt.objects(Resources.secrets).flatMap((s) => {
      const server = byUrl.get(serverOf(s) ?? "")
      return server === undefined ? [] : [{ name: s.metadata.name ?? "", server, url: serverOf(s) }]
    })
  }
  const offHub = mgmt.onCommit(({ resource, type, object, old }) => {
    const kind = KINDS[resource]
    if (kind === undefined || old === undefined) return
    const had = old.metadata.finalizers?.includes(PropagateFinalizer) === true
    const has = type !== "DELETED" && object.metadata.finalizers?.includes(PropagateFinalizer) === true
    if (!had || has) return
    const key = `${object.metadata.namespace}.${object.metadata.name}`
    const remembered = pendingFor(mgmt, `${kind.name}.${key}`)
    for (const { name, server, url } of fleet()) {
      const copy = server.objects(kind.ref).find((o) => o.metadata.labels?.[PropagatedFromLabel] === key)
      // A server that is down cannot be cleaned now: it must be remembered for when it is back.
      if (copy === undefined || (!server.isUp() && remembered.includes(name))) continue
      violations.push(
        `source ${object.metadata.namespace}/${object.metadata.name}: finalizer ${PropagateFinalizer} removed while ${url} holds its copy ${copy.metadata.namespace}/${copy.metadata.name}${server.isUp() ? "" : ` and ${PendingConfigMap} does not list ${name}`} (rv ${object.metadata.resourceVersion})`,
      )
    }
  })
  const offPending = pendingKept(mgmt, SYSTEM, fleet, violations)
  return () => {
    offHub()
    offPending()
  }
}

/** The third party's edit of a copy's labels and annotations, as in the other suites. */
const copyEditor = thirdPartyOn(Resources.configMaps, { condition: false, hold: false })

/**
 * Watches a workload server: an object that is not a copy is never changed or deleted (the third
 * party giving back a copy it took over aside, `takeover.ts`).
 */
const leftAlone = (server: FakeApiServer, url: string, violations: Array<string>) =>
  server.onCommit(({ resource, type, object, old }) => {
    const kind = KINDS[resource]
    if (kind === undefined || old === undefined) return
    if (old.metadata.labels?.[PropagatedFromLabel] !== undefined) return
    if (type !== "DELETED" && givenBack(old, object, PropagatedFromLabel)) return
    violations.push(
      `${url}: ${kind.name} ${object.metadata.namespace}/${object.metadata.name}, not a copy, ${type === "DELETED" ? "deleted" : "changed"} (rv ${object.metadata.resourceVersion})`,
    )
  })

export const PropagateSuite: Suite = {
  name: "propagate",
  controllers: ["propagate"],
  scenarios: PropagateScenarios,
  install: (mgmt) =>
    Effect.forEach(
      [FLEET, TEAM, SYSTEM],
      (name) =>
        mgmt
          .client()
          .create(Resources.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name } }),
      { discard: true },
    ),
  start: (ctx) =>
    startManager(
      ctx,
      (manager) =>
        addPropagateToManager(manager, ctx.client, {
          pendingNamespace: SYSTEM,
          clusterLabels: kubeconfigSecretLabels(manager, FLEET),
          kinds: ["ConfigMap", "Secret"],
        }),
      { cacheFactory: scopedCacheFactory },
    ).pipe(Effect.catch(() => ctx.exit)),
  invariants: (mgmt, workloads, violations) => {
    const watched = new Map<FakeApiServer, string>()
    const offs: Array<() => void> = []
    const follow = () => {
      for (const [url, server] of workloads())
        if (!watched.has(server)) {
          watched.set(server, url)
          offs.push(leftAlone(server, url, violations))
        }
    }
    // Workload servers appear as scenarios and the operator reach them: look for new ones on every hub write.
    const offNew = mgmt.onCommit(() => follow())
    const offHub = propagateInvariants(mgmt, watched, violations)
    return () => {
      offNew()
      offHub()
      for (const off of offs) off()
    }
  },
  thirdParty: (mgmt, target, n) =>
    Effect.gen(function* () {
      const edit = yield* copyEditor(mgmt, target, n)
      if (
        edit === undefined ||
        target.verb !== "update" ||
        target.server === mgmt ||
        target.name === undefined
      )
        return edit
      const key = { namespace: target.namespace, name: target.name }
      const back = yield* takeOver(target.server.client(), target.ref, key, PropagatedFromLabel)
      return { release: Effect.andThen(edit.release, back) }
    }),
  fastPoints: ChaosDefaults.fastPointsLater,
  engagedServers: fleetServers,
  snapshotWorkloads: true,
  // A copy's namespace must exist in its cluster (propagate.copy#1 creates it), as on a real server.
  workloadNamespaces: true,
}
