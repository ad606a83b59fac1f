/**
 * An audit of a plain reflector through its public API only, as its user can hold it to its
 * promises (shell/reflector/reflector.ts):
 *
 * - handlers see every change once, in order: `Added` only of what they do not have, `Updated`
 *   and `Deleted` only of what they have (`Updated`'s `old` being what they were told last);
 * - what the handlers were told adds up to the store: checked at moments when no change is being
 *   told (a fresh `subscribe` replays the store under the reflector's lock), so an object the store
 *   dropped on a relist without a `Deleted` shows;
 * - the namespace and owner indexes list exactly the store's objects of each value;
 * - a handler whose subscription's scope has closed is told nothing more.
 *
 * Each broken promise is reported once (`report`), naming the reflector.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import type { KubeObject } from "../kube/resource.ts"
import type { EventHandler, Reflector } from "../reflector/reflector.ts"
import { IndexNames, storeKey } from "../reflector/store.ts"

export interface ReflectorAudit {
  /** Register it from the start (`handlers` of the reflector's options). */
  readonly handler: EventHandler<KubeObject>
  /** Compares what the handlers were told with the store and its indexes, in a fresh subscription. */
  readonly check: (reflector: Reflector<KubeObject>) => Effect.Effect<void>
}

const rvOf = (o: KubeObject): string => o.metadata.resourceVersion ?? ""

/** The audit of reflector `name`, reporting each broken promise once through `report`. */
export const makeReflectorAudit = (name: string, report: (message: string) => void): ReflectorAudit => {
  const seen = new Set<string>()
  const fail = (message: string) => {
    if (seen.has(message)) return
    seen.add(message)
    report(`reflector ${name} ${message}`)
  }
  /** What the handlers were told: key → resourceVersion. */
  const told = new Map<string, string>()
  const handler: EventHandler<KubeObject> = (e) =>
    Effect.sync(() => {
      if (e.object === undefined) return fail(`told its handlers of a ${e._tag} without an object`)
      const key = storeKey(e.object)
      const had = told.get(key)
      if (e._tag === "Added" && had !== undefined) fail(`told its handlers Added of ${key}, which they had`)
      if (e._tag !== "Added" && had === undefined)
        fail(`told its handlers ${e._tag} of ${key}, which they never had`)
      if (e._tag === "Updated" && had !== undefined && had !== rvOf(e.old))
        fail(`told its handlers Updated of ${key} from ${rvOf(e.old)}, not from ${had}`)
      if (e._tag === "Deleted") told.delete(key)
      else told.set(key, rvOf(e.object))
    })
  const check = (reflector: Reflector<KubeObject>) =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const replay = new Map<string, string>()
      let closed = false
      yield* Scope.provide(
        reflector.subscribe((e) =>
          Effect.sync(() => {
            if (closed) fail(`told a handler of ${e._tag} after its subscription's scope closed`)
            else replay.set(storeKey(e.object), rvOf(e.object))
          }),
        ),
        scope,
      )
      for (const [key, rv] of told)
        if (replay.get(key) !== rv)
          fail(`told its handlers of ${key} at ${rv}, its store holds ${replay.get(key)}`)
      for (const key of replay.keys())
        if (!told.has(key)) fail(`holds ${key} in its store, which its handlers were never told of`)
      indexes(reflector, fail)
      closed = true
      const closing = yield* Effect.exit(Scope.close(scope, Exit.void))
      if (Exit.isFailure(closing)) fail("could not close a subscription's scope")
    })
  return { handler, check }
}

/** Whether the namespace and owner indexes list exactly the store's objects of each value. */
const indexes = (reflector: Reflector<KubeObject>, fail: (message: string) => void) => {
  const { store } = reflector
  const objects = store.list()
  const namespaces = new Set(objects.map((o) => o.metadata.namespace ?? ""))
  // A namespace no object is in must list nothing.
  namespaces.add("chaos-audit-no-such-namespace")
  for (const ns of namespaces) {
    const want = objects
      .filter((o) => (o.metadata.namespace ?? "") === ns)
      .map(storeKey)
      .sort()
    const have = store.byNamespace(ns).map(storeKey).sort()
    if (want.join(",") !== have.join(","))
      fail(`lists [${have}] in namespace ${JSON.stringify(ns)}, its store holds [${want}] there`)
  }
  const owners = new Set(objects.flatMap((o) => (o.metadata.ownerReferences ?? []).map((r) => r.uid)))
  const listed = new Set(store.indexValues(IndexNames.owner))
  const [want, have] = [JSON.stringify([...owners].sort()), JSON.stringify([...listed].sort())]
  if (want !== have) fail(`lists owners ${have}, its objects have ${want}`)
  for (const uid of owners) {
    const owned = objects.filter((o) => o.metadata.ownerReferences?.some((r) => r.uid === uid)).map(storeKey)
    if (store.byOwner(uid).map(storeKey).sort().join(",") !== owned.sort().join(","))
      fail(`lists under owner ${uid} other objects than those it owns`)
  }
}
