/**
 * Watch events: the newline-delimited JSON frames of a `?watch=true` response, their types, and
 * how an `ERROR` frame becomes a typed error.
 *
 * @module
 */
import { asStatus, fromStatus, type KubeError, type KubeStatus } from "./errors.ts"
import type { KubeObject } from "./resource.ts"

/** The annotation on the bookmark that ends the initial events of `sendInitialEvents=true`. */
export const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

/** One frame of a watch. `BOOKMARK` objects carry only `metadata.resourceVersion` (and annotations). */
export type WatchEvent<T extends KubeObject = KubeObject> =
  | { readonly type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK"; readonly object: T }
  | { readonly type: "ERROR"; readonly object: KubeStatus }

/** Every type a watch frame can have. */
export type WatchEventType = WatchEvent["type"]

const types: ReadonlySet<string> = new Set(["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"])

/** Parses one line of a watch response; `undefined` for anything that is not a watch frame. */
export const parseWatchLine = (line: string): WatchEvent | undefined => {
  const text = line.trim()
  if (text === "") return undefined
  let frame: unknown
  try {
    frame = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof frame !== "object" || frame === null) return undefined
  const { type, object } = frame as { readonly type?: unknown; readonly object?: unknown }
  if (typeof type !== "string" || !types.has(type) || typeof object !== "object" || object === null) {
    return undefined
  }
  if (type === "ERROR") return { type, object: asStatus(object) ?? { kind: "Status", message: text } }
  const obj = object as KubeObject
  if (typeof obj.metadata !== "object" || obj.metadata === null) return undefined
  return { type: type as "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK", object: obj }
}

/** The typed error an `ERROR` frame stands for (a 410 frame becomes `Gone`). */
export const watchEventError = (
  status: KubeStatus,
  request: { readonly verb: string; readonly path: string },
): KubeError => fromStatus(request, status.code ?? 500, { ...status, kind: "Status" })

/** Whether a bookmark marks the end of the initial events (`sendInitialEvents=true`). */
export const isInitialEventsEnd = (event: WatchEvent): boolean =>
  event.type === "BOOKMARK" && event.object.metadata.annotations?.[InitialEventsEndAnnotation] === "true"
