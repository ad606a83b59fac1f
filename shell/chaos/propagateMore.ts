/**
 * More of the propagate suite (`propagate.ts`): the same fleet (kubeconfig-secrets provider,
 * scoped caches, in-memory workload servers), with the propagation added as `runPropagate` adds
 * it for a provider without cluster labels: its config given (tuned flags), both kinds by
 * default, no `clusterLabels` (selectors match the pseudo-label `krtt.io/cluster-name` only).
 *
 * The scenario plays what docs/fleet.md promises of the source's Warnings and finalizer: one
 * Warning per cluster and reason, not repeated while it lasts, and given again once it cleared
 * and came back, or once the source was released and labelled again; a selector that does not
 * parse (row 10); a cluster whose writes hang past `clusterTimeout` (`PropagationFailed`, the
 * cluster counted in `n/m`) or are refused (403 on updates only: row 7); a source deleted with
 * its finalizer stripped by hand ("Uninstalling") while its reconcile waits on that cluster, then
 * made again; a source that loses all its labels; a source held by another controller's
 * finalizer; objects of someone else whose `krtt.io/propagated-from` names no source; a Secret
 * source in a namespace whose Secrets the operator may not list there (its informer's
 * `PermissionLost` enqueues the source), then allowed again; a copy deleted by hand while the
 * operator's own delete of it is on its way, and a namespace created by hand while the operator's
 * own create of it is (both idempotent: no refusal).
 *
 * What `addToManager` answers (its controllers and config) is checked at every start.
 *
 * Safety on every committed write, besides the propagate suite's own:
 * - another controller's finalizer on a source is never removed (no step removes it here);
 * - while a source's `krtt.io/propagation` does not parse, none of its copies is created or
 *   deleted ("nothing created nor deleted", propagate.copy#10).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import {
  type PropagateConfig,
  PropagateDefaults,
  PropagatedFromLabel,
  PropagateFinalizer,
  PropagateLabel,
  PropagationAnnotation,
} from "../../core/propagate/index.ts"
import type { FakeApiServer } from "../apiserver/server.ts"
import { addToManager as addPropagateToManager, type Propagator } from "../fleet/propagate/index.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { parseLabelSelector } from "../kube/selector.ts"
import { scopedCacheFactory } from "../scopedcache/index.ts"
import { FOREIGN_FINALIZER, watchForeignFinalizers } from "./foreignFinalizer.ts"
import { addCluster, removeCluster, startManager, urlOf } from "./multicluster.ts"
import { PropagateSuite } from "./propagate.ts"
import { patchStep, type Scenario, type Step } from "./scenarios.ts"
import type { Suite, SuiteContext } from "./suite.ts"

const TEAM = "team-a"
const SYSTEM = "krtt-system"

/** `krtt propagate`'s flags as a user tunes them (`--retry-interval`, `--cluster-poll-interval`). */
const CONFIG = { retryInterval: 2_000, clusterPollInterval: 2_000 }

/**
 * What `addToManager` answers, as a status page would show it: its two controllers (both kinds by
 * default) and the config given over the defaults; anything else is reported as a violation.
 */
const checkPropagator = (ctx: SuiteContext, p: Propagator) =>
  Effect.sync(() => {
    const names = p.controllers.map((c) => c.name).sort()
    const config = p.config as Partial<PropagateConfig> | undefined
    if (
      names.join(",") !== "propagate-configmaps,propagate-secrets" ||
      config?.retryInterval !== CONFIG.retryInterval ||
      config.clusterPollInterval !== CONFIG.clusterPollInterval ||
      config.clusterTimeout !== PropagateDefaults.clusterTimeout
    )
      ctx.violation(
        `addToManager answered the controllers [${names.join(", ")}] and the config ${JSON.stringify(config)}`,
      )
  })

/** Starts the operator: the propagation added as `runPropagate` adds it, with `CONFIG`. */
const start = (ctx: SuiteContext) =>
  startManager(
    ctx,
    (manager) =>
      Effect.tap(
        addPropagateToManager(manager, ctx.client, { pendingNamespace: SYSTEM, config: CONFIG }),
        (p) => checkPropagator(ctx, p),
      ),
    { cacheFactory: scopedCacheFactory },
  ).pipe(Effect.catch(() => ctx.exit))

/** A labelled source ConfigMap in the team's namespace, with more `metadata`. */
const createSource = (
  name: string,
  what: string,
  metadata: Partial<KubeObject["metadata"]> = {},
  settleMillis = 10_000,
): Step => ({
  name: `source ConfigMap ${TEAM}/${name} created${what}`,
  settleMillis,
  run: ({ mgmt }) =>
    Effect.asVoid(
      mgmt.client().create(Resources.configMaps, {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { namespace: TEAM, name, labels: { [PropagateLabel]: "true", app: "web" }, ...metadata },
        data: { color: "blue" },
      }),
    ),
})

const sourcePatch = (name: string, what: string, body: unknown, settleMillis = 10_000): Step =>
  patchStep(
    `source ConfigMap ${TEAM}/${name} ${what}`,
    settleMillis,
    Resources.configMaps,
    { namespace: TEAM, name },
    body,
  )

/** What the ConfigMap calls of one verb in a workload server answer: late, or refused. */
type Answer =
  | { readonly verb: "create" | "update"; readonly delay: "30 seconds" }
  | { readonly verb: "update"; readonly error: "Forbidden" }

/**
 * The ConfigMap calls of `answer.verb` in the team's namespace of workload server `server` answered
 * late or refused (or, without `answer`, at once again), then `then` in the same instant.
 */
const calls = (server: string, answer: Answer | undefined, then?: Step): Step => ({
  name: `ConfigMap ${answer?.verb ?? "calls"} in ${server} ${answer === undefined ? "answered at once again" : "delay" in answer ? `answered after ${answer.delay}` : "refused (403: a Role that reads, not writes)"}${then === undefined ? "" : `; ${then.name}`}`,
  settleMillis: then?.settleMillis ?? 10_000,
  run: (stage) =>
    Effect.gen(function* () {
      const w = stage.workload(urlOf(server))
      w.clearFaults()
      if (answer !== undefined) w.inject({ resource: "configmaps", namespace: TEAM, ...answer })
      if (then !== undefined) yield* then.run(stage)
    }),
})

/** Someone's ConfigMaps in `server` whose `krtt.io/propagated-from` names no source (no dot, a leading dot). */
const strayLabels = (server: string): Step => ({
  name: `ConfigMaps of someone else in ${server} labelled ${PropagatedFromLabel}: "notes" and ".notes"`,
  settleMillis: 2_000,
  run: ({ workload }) =>
    Effect.forEach(
      [
        ["notes-a", "notes"],
        ["notes-b", ".notes"],
      ],
      ([name, from]) =>
        workload(urlOf(server))
          .client()
          .create(Resources.configMaps, {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: { namespace: TEAM, name, labels: { [PropagatedFromLabel]: from ?? "" } },
            data: { owner: "someone else" },
          }),
      { discard: true },
    ),
})

/**
 * The operator's Secret calls in the team's namespace of `server` refused (403, a Role without
 * Secrets) and a Secret source made; or, `refused: false`, the access given back.
 */
const secretAccess = (server: string, refused: boolean): Step => ({
  name: refused
    ? `the operator's Secret calls in ${TEAM} of ${server} refused (403); Secret source ${TEAM}/creds created`
    : `the operator's Secret calls in ${TEAM} of ${server} allowed again`,
  settleMillis: 15_000,
  run: ({ mgmt, workload }) =>
    Effect.gen(function* () {
      const w = workload(urlOf(server))
      if (!refused) return w.clearFaults()
      w.inject({ resource: "secrets", namespace: TEAM, error: "Forbidden" })
      yield* mgmt.client().create(Resources.secrets, {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { namespace: TEAM, name: "creds", labels: { [PropagateLabel]: "true" } },
        type: "Opaque",
        data: { password: Buffer.from("s3cret").toString("base64") },
      })
    }),
})

/**
 * The operator's next `verb` of `resource` in workload server `server` answered after 5 s (it is
 * carried out then), and `then` in the same instant: what someone does meanwhile comes first.
 */
const nextLate = (server: string, verb: "create" | "delete", resource: string, then: Step): Step => ({
  name: `the operator's next ${resource} ${verb} in ${server} answered after 5 s; ${then.name}`,
  settleMillis: 2_000,
  run: (stage) =>
    Effect.gen(function* () {
      stage.workload(urlOf(server)).inject({ verb, resource, delay: "5 seconds", times: 1 })
      yield* then.run(stage)
    }),
})

/** Someone does `run` in workload server `server` by hand. */
const byHand = (
  server: string,
  what: string,
  run: (c: KubeClientShape) => Effect.Effect<unknown, KubeError>,
  settleMillis = 15_000,
): Step => ({
  name: `${what} in ${server} by hand`,
  settleMillis,
  run: ({ workload }) => Effect.asVoid(run(workload(urlOf(server)).client())),
})

/** Source `name` deleted and, at once, its finalizers stripped by hand (`kubectl patch`, docs/fleet.md "Uninstalling"). */
const deleteAndStrip = (name: string): Step => ({
  name: `source ConfigMap ${TEAM}/${name} deleted and its finalizer stripped by hand`,
  settleMillis: 10_000,
  run: ({ mgmt }) =>
    Effect.gen(function* () {
      const c = mgmt.client()
      yield* c.delete(Resources.configMaps, { namespace: TEAM, name })
      yield* c.patch(
        Resources.configMaps,
        { namespace: TEAM, name },
        mergePatch({ metadata: { finalizers: null } }),
      )
    }),
})

/**
 * The copy of `name` in `server` taken over by someone else (its propagated-from label removed,
 * edited), and the source edited in the same instant (the takeover itself enqueues nothing: the
 * object is no copy any more).
 */
const takeOverCopy = (server: string, name: string): Step => ({
  name: `the copy ${TEAM}/${name} in ${server} taken over by someone else (its ${PropagatedFromLabel} label removed); the source edited`,
  settleMillis: 10_000,
  run: ({ mgmt, workload }) =>
    Effect.gen(function* () {
      const key = { namespace: TEAM, name }
      const body = { metadata: { labels: { [PropagatedFromLabel]: null } }, data: { owner: "someone else" } }
      yield* workload(urlOf(server)).client().patch(Resources.configMaps, key, mergePatch(body))
      yield* mgmt.client().patch(Resources.configMaps, key, mergePatch({ data: { color: "green" } }))
    }),
})

const EAST_ONLY = "krtt.io/cluster-name in (east)"

const MoreScenarios: ReadonlyArray<Scenario> = [
  {
    name: "propagate-warnings",
    description:
      "a source before any cluster; a copy taken over (a Warning) while its cluster leaves, the source released and labelled again once it is back (the Warning again); a selector that does not parse; a cluster whose writes hang: a source deleted with its finalizer stripped by hand meanwhile, made again, its Warning cleared, a 403 on updates, the Warning back; a Secret source where Secrets are refused, then allowed; a copy and a namespace written by hand while the operator's own writes of them are on their way; a source held by another controller's finalizer",
    source:
      "docs/fleet.md: Results on the source (one Warning per cluster and reason, not repeated while it lasts), Targets (a selector that does not parse), Uninstalling (the finalizer removed by hand); table propagate.copy rows 9 and 10",
    steps: [
      createSource("settings", ", before any cluster", {}, 5_000),
      addCluster("east", "east", 10_000),
      strayLabels("east"),
      addCluster("west", "west", 10_000),
      takeOverCopy("west", "settings"),
      removeCluster("west"),
      sourcePatch("settings", "loses all its labels", { metadata: { labels: null } }, 20_000),
      addCluster("west", "west", 10_000),
      sourcePatch(
        "settings",
        "labelled again",
        { metadata: { labels: { [PropagateLabel]: "true" } } },
        20_000,
      ),
      createSource("extra", " with a selector that does not parse", {
        annotations: { [PropagationAnnotation]: "krtt.io/cluster-name in (east" },
      }),
      calls(
        "east",
        { verb: "create", delay: "30 seconds" },
        sourcePatch(
          "extra",
          `given the selector ${EAST_ONLY}`,
          {
            metadata: { annotations: { [PropagationAnnotation]: EAST_ONLY } },
          },
          5_000,
        ),
      ),
      deleteAndStrip("extra"),
      createSource(
        "extra",
        " again, east still slow",
        { annotations: { [PropagationAnnotation]: EAST_ONLY } },
        15_000,
      ),
      calls("east", undefined),
      calls(
        "east",
        { verb: "update", error: "Forbidden" },
        sourcePatch("extra", "edited", { data: { color: "green" } }),
      ),
      calls(
        "east",
        { verb: "update", delay: "30 seconds" },
        sourcePatch("extra", "edited again", { data: { color: "red" } }, 15_000),
      ),
      calls("east", undefined),
      sourcePatch(
        "settings",
        `given another controller's finalizer ${FOREIGN_FINALIZER}`,
        {
          metadata: { finalizers: [PropagateFinalizer, FOREIGN_FINALIZER] },
        },
        5_000,
      ),
      nextLate(
        "east",
        "delete",
        "configmaps",
        sourcePatch("extra", "unlabelled", { metadata: { labels: { [PropagateLabel]: null } } }),
      ),
      byHand("east", `the copy ${TEAM}/extra deleted`, (c) =>
        // Gone already when a perturbed operator was quicker: nothing to do, as `kubectl delete --ignore-not-found`.
        c
          .delete(Resources.configMaps, { namespace: TEAM, name: "extra" })
          .pipe(Effect.catchTag("NotFound", () => Effect.void)),
      ),
      secretAccess("east", true),
      secretAccess("east", false),
      {
        name: `source ConfigMap ${TEAM}/settings deleted (held by ${FOREIGN_FINALIZER})`,
        settleMillis: 20_000,
        run: ({ mgmt }) =>
          Effect.asVoid(mgmt.client().delete(Resources.configMaps, { namespace: TEAM, name: "settings" })),
      },
      nextLate("north", "create", "namespaces", addCluster("north", "north")),
      byHand("north", `namespace ${TEAM} created`, (c) =>
        // There already when a perturbed operator was quicker: as `kubectl apply`, nothing to do.
        c
          .create(Resources.namespaces, { apiVersion: "v1", kind: "Namespace", metadata: { name: TEAM } })
          .pipe(Effect.catchTag("AlreadyExists", () => Effect.void)),
      ),
    ],
  },
]

const KINDS: Readonly<Record<string, string>> = { "/configmaps": "ConfigMap", "/secrets": "Secret" }

/** Whether `selector` is given and does not parse. */
const malformed = (selector: string | undefined) =>
  selector !== undefined && selector.trim() !== "" && parseLabelSelector(selector) === undefined

/** No copy is created or deleted in `server` while its source's selector (in `mgmt`) does not parse. */
export const noCopyWhileMalformed = (
  mgmt: FakeApiServer,
  server: FakeApiServer,
  url: string,
  violations: Array<string>,
): (() => void) =>
  server.onCommit(({ resource, type, object }) => {
    const kind = KINDS[resource]
    const from = object.metadata.labels?.[PropagatedFromLabel]
    if (kind === undefined || from === undefined || type === "MODIFIED") return
    const dot = from.indexOf(".")
    const source = mgmt
      .objects(kind === "Secret" ? Resources.secrets : Resources.configMaps)
      .find((o) => o.metadata.namespace === from.slice(0, dot) && o.metadata.name === from.slice(dot + 1))
    const selector = source?.metadata.annotations?.[PropagationAnnotation]
    if (malformed(selector))
      violations.push(
        `${url}: copy ${object.metadata.namespace}/${object.metadata.name} ${type === "ADDED" ? "created" : "deleted"} while its source's ${PropagationAnnotation} "${selector}" does not parse`,
      )
  })

export const PropagateMoreSuite: Suite = {
  ...PropagateSuite,
  name: "propagate-more",
  scenarios: MoreScenarios,
  start,
  invariants: (mgmt, workloads, violations) => {
    const offs = [
      PropagateSuite.invariants(mgmt, workloads, violations),
      watchForeignFinalizers(mgmt, violations),
    ]
    const watched = new Set<FakeApiServer>()
    // Workload servers appear as the scenario and the operator reach them: look on every hub write.
    offs.push(
      mgmt.onCommit(() => {
        for (const [url, server] of workloads())
          if (!watched.has(server)) {
            watched.add(server)
            offs.push(noCopyWhileMalformed(mgmt, server, url, violations))
          }
      }),
    )
    return () => {
      for (const off of offs) off()
    }
  },
}
