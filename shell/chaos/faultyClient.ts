/**
 * The operator's client in a chaos run: the memory client over one fake API server with the run's
 * perturbations in between (`perturbations.ts`). Every request of the operator goes through
 * `chaosClient`, which counts it, injects the `transient` burst, answers late during `slow`,
 * calls the third party before the `reorder` write, dies after the `crash` write, drops watch
 * events during `drop` and serves lists from the lagging view during `stale`.
 *
 * Expected flow: the run makes one `ChaosState` (`makeChaosState`) and flips its flags between
 * steps; each operator process gets clients made by `chaosClient` with the process's incarnation.
 *
 * Guarantees: a client of an ended process (a crash, or a newer incarnation) never answers again:
 * its requests and watch events hang or are filtered out, as those of a dead process would be.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { errorOfTag, type Fault, type Faults } from "../apiserver/faults.ts"
import type { FakeApiServer } from "../apiserver/server.ts"
import type { KubeClientShape, ListAllOptions, WatchOptions } from "../kube/client.ts"
import { ApiError, type KubeError, Unreachable } from "../kube/errors.ts"
import { type KubeObject, type ObjectList, type ResourceRef, resourcePath } from "../kube/resource.ts"
import { matchesLabelSelector } from "../kube/selector.ts"
import type { WatchEvent } from "../kube/watch.ts"
import { ChaosDefaults, type Fired, noneFired, type TransientKind } from "./perturbations.ts"
import type { WriteTarget } from "./suite.ts"

const WRITES = new Set(["create", "update", "patch", "delete", "updateStatus", "patchStatus"])

/** The operator's view of the state between ticks. */
export interface ChaosState {
  requests: number
  writes: number
  crashed: boolean
  /** Which operator process is alive: requests of an older one never answer. */
  incarnation: number
  dropping: boolean
  /** Requests are answered late (`slow`). */
  slow: boolean
  staleRv: string | undefined
  /** The harness reads through the operator's clients (an oracle): not counted, not perturbed. */
  inspecting: boolean
  /** Ticks of the virtual clock so far. */
  ticks: number
  readonly fired: Fired
}

/** The state of a run before its first request. */
export const makeChaosState = (): ChaosState => ({
  requests: 0,
  writes: 0,
  crashed: false,
  incarnation: 0,
  dropping: false,
  slow: false,
  staleRv: undefined,
  inspecting: false,
  ticks: 0,
  fired: noneFired(),
})

/** Where the run's perturbations hook into a client. */
export interface FaultHooks {
  readonly crashAfterWrite: number | undefined
  readonly transientFrom: number | undefined
  readonly transientKind: TransientKind
  /** Runs before the `n`-th write; what it returns runs once that write is answered (or fails). */
  readonly beforeWrite: (n: number, target: WriteTarget) => Effect.Effect<Effect.Effect<void>>
  readonly faults: Faults
  /** Which lists are served from the lagging view during `stale` (the management server's only). */
  readonly staleReads: (options: ListAllOptions | undefined) => boolean
}

type RequestKey = { readonly namespace?: string | undefined; readonly name?: string | undefined }

/** One request of the operator, answered by `run` unless a perturbation stops it. */
type Guard = <A>(
  verb: string,
  ref: ResourceRef,
  key: RequestKey,
  run: () => Effect.Effect<A, KubeError>,
) => Effect.Effect<A, KubeError>

const transientError = (kind: TransientKind, target: { verb: string; path: string }): KubeError => {
  const fields = { verb: target.verb, path: target.path, message: `injected ${kind}` }
  switch (kind) {
    case "Timeout":
      return errorOfTag("Timeout", target, fields.message)
    case "ServerTimeout":
      return new ApiError({ ...fields, status: 500, reason: "ServerTimeout" })
    case "TooManyRequests":
      return new ApiError({ ...fields, status: 429, reason: "TooManyRequests" })
    case "InternalError":
      return new ApiError({ ...fields, status: 500, reason: "InternalError" })
    case "Conflict":
      return errorOfTag("Conflict", target, fields.message)
    case "AlreadyExists":
      return errorOfTag("AlreadyExists", target, fields.message)
    case "ConnectionReset":
      return new Unreachable({ ...fields, message: "connection reset by peer", code: "ECONNRESET" })
  }
}

/**
 * The burst of one kind: Conflicts answer updates and patches, as a real server sends them, one
 * more in a row than a controller retries in place; the other kinds answer any request (an
 * AlreadyExists only to a create would tell the operator that an object it lacks exists, which no
 * server does).
 */
export const transientFault = (kind: TransientKind): Fault => {
  const error = (t: { verb: string; path: string }) => transientError(kind, t)
  return kind === "Conflict"
    ? { verb: ["update", "patch"], error, times: ChaosDefaults.conflictBurst }
    : { error, times: ChaosDefaults.transientBurst }
}

/** Counts a request; arms the `transient` burst at its request; the injected error, if any. */
const injectTransient = (
  state: ChaosState,
  hooks: FaultHooks,
  verb: string,
  ref: ResourceRef,
  key: RequestKey,
): KubeError | undefined => {
  const n = ++state.requests
  if (hooks.transientFrom !== undefined && n === hooks.transientFrom)
    hooks.faults.add(transientFault(hooks.transientKind))
  const path = resourcePath(ref, { namespace: key.namespace, name: key.name })
  const outcome = hooks.faults.take({
    verb: verb === "updateStatus" ? "update" : verb === "patchStatus" ? "patch" : (verb as "get"),
    path,
    resource: ref.resource,
    namespace: key.namespace,
    name: key.name,
  })
  if (outcome?.error === undefined) return undefined
  state.fired.transient++
  return outcome.error
}

/** The guard of one process's client: requests of a dead process never answer. */
const makeGuard =
  (server: FakeApiServer, state: ChaosState, hooks: FaultHooks, dead: () => boolean): Guard =>
  (verb, ref, key, run) =>
    Effect.suspend(() => {
      if (dead()) return Effect.never
      if (state.inspecting) return run()
      const error = injectTransient(state, hooks, verb, ref, key)
      if (error !== undefined) return Effect.fail(error)
      if (state.slow) state.fired.slow++
      const late = state.slow
      const answer = () => (late ? Effect.andThen(Effect.sleep(ChaosDefaults.slowMillis), run()) : run())
      if (!WRITES.has(verb)) return answer()
      const w = state.writes + 1
      return Effect.flatMap(
        hooks.beforeWrite(w, { server, verb, ref, namespace: key.namespace, name: key.name }),
        (after) =>
          Effect.flatMap(
            Effect.onExit(answer(), () => after),
            (a) => {
              if (dead()) return Effect.never
              state.writes++
              if (hooks.crashAfterWrite === state.writes) {
                state.crashed = true
                state.fired.crash++
                return Effect.never
              }
              return Effect.succeed(a)
            },
          ),
      )
    })

/** During `stale`: the list as the lagging view holds it (filtered as the server would), else undefined. */
const staleList = <T extends KubeObject>(
  server: FakeApiServer,
  state: ChaosState,
  hooks: FaultHooks,
  ref: ResourceRef,
  o: ListAllOptions | undefined,
): ObjectList<T> | undefined => {
  if (state.staleRv === undefined || !hooks.staleReads(o)) return undefined
  const view = server.listAt<T>(ref, state.staleRv)
  if (view === undefined) return undefined
  state.fired.stale++
  return {
    ...view,
    items: view.items.filter(
      (i) =>
        (o?.namespace === undefined || i.metadata.namespace === o.namespace) &&
        matchesLabelSelector(o?.labelSelector, i),
    ),
  }
}

/** Whether a watch event reaches the operator: none of a dead process, none but bookmarks and errors during `drop`. */
const delivered =
  (state: ChaosState, dead: () => boolean) =>
  <T extends KubeObject>(e: WatchEvent<T>): boolean => {
    if (dead()) return false
    if (state.dropping && e.type !== "BOOKMARK" && e.type !== "ERROR") {
      state.fired.drop++
      return false
    }
    return true
  }

/**
 * The operator's client: the memory client over the management server with the perturbations
 * in between. Requests after a crash never answer (the process is gone).
 */
export const chaosClient = (
  base: KubeClientShape,
  server: FakeApiServer,
  state: ChaosState,
  hooks: FaultHooks,
): KubeClientShape => {
  const me = state.incarnation
  const dead = () => state.crashed || state.incarnation !== me
  const guard = makeGuard(server, state, hooks, dead)
  const reaches = delivered(state, dead)
  return {
    ...base,
    get: (ref, key) => guard("get", ref, key, () => base.get(ref, key)),
    getStatus: (ref, key) => guard("get", ref, key, () => base.getStatus(ref, key)),
    list: (ref, o) => guard("list", ref, { namespace: o?.namespace }, () => base.list(ref, o)),
    listAll: <T extends KubeObject>(
      ref: ResourceRef,
      o?: ListAllOptions,
    ): Effect.Effect<ObjectList<T>, KubeError> =>
      guard("list", ref, { namespace: o?.namespace }, () => {
        const stale = staleList<T>(server, state, hooks, ref, o)
        return stale === undefined ? base.listAll<T>(ref, o) : Effect.succeed(stale)
      }),
    create: (ref, obj, o) =>
      guard("create", ref, { namespace: obj.metadata.namespace }, () => base.create(ref, obj, o)),
    update: (ref, obj, o) => guard("update", ref, obj.metadata, () => base.update(ref, obj, o)),
    updateStatus: (ref, obj, o) =>
      guard("updateStatus", ref, obj.metadata, () => base.updateStatus(ref, obj, o)),
    patch: (ref, key, p, o) => guard("patch", ref, key, () => base.patch(ref, key, p, o)),
    patchStatus: (ref, key, p, o) => guard("patchStatus", ref, key, () => base.patchStatus(ref, key, p, o)),
    delete: (ref, key, o) => guard("delete", ref, key, () => base.delete(ref, key, o)),
    watch: <T extends KubeObject>(
      ref: ResourceRef,
      o?: WatchOptions,
    ): Stream.Stream<WatchEvent<T>, KubeError> =>
      Stream.unwrap(
        Effect.map(
          guard("watch", ref, { namespace: o?.namespace }, () => Effect.succeed(base.watch<T>(ref, o))),
          (events) => Stream.filter(events, (e) => reaches(e)),
        ),
      ),
  }
}
