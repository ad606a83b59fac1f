/**
 * The Event uid oracle: an Event about an object that exists names that object's uid when it
 * names one, and an Event about an object of a kind the suite says its controller always
 * identifies (`withUid`) names it. A wrong or missing uid ties the Event to another incarnation
 * of the object (kubectl describe, and every Event consumer keyed by uid, would not show it).
 *
 * @module
 */
import type { KubeObject } from "../kube/resource.ts"

/** What an Event says about its object. */
type About = {
  readonly kind?: string
  readonly namespace?: string
  readonly name?: string
  readonly uid?: string
}

/**
 * What is wrong with `event`'s uid, or undefined: `live` finds the object it is about (by kind,
 * namespace and name) as it is now; objects gone are not judged.
 */
export const eventUidWrong = (
  event: KubeObject,
  live: (kind: string, namespace: string, name: string) => KubeObject | undefined,
  withUid: ReadonlySet<string>,
): string | undefined => {
  const about = ((event as KubeObject & { involvedObject?: About }).involvedObject ?? {}) as About
  const kind = about.kind ?? ""
  const object = live(kind, about.namespace ?? "", about.name ?? "")
  if (object === undefined) return undefined
  const where = `${kind} ${about.namespace ?? ""}/${about.name ?? ""}`
  if (about.uid === undefined)
    return withUid.has(kind) ? `Event ${event.metadata.name ?? ""} about ${where} names no uid` : undefined
  return about.uid === object.metadata.uid
    ? undefined
    : `Event ${event.metadata.name ?? ""} about ${where} names uid ${about.uid}, not the object's ${object.metadata.uid ?? ""}`
}
