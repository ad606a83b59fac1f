/**
 * `ReflectorObserver`: an optional witness of a process's reflectors, for checks that each one
 * keeps its promise (the chaos campaign's informer oracle, docs/reliability.md): once nothing
 * changes any more, its store holds what its server holds, its indexes agree with its store and
 * its status says so. A reflector tells it when it starts, with a view of itself, and when its
 * scope closes. Absent by default: then nothing is recorded and nothing changes.
 *
 * Provide it (`Effect.provideService(ReflectorObserver, …)`) around the code that makes the
 * reflectors: each reads it once, when it is made.
 *
 * @module
 */
import * as Context from "effect/Context"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeObject } from "../kube/resource.ts"
import type { ReflectorOptions, ReflectorStatus } from "./reflector.ts"
import type { ReadonlyStore } from "./store.ts"

/** What a witness sees of one running reflector. */
export interface ObservedReflector {
  /** Its name in logs (the resource's plural by default). */
  readonly name: string
  readonly options: ReflectorOptions<KubeObject>
  /** The client it lists and watches with. */
  readonly client: KubeClientShape
  readonly store: ReadonlyStore<KubeObject>
  /** Its status now. */
  readonly status: () => ReflectorStatus
  /** Keys of the objects it keeps out of its store because they do not decode. */
  readonly undecodable: () => ReadonlySet<string>
  /** Decodes an object as the reflector does. */
  readonly decodes: (object: KubeObject) => boolean
}

export interface ReflectorObserverShape {
  /** A reflector started (its loop is forked). */
  readonly started: (reflector: ObservedReflector) => void
  /** Its scope closed: its loop has been interrupted. */
  readonly stopped: (reflector: ObservedReflector) => void
}

/** The witness of the process's reflectors; `undefined` (the default) records nothing. */
export const ReflectorObserver: Context.Reference<ReflectorObserverShape | undefined> = Context.Reference<
  ReflectorObserverShape | undefined
>("krtt/reflector/ReflectorObserver", { defaultValue: () => undefined })
