/**
 * Carries out one action of table `propagate.copy` in a workload cluster, and says what it tells
 * the run (core/krtt/run.ts): `run(action)` of the pair's table.
 *
 * # Expected flow
 * Each write goes to the cluster's client, in the copy's namespace there (`copyNamespace`). A
 * create answered "namespace not found" sends the table the trigger `NamespaceMissing` (row 1
 * creates it); a refusal is an `Outcome.failed`: `Forbidden` is answered by row 7 (`Refused`),
 * anything else by a fresh live observation (the cache may be behind our own write).
 *
 * # Guarantees
 * - Idempotent: a namespace or copy that already exists, a copy already gone, are no refusal.
 * - `SourceEvent` writes nothing here: the source's reconcile records the Events of every
 *   cluster's last answer, once each while they last.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import { Outcome } from "../../../core/krtt/run.ts"
import type { Content, CopyAction, SourceKind } from "../../../core/propagate/index.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import type { KubeError } from "../../kube/errors.ts"
import { Resources } from "../../kube/resource.ts"
import { resourceOf } from "./observe.ts"

/** Why the table of one (source, cluster) pair is asked. */
export type PairTrigger =
  /** Read the copy (from the cache, or from the API server when `live`) and decide. */
  | { readonly _tag: "Observe"; readonly live: boolean }
  /** A create found no namespace: decide again with the namespace missing (row 1). */
  | { readonly _tag: "NamespaceMissing" }
  /** A write was refused for want of permission: decide as forbidden (row 7). */
  | { readonly _tag: "Refused" }

/** What carrying out an action tells the pair's run. */
export type PairOutcome = Outcome<PairTrigger, KubeError>

/** Where the actions go, and what the table's current answer was decided on. */
export interface CopyWriter {
  readonly client: KubeClientShape
  /** The copy's namespace in this cluster for a source namespace (`copyNamespace`). */
  readonly namespaceOf: (sourceNamespace: string) => string
  /** The observed copy's resourceVersion: an update is checked against it. */
  readonly resourceVersion: string | undefined
  /** Whether the answer was decided with the namespace known to be missing. */
  readonly namespaceMissing: boolean
}

/** The object a copy action writes. */
export const objectOf = (
  kind: SourceKind,
  namespace: string,
  name: string,
  content: Content,
  resourceVersion?: string,
) => ({
  apiVersion: "v1",
  kind,
  metadata: {
    namespace,
    name,
    labels: content.labels,
    annotations: content.annotations,
    ...(resourceVersion === undefined ? {} : { resourceVersion }),
  },
  data: content.data,
  ...(Object.keys(content.binaryData).length === 0 ? {} : { binaryData: content.binaryData }),
  ...(content.type === undefined ? {} : { type: content.type }),
})

const ignore = (tag: KubeError["_tag"]) => (e: KubeError) => (e._tag === tag ? Effect.void : Effect.fail(e))

/** The API calls of one action. */
const perform = (writer: CopyWriter, action: CopyAction): Effect.Effect<void, KubeError> => {
  const client = writer.client
  switch (action._tag) {
    case "CreateNamespace": {
      const name = writer.namespaceOf(action.namespace)
      if (name === "") return Effect.void // the logical cluster's own namespace
      const namespace = { apiVersion: "v1", kind: "Namespace", metadata: { name } }
      return client.create(Resources.namespaces, namespace).pipe(Effect.catch(ignore("AlreadyExists")))
    }
    case "CreateCopy":
    case "UpdateCopy":
    case "ReplaceCopy": {
      const resource = resourceOf(action.kind)
      const ns = writer.namespaceOf(action.namespace)
      const create = client.create(resource, objectOf(action.kind, ns, action.name, action.content))
      if (action._tag === "CreateCopy") return Effect.asVoid(create)
      if (action._tag === "UpdateCopy")
        return Effect.asVoid(
          client.update(
            resource,
            objectOf(action.kind, ns, action.name, action.content, writer.resourceVersion),
          ),
        )
      // A Secret's type cannot change in place: delete, then create.
      const remove = client.delete(resource, { namespace: ns, name: action.name })
      return Effect.andThen(remove.pipe(Effect.catch(ignore("NotFound"))), create)
    }
    case "DeleteCopy":
      return client
        .delete(resourceOf(action.kind), {
          namespace: writer.namespaceOf(action.namespace),
          name: action.name,
        })
        .pipe(Effect.catch(ignore("NotFound")))
    case "SourceEvent":
      return Effect.void
  }
}

/** What a refusal of `action` tells the table. */
export const refusal = (writer: CopyWriter, action: CopyAction, e: KubeError): PairOutcome => {
  if (action._tag === "CreateCopy" && e._tag === "NotFound" && !writer.namespaceMissing)
    return Outcome.next<PairTrigger>({ _tag: "NamespaceMissing" })
  if (e._tag === "Forbidden") return Outcome.failed<PairTrigger, KubeError>({ _tag: "Refused" }, e)
  return Outcome.failed<PairTrigger, KubeError>({ _tag: "Observe", live: true }, e)
}

/** Carries out one action of the pair's table in its cluster. */
export const interpret =
  (writer: CopyWriter) =>
  (action: CopyAction): Effect.Effect<PairOutcome> =>
    perform(writer, action).pipe(
      Effect.as<PairOutcome>(Outcome.done),
      Effect.catch((e: KubeError) => Effect.succeed(refusal(writer, action, e))),
    )
