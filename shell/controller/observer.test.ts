// What a controller and its queue tell a `WorkObserver` (shell/workqueue/observer.ts): every
// accepted request, every reconcile's start and end, how each reconcile was booked, and each
// rate-limited retry with its delay: the chaos campaign's work ledger is built on these.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { type BookedOutcome, WorkObserver, type WorkObserverShape } from "../workqueue/observer.ts"
import { HubCluster, makeRequest, type Request } from "../workqueue/request.ts"
import { make } from "./controller.ts"
import { done, type ReconcileResult, requeue, requeueAfter, TerminalError } from "./result.ts"

const recorder = () => {
  const events: Array<string> = []
  const observer: WorkObserverShape = {
    added: (_, r) => events.push(`added ${r.name}`),
    started: (_, r) => events.push(`started ${r.name}`),
    finished: (_, r) => events.push(`finished ${r.name}`),
    booked: (_, r, outcome: BookedOutcome) => events.push(`booked ${r.name} ${outcome}`),
    retried: (_, r, delay) => events.push(`retried ${r.name} ${delay}`),
  }
  return { events, observer }
}

/** Runs `outcomes` (one per attempt) as a controller's reconciles of one request, observed. */
const observe = (outcomes: ReadonlyArray<() => Effect.Effect<ReconcileResult, unknown>>) =>
  Effect.gen(function* () {
    const { events, observer } = recorder()
    let attempt = 0
    const scope = yield* Scope.make()
    const controller = yield* Scope.provide(
      make({
        name: `observed-${Math.random().toString(36).slice(2)}`,
        reconcile: () => (outcomes[attempt++] ?? (() => Effect.succeed(done())))(),
      }),
      scope,
    ).pipe(Effect.provideService(WorkObserver, observer))
    yield* Scope.provide(controller.start, scope)
    const request: Request = makeRequest({ namespace: "ns", name: "a" }, HubCluster)
    yield* controller.enqueue(request)
    for (let i = 0; i < 20; i++) {
      yield* Effect.repeat(Effect.yieldNow, { times: 20 })
      yield* TestClock.adjust("1 second")
    }
    yield* Scope.close(scope, Effect.void as never)
    return events
  })

describe("a controller's WorkObserver", () => {
  it.effect("sees errors retried after 5 and 10 ms, a success booked, and the next error at 5 ms again", () =>
    Effect.gen(function* () {
      const events = yield* observe([
        () => Effect.fail("boom"),
        () => Effect.fail("boom"),
        () => Effect.succeed(requeueAfter("1 second")),
        () => Effect.fail("boom"),
      ])
      assert.deepStrictEqual(events, [
        "added a",
        "started a",
        "finished a",
        "booked a error",
        "retried a 5",
        "added a",
        "started a",
        "finished a",
        "booked a error",
        "retried a 10",
        "added a",
        "started a",
        "finished a",
        "booked a requeue_after",
        "added a",
        "started a",
        "finished a",
        "booked a error",
        "retried a 5",
        "added a",
        "started a",
        "finished a",
        "booked a success",
      ])
    }),
  )

  it.effect("books a requeue as rate-limited and a terminal error as terminal, without a retry", () =>
    Effect.gen(function* () {
      const events = yield* observe([
        () => Effect.succeed(requeue()),
        () => Effect.fail(new TerminalError({ message: "no" })),
      ])
      assert.deepStrictEqual(
        events.filter((e) => e.startsWith("booked") || e.startsWith("retried")),
        ["booked a requeue", "retried a 5", "booked a terminal"],
      )
    }),
  )
})
