/**
 * Kubernetes Events (`v1` `Event`), as controllers record them: one new Event per occurrence,
 * named after the object it is about (`<name>.<suffix>`, `generateName`), in that object's
 * namespace (`default` for a cluster-scoped object, where `kubectl describe` looks), with the
 * reporting component and the time. Writing one is best left to {@link recordEvent}.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { KubeClientShape } from "./client.ts"
import type { KubeError } from "./errors.ts"
import { type KubeObject, Resources } from "./resource.ts"

/** The object an Event is about. */
export interface InvolvedObject {
  readonly apiVersion: string
  readonly kind: string
  readonly name: string
  /** Absent for a cluster-scoped object. */
  readonly namespace?: string | undefined
  readonly uid?: string | undefined
}

/** What happened: `Normal` or `Warning`, a CamelCase reason, a sentence. */
export interface EventNote {
  readonly type: "Normal" | "Warning"
  readonly reason: string
  readonly message: string
  /** What the component was doing (the Event's `action`); none when absent. */
  readonly action?: string | undefined
}

/** The Event object for `note` about `involved`, reported by `component` at `now`. */
export const eventObject = (
  involved: InvolvedObject,
  note: EventNote,
  component: string,
  now: Date,
): KubeObject => {
  const time = now.toISOString()
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { namespace: involved.namespace ?? "default", generateName: `${involved.name}.` },
    involvedObject: {
      apiVersion: involved.apiVersion,
      kind: involved.kind,
      name: involved.name,
      ...(involved.namespace === undefined ? {} : { namespace: involved.namespace }),
      ...(involved.uid === undefined ? {} : { uid: involved.uid }),
    },
    type: note.type,
    reason: note.reason,
    message: note.message,
    ...(note.action === undefined ? {} : { action: note.action }),
    source: { component },
    reportingComponent: component,
    firstTimestamp: time,
    lastTimestamp: time,
    count: 1,
  } as KubeObject
}

/** Creates the Event for `note` about `involved`, now. */
export const recordEvent = (
  client: KubeClientShape,
  involved: InvolvedObject,
  note: EventNote,
  component: string,
): Effect.Effect<void, KubeError> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) =>
    Effect.asVoid(client.create(Resources.events, eventObject(involved, note, component, new Date(now)))),
  )

/** The object an Event is about, read from the object itself (`type` gives its apiVersion and kind). */
export const involvedObjectOf = (
  type: { readonly apiVersion: string; readonly kind: string },
  object: KubeObject,
): InvolvedObject => ({
  apiVersion: type.apiVersion,
  kind: type.kind,
  name: object.metadata.name ?? "",
  namespace: object.metadata.namespace,
  uid: object.metadata.uid,
})

/**
 * Creates the Event for `note` about `involved`, now, as a best effort: a refusal is logged at
 * warning level with the reason and the error's tag, and the caller goes on.
 */
export const recordEventOrWarn = (
  client: KubeClientShape,
  involved: InvolvedObject,
  note: EventNote,
  component: string,
): Effect.Effect<void> =>
  recordEvent(client, involved, note, component).pipe(
    Effect.catch((e: KubeError) =>
      Effect.logWarning("an Event was refused").pipe(
        Effect.annotateLogs({ reason: note.reason, error: e._tag }),
      ),
    ),
  )
