/**
 * Event Trigger Conditions for cluster sources (seed 000, "Cluster Source Events"): whether one
 * source gets an event for one cluster at the end of a reconcile.
 *
 * Guarantees: a source gets exactly one event per connect and per disconnect; a probe-failure
 * event (`WatchForProbeFailure(d)`) is sent once when probes have not succeeded for `d`, and not
 * again until a probe succeeds and fails for `d` anew. One event carries every reason.
 *
 * @module
 */
import { goDuration, type RowId, rowId, type TransitionInput, type TransitionResult } from "../krtt/index.ts"
import type { SendEventAction } from "./actions.ts"
import { NEVER } from "./state.ts"

export const EVENTS = "clustercache.events"

export interface EventsObserved {
  readonly lastProbeSuccessTime?: number | undefined
  /** When this source last got an event for this cluster. */
  readonly lastEventSentTime?: number | undefined
}

export interface EventsDesired {
  /** The source's name (its controller). */
  readonly source: string
  /** `WatchForProbeFailure` durations, ms. */
  readonly probeFailureDurations: ReadonlyArray<number>
}

export interface EventsTrigger {
  readonly didConnect: boolean
  readonly didDisconnect: boolean
}

export interface EventsStatus {
  readonly send: boolean
  readonly reasons: ReadonlyArray<string>
  readonly lastEventSentTime?: number | undefined
}

export type EventsInput = TransitionInput<EventsObserved, EventsDesired, EventsTrigger>
export type EventsResult = TransitionResult<SendEventAction, EventsStatus>

const r = (n: number): RowId => rowId(EVENTS, n)
const ROW = { connect: r(1), disconnect: r(2), probeFailure: r(3), none: r(4) }
const NONE: ReadonlyArray<SendEventAction> = []

/** The probe-failure reason text for a duration, in upstream's words (a Go duration: `5m0s`). */
export const probeFailureReason = (ms: number): string =>
  `health probe didn't succeed since more than ${goDuration(ms)}`

/**
 * The reasons of the event one source gets, or `undefined` when it gets none (row 4): what
 * rows 1-3 decide, without allocating when no event is due (the reconciler asks this for every
 * source at the end of every reconcile).
 */
export const eventReasons = (
  lastProbeSuccessTime: number | undefined,
  lastEventSentTime: number | undefined,
  probeFailureDurations: ReadonlyArray<number>,
  trigger: EventsTrigger,
  now: number,
): Array<string> | undefined => {
  const lastSuccess = lastProbeSuccessTime ?? NEVER
  const lastSent = lastEventSentTime ?? NEVER
  let reasons: Array<string> | undefined
  if (trigger.didConnect) reasons = ["connect"]
  if (trigger.didDisconnect) {
    reasons ??= []
    reasons.push("disconnect")
  }
  for (let k = 0; k < probeFailureDurations.length; k++) {
    const d = probeFailureDurations[k] as number
    const shouldSendEventTime = lastSuccess + d
    if (lastSent < shouldSendEventTime && shouldSendEventTime < now) {
      reasons ??= []
      reasons.push(probeFailureReason(d))
    }
  }
  return reasons
}

/** The event to one source with every reason. */
export const sendEvent = (source: string, reasons: ReadonlyArray<string>): SendEventAction => ({
  _tag: "SendEvent",
  source,
  reasons,
})

/** Event Trigger Conditions as a transition. */
export const eventsTransition = (input: EventsInput): EventsResult => {
  const { observed, desired, trigger, now } = input
  const reasons = eventReasons(
    observed.lastProbeSuccessTime,
    observed.lastEventSentTime,
    desired.probeFailureDurations,
    trigger,
    now,
  )
  if (reasons === undefined) {
    return {
      actions: NONE,
      status: { send: false, reasons: [], lastEventSentTime: observed.lastEventSentTime },
      row: ROW.none,
    }
  }
  // The first reason decides the row: connect (1), else disconnect (2), else a probe failure (3).
  const row = trigger.didConnect ? ROW.connect : trigger.didDisconnect ? ROW.disconnect : ROW.probeFailure
  return {
    actions: [sendEvent(desired.source, reasons)],
    status: { send: true, reasons, lastEventSentTime: now },
    row,
  }
}
