// Event Trigger Conditions (seed 000, "Cluster Source Events"), whole results: the spec holds
// which rows send; this holds the exact reasons, in order, and the event the reconciler sends.
import { describe, expect, it } from "vitest"
import { eventReasons, eventsTransition, probeFailureReason } from "./events.ts"

const MIN = 60_000

describe("Event Trigger Conditions, whole results", () => {
  it("words a probe failure as upstream does, with a Go duration", () => {
    expect(probeFailureReason(5 * MIN)).toBe("health probe didn't succeed since more than 5m0s")
    expect(probeFailureReason(90_000)).toBe("health probe didn't succeed since more than 1m30s")
  })

  it("a disconnect alone: exactly the one reason", () => {
    expect(eventReasons(0, undefined, [], { didConnect: false, didDisconnect: true }, 1_000)).toEqual([
      "disconnect",
    ])
  })

  it("a connect alone: exactly the one reason", () => {
    expect(eventReasons(0, undefined, [], { didConnect: true, didDisconnect: false }, 1_000)).toEqual([
      "connect",
    ])
  })

  it("a probe failure alone: exactly its reason, for each duration passed since the last success", () => {
    const none = { didConnect: false, didDisconnect: false }
    expect(eventReasons(0, undefined, [MIN, 5 * MIN], none, 2 * MIN)).toEqual([probeFailureReason(MIN)])
    expect(eventReasons(0, undefined, [MIN, 5 * MIN], none, 6 * MIN)).toEqual([
      probeFailureReason(MIN),
      probeFailureReason(5 * MIN),
    ])
    // not again until a probe succeeds: the last event was sent after the deadline
    expect(eventReasons(0, 2 * MIN, [MIN], none, 3 * MIN)).toBeUndefined()
  })

  it("all of them in one event, connect first", () => {
    expect(
      eventsTransition({
        observed: { lastProbeSuccessTime: 0 },
        desired: { source: "machine", probeFailureDurations: [MIN] },
        trigger: { didConnect: true, didDisconnect: true },
        now: 2 * MIN,
      }),
    ).toEqual({
      actions: [
        { _tag: "SendEvent", source: "machine", reasons: ["connect", "disconnect", probeFailureReason(MIN)] },
      ],
      status: {
        send: true,
        reasons: ["connect", "disconnect", probeFailureReason(MIN)],
        lastEventSentTime: 2 * MIN,
      },
      row: "clustercache.events#1",
    })
  })

  it("no event due: nothing sent, no reasons, the last event time kept (row 4)", () => {
    expect(
      eventsTransition({
        observed: { lastProbeSuccessTime: 0, lastEventSentTime: 5 },
        desired: { source: "machine", probeFailureDurations: [MIN] },
        trigger: { didConnect: false, didDisconnect: false },
        now: 1_000,
      }),
    ).toEqual({
      actions: [],
      status: { send: false, reasons: [], lastEventSentTime: 5 },
      row: "clustercache.events#4",
    })
  })
})
