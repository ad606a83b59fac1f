/**
 * Event Trigger Conditions for cluster sources (seed 000), transcribed row by row.
 *
 * @module
 */
import type { EventsInput, EventsResult } from "../../core/clustercache/index.ts"
import type { TableSpec } from "../../core/krtt/index.ts"
import { count, rowsFor } from "../builder.ts"

const { doc, derived } = rowsFor<EventsInput, EventsResult, unknown>(["Trigger", "Condition", "Description"])

/** Go's zero time: "never". */
const ZERO = -8_640_000_000_000_000

/** The documented probe-failure condition for one `WatchForProbeFailure` duration. */
const probeFailed = (i: EventsInput, failureDuration: number) => {
  const shouldSendEventTime = (i.observed.lastProbeSuccessTime ?? ZERO) + failureDuration
  return shouldSendEventTime < i.now && (i.observed.lastEventSentTime ?? ZERO) < shouldSendEventTime
}
const anyProbeFailed = (i: EventsInput) => i.desired.probeFailureDurations.some((d) => probeFailed(i, d))

/** One event to this source, sent now, listing `reason` among its reasons. */
const sentOnce = (i: EventsInput, r: EventsResult, reason: (s: string) => boolean) =>
  count(r.actions, "SendEvent") === 1 &&
  r.actions.every((a) => a.source === i.desired.source) &&
  r.status.send &&
  r.status.lastEventSentTime === i.now &&
  r.status.reasons.some(reason)

export const events: TableSpec<EventsInput, EventsResult, unknown> = {
  id: "clustercache.events",
  source: "000_4ff6953847f6de6f.txt",
  title: "Event Trigger Conditions",
  columns: ["Trigger", "Condition", "Description"],
  rows: [
    doc(1, ["Connect", "`didConnect=true`", "Sent immediately after successful `Connect()`"], {
      applies: (i) => i.trigger.didConnect,
      holds: (i, r) => sentOnce(i, r, (s) => s === "connect"),
    }),
    doc(2, ["Disconnect", "`didDisconnect=true`", "Sent immediately after `Disconnect()`"], {
      applies: (i) => i.trigger.didDisconnect,
      holds: (i, r) => sentOnce(i, r, (s) => s === "disconnect"),
    }),
    doc(
      3,
      [
        "Probe Failure Duration",
        "`lastProbeSuccessTime + failureDuration < now` AND `lastEventSentTime < shouldSendEventTime`",
        "Sent when health probes haven't succeeded for the configured `WatchForProbeFailure` duration",
      ],
      {
        applies: anyProbeFailed,
        holds: (i, r) => sentOnce(i, r, (s) => s.startsWith("health probe didn't succeed")),
        reason:
          "`shouldSendEventTime = lastProbeSuccessTime + failureDuration`; a time that never happened counts as Go's zero time, so a cluster never probed successfully gets one event.",
      },
    ),
    derived(4, ["None", "No condition holds", "No event is sent"], {
      applies: (i) => !i.trigger.didConnect && !i.trigger.didDisconnect && !anyProbeFailed(i),
      holds: (i, r) =>
        r.actions.length === 0 &&
        !r.status.send &&
        r.status.lastEventSentTime === i.observed.lastEventSentTime,
      reason: "Gap: the table lists when events are sent; otherwise none is, and the last-sent time stays.",
    }),
  ],
  priority: [1, 2, 3],
  resolutions: [
    "Several conditions can hold at once (a disconnect after probes failed for the duration): the source still gets one event, listing every reason; the first applicable row in table order names the decision.",
  ],
}
