/**
 * The reflector's loop: list, watch, and ask `step.ts` what to do next, keeping the status that
 * `Reflector.status` reports. The store side is `mirror.ts`.
 *
 * # Expected flow
 * `runLoop` starts in List. `list` reads every page, applies it and marks the reflector synced;
 * `watch` watches from a resourceVersion with bookmarks, applying events, until the server ends
 * it, it fails, or it stays silent for `inactivityTimeout`. Each outcome goes through `step`,
 * which names the next phase and whether to back off first.
 *
 * # Guarantees
 * - A failed list or watch is told to `onError` first; `"stop"` ends the loop with
 *   `status.stopped` and without a log.
 * - The watch's server-side timeout is `watchTimeout` stretched by a random factor in [1, 2), so
 *   that reflectors started together do not reconnect together.
 *
 * @module
 */
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type { KubeClientShape } from "../kube/client.ts"
import { type KubeObject, resourcePath } from "../kube/resource.ts"
import { watchEventError } from "../kube/watch.ts"
import { applyEvent, applyList, type Mirror } from "./mirror.ts"
import { backoffDelay, type ReflectorTiming } from "./options.ts"
import type { ReflectorOptions, ReflectorStatus } from "./reflector.ts"
import { type Outcome, type Phase, step } from "./step.ts"

/** The watch delivered nothing for `inactivityTimeout`. */
class WatchSilentError extends Data.TaggedError("WatchSilentError") {}

/** What the loop holds besides the store side; `make` (reflector.ts) builds it. */
export interface ReflectorState<T extends KubeObject> extends Mirror<T> {
  readonly client: KubeClientShape
  readonly options: ReflectorOptions<T>
  readonly timing: ReflectorTiming
  /** Completed by the first stored list. */
  readonly synced: Deferred.Deferred<void>
  status: ReflectorStatus
}

const millis = (d: Duration.Input) => Duration.toMillis(Duration.fromInputUnsafe(d))

const setStatus = <T extends KubeObject>(s: ReflectorState<T>, patch: Partial<ReflectorStatus>) => {
  s.status = { ...s.status, ...patch }
}

const selectors = <T extends KubeObject>({ options }: ReflectorState<T>) => ({
  namespace: options.namespace,
  labelSelector: options.labelSelector,
  fieldSelector: options.fieldSelector,
})

/** Lists every page, applies it to the store and marks the reflector synced. */
const list = <T extends KubeObject>(s: ReflectorState<T>): Effect.Effect<Outcome> =>
  Effect.gen(function* () {
    setStatus(s, { phase: "Listing", lists: s.status.lists + 1 })
    const result = yield* Effect.result(
      s.client.listAll(s.options.resource, { ...selectors(s), pageSize: s.timing.pageSize }),
    )
    if (Result.isFailure(result)) return { _tag: "ListFailed", error: result.failure } as const
    yield* applyList(s, result.success.items)
    setStatus(s, { resourceVersion: result.success.resourceVersion, synced: true, lastError: undefined })
    yield* Deferred.succeed(s.synced, undefined)
    return { _tag: "Listed", resourceVersion: result.success.resourceVersion } as const
  })

/** Watches from `from` until the watch ends, fails or stays silent; tracks the last resourceVersion. */
const watch = <T extends KubeObject>(s: ReflectorState<T>, from: string): Effect.Effect<Outcome> =>
  Effect.gen(function* () {
    const { resource } = s.options
    const watchPath = resourcePath(resource, { namespace: s.options.namespace })
    let last = from
    let progressed = false
    const timeoutSeconds = Math.floor((millis(s.timing.watchTimeout) / 1000) * (1 + (yield* Random.next)))
    setStatus(s, { phase: "Watching", watches: s.status.watches + 1 })
    const events = s.client
      .watch(resource, {
        ...selectors(s),
        resourceVersion: from === "" ? undefined : from,
        allowWatchBookmarks: true,
        timeoutSeconds,
      })
      .pipe(
        Stream.timeoutOrElse({
          duration: s.timing.inactivityTimeout,
          orElse: () => Stream.fail(new WatchSilentError()),
        }),
      )
    const run = Stream.runForEach(events, (event) => {
      if (event.type === "ERROR")
        return Effect.fail(watchEventError(event.object, { verb: "watch", path: watchPath }))
      progressed = true
      setStatus(s, { lastError: undefined })
      const rv = event.object.metadata.resourceVersion
      if (rv !== undefined && rv !== "") last = rv
      setStatus(s, { resourceVersion: last })
      return event.type === "BOOKMARK" ? Effect.void : applyEvent(s, event.type, event.object)
    })
    const result = yield* Effect.result(run)
    if (Result.isSuccess(result)) return { _tag: "Ended", resourceVersion: last, progressed } as const
    const error = result.failure
    if (error instanceof WatchSilentError) return { _tag: "Silent", resourceVersion: last } as const
    if (error._tag === "Gone") return { _tag: "Expired", progressed } as const
    return { _tag: "Failed", error, resourceVersion: last, progressed } as const
  })

/**
 * Tells a failed list or watch to `onError` and logs it; true when the hook answered `"stop"`
 * (the loop then ends, `status.stopped` set).
 */
const failed = <T extends KubeObject>(
  s: ReflectorState<T>,
  outcome: Extract<Outcome, { readonly _tag: "ListFailed" | "Failed" }>,
): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    setStatus(s, { lastError: outcome.error })
    const verb = outcome._tag === "ListFailed" ? "list" : "watch"
    const { onError } = s.options
    if (onError !== undefined && (yield* onError({ verb, error: outcome.error })) === "stop") {
      setStatus(s, { stopped: true })
      return true
    }
    yield* Effect.logWarning(`reflector: ${outcome._tag === "ListFailed" ? "list" : "watch"} failed`, {
      error: outcome.error._tag,
      message: outcome.error.message,
    })
    return false
  })

/** Lists and watches until the scope closes (or `onError` answers `"stop"`). */
export const runLoop = <T extends KubeObject>(s: ReflectorState<T>): Effect.Effect<void> =>
  Effect.gen(function* () {
    let phase: Phase = { _tag: "List", attempt: 0 }
    while (true) {
      const outcome = phase._tag === "List" ? yield* list(s) : yield* watch(s, phase.resourceVersion)
      const next = step(phase, outcome)
      if (outcome._tag === "ListFailed" || outcome._tag === "Failed") {
        if (yield* failed(s, outcome)) return
      } else {
        yield* Effect.logDebug(`reflector: ${outcome._tag}`, { next: next.next._tag })
      }
      // Stryker disable next-line ConditionalExpression
      if (next.backoffAttempt !== undefined) {
        setStatus(s, { phase: "Waiting" })
        yield* Effect.sleep(backoffDelay(s.timing.backoff, next.backoffAttempt, yield* Random.next))
      }
      phase = next.next
    }
  })
