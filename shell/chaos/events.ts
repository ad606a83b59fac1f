/**
 * The oracle of every Event a run's operator writes, fault-free or perturbed: it must be one a
 * user can read and kube-apiserver would take. Which Events a perturbed run emits is left open (a
 * retry may emit one more); what each says is not.
 *
 * Guarantees: `malformedEvent` names the first rule an Event breaks, or answers `undefined`:
 * - `type` is `Normal` or `Warning`, `reason` is UpperCamelCase (the API's convention), `message`
 *   is not empty;
 * - `involvedObject` names an apiVersion, a kind and a name, and a namespaced one is in the
 *   Event's namespace (kube-apiserver's validation of core/v1 Events);
 * - `reportingComponent` and `source.component` name who reported it.
 *
 * @module
 */
import type { KubeObject } from "../kube/resource.ts"

const REASON = /^[A-Z][A-Za-z0-9]*$/

const text = (v: unknown): string => (typeof v === "string" ? v : "")

/** The first rule the Event `o` breaks, or `undefined`. */
export const malformedEvent = (o: KubeObject): string | undefined => {
  const e = o as KubeObject & Record<string, unknown>
  const about = (e.involvedObject ?? {}) as Record<string, unknown>
  const source = (e.source ?? {}) as Record<string, unknown>
  if (e.type !== "Normal" && e.type !== "Warning")
    return `type "${text(e.type)}" is neither Normal nor Warning`
  if (!REASON.test(text(e.reason))) return `reason "${text(e.reason)}" is not UpperCamelCase`
  if (text(e.message) === "") return "no message"
  for (const field of ["apiVersion", "kind", "name"])
    if (text(about[field]) === "") return `involvedObject has no ${field}`
  const namespace = text(about.namespace)
  if (namespace !== "" && namespace !== text(e.metadata.namespace))
    return `involvedObject's namespace "${namespace}" is not the Event's "${text(e.metadata.namespace)}"`
  if (text(e.reportingComponent) === "" || text(source.component) === "") return "no reporting component"
  return undefined
}

/** What an Event is about, for a message: `<kind> <namespace>/<name>`. */
export const aboutOf = (o: KubeObject): string => {
  const about = ((o as KubeObject & Record<string, unknown>).involvedObject ?? {}) as Record<string, unknown>
  return `${text(about.kind)} ${text(about.namespace)}/${text(about.name)}`
}
