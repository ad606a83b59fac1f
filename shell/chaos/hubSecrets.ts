/**
 * A plain reflector on the hub's Secrets of the fleet namespace, as a user builds one with
 * `makeReflector` (no cache, no controller), beside the multi-cluster suite's managers. Its
 * `decode` refuses a Secret without a kubeconfig (kept out of the store, listed as undecodable);
 * one handler logs every change it is told of with the status at that moment, another dies on
 * every deletion (the reflector must log that and go on), and an audit (`reflectorAudit.ts`)
 * holds it to its promises, reporting a broken one as a violation. `onError` logs each failed list
 * or watch with the status, reads the status again a moment later (while the reflector backs
 * off), and answers "stop" to Forbidden (access revoked: its owner reports it), "retry" to
 * anything else. Every `PROBE_MILLIS` a health probe logs the status when it changed and runs
 * the audit. Its inactivity timeout (`INACTIVITY`) is shorter than the API server's bookmark
 * interval (60 s), so a watch that sees no change for that long is restarted as silent, unless
 * the server ended it first (`WATCH_TIMEOUT`). The log
 * is in every run's digest. It runs without the harness's informer observer.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import type { KubeClientShape } from "../kube/client.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { ReflectorObserver } from "../reflector/observer.ts"
import { type EventHandler, make as makeReflector, type Reflector } from "../reflector/reflector.ts"
import { makeReflectorAudit } from "./reflectorAudit.ts"

/** How long a watch of the hub's Secrets may stay without an event or bookmark. */
const INACTIVITY = "45 seconds"
/**
 * The base of each watch's server-side timeout: a watch asks for 40–80 s, so a quiet one ends
 * either way, by the server's timeout (a clean end) when it asked for less than `INACTIVITY`, as
 * silent otherwise.
 */
const WATCH_TIMEOUT = "40 seconds"
/** How often the health probe reads the status. */
const PROBE_MILLIS = 10_000
/** How long after a failure `onError` reads the status again (less than the shortest backoff, 640 ms). */
const AFTER_FAILURE_MILLIS = 100

/** Whether a Secret carries a kubeconfig (what the suite's provider reads). */
export const hasKubeconfig = (o: KubeObject): boolean =>
  typeof (o as { readonly data?: Readonly<Record<string, unknown>> }).data?.kubeconfig === "string"

/** The status fields a log line carries. */
const statusFields = (r: Reflector<KubeObject>) =>
  Effect.map(Effect.all([r.status, r.undecodable]), ([s, undecodable]) => ({
    phase: s.phase,
    synced: s.synced,
    resourceVersion: s.resourceVersion,
    lists: s.lists,
    watches: s.watches,
    lastError: s.lastError?._tag,
    stopped: s.stopped,
    undecodable: [...undecodable.keys()].sort(),
  }))

const logChange =
  (reflector: () => Reflector<KubeObject> | undefined): EventHandler<KubeObject> =>
  (e) =>
    Effect.gen(function* () {
      const r = reflector()
      const status = r === undefined ? undefined : yield* r.status
      yield* Effect.logInfo("hub secrets: a change").pipe(
        Effect.annotateLogs({
          change: e._tag,
          name: e.object.metadata.name,
          ...(e._tag === "Updated" ? { from: e.old.metadata.name } : {}),
          phase: status?.phase,
          lastError: status?.lastError?._tag,
        }),
      )
    })

const dieOnDelete: EventHandler<KubeObject> = (e) =>
  e._tag === "Deleted"
    ? Effect.die(new Error(`a handler that dies on deletions: ${e.object.metadata.name}`))
    : Effect.void

/** Logs the status every `PROBE_MILLIS` when it changed, and runs the audit. */
const probe = (reflector: Reflector<KubeObject>, check: Effect.Effect<void>) => {
  let last = ""
  return Effect.repeat(
    Effect.gen(function* () {
      const fields = yield* statusFields(reflector)
      const line = JSON.stringify(fields)
      if (line !== last) yield* Effect.logInfo("hub secrets: status").pipe(Effect.annotateLogs(fields))
      last = line
      yield* check
    }),
    Schedule.spaced(PROBE_MILLIS),
  )
}

/** Starts the reflector on `client` until the scope closes; a broken promise goes to `violation`. */
export const startHubSecrets = (
  client: KubeClientShape,
  namespace: string,
  violation: (message: string) => void,
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const audit = makeReflectorAudit("chaos-hub-secrets", violation)
    let self: Reflector<KubeObject> | undefined
    const reflector = yield* makeReflector(client, {
      resource: Resources.secrets,
      namespace,
      name: "chaos-hub-secrets",
      inactivityTimeout: INACTIVITY,
      watchTimeout: WATCH_TIMEOUT,
      decode: (o) => (hasKubeconfig(o) ? Result.succeed(o) : Result.fail("no kubeconfig in its data")),
      handlers: [audit.handler, logChange(() => self), dieOnDelete],
      onError: ({ verb, error }) =>
        Effect.gen(function* () {
          const r = self
          if (r === undefined) return "retry" as const
          yield* Effect.logInfo("hub secrets: a request failed").pipe(
            Effect.annotateLogs({
              verb,
              error: error._tag,
              request: `${error.verb} ${error.path}`,
              ...(yield* statusFields(r)),
            }),
          )
          yield* Effect.forkIn(
            Effect.andThen(
              Effect.sleep(AFTER_FAILURE_MILLIS),
              Effect.flatMap(statusFields(r), (fields) =>
                Effect.logInfo("hub secrets: status after a failure").pipe(Effect.annotateLogs(fields)),
              ),
            ),
            scope,
          )
          return error._tag === "Forbidden" ? ("stop" as const) : ("retry" as const)
        }),
    })
    self = reflector
    yield* Effect.logInfo("hub secrets: started").pipe(Effect.annotateLogs(yield* statusFields(reflector)))
    yield* reflector.subscribe((e) =>
      Effect.flatMap(reflector.undecodable, (undecodable) =>
        Effect.logInfo("hub secrets: undecodable").pipe(
          Effect.annotateLogs({
            after: `${e._tag} ${e.object.metadata.name}`,
            keys: [...undecodable.keys()].sort(),
          }),
        ),
      ),
    )
    yield* Effect.forkScoped(probe(reflector, audit.check(reflector)))
  }).pipe(Effect.provideService(ReflectorObserver, undefined))
