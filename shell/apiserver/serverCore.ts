/**
 * The in-memory API server's state and the steps every call goes through: the store, the
 * injected faults, the outage switch, the garbage collector and the namespace controller;
 * admission (outage, then faults), a call's body and the collection it causes run as one atomic
 * step (`op`), and the create and replace of an object. `controls.ts` adds the test controls and
 * `server.ts` the API (`FakeApiServer`), each a class layer over this one.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { isKubeError, type KubeError, Unreachable } from "../kube/errors.ts"
import {
  type KubeObject,
  type ObjectKey,
  type ResourceRef,
  Resources,
  resourcePath,
} from "../kube/resource.ts"
import { Faults, type FaultTarget, type Verb } from "./faults.ts"
import { GarbageCollector } from "./gc.ts"
import { admitCreate, NamespaceController, prepareNamespace } from "./namespaces.ts"
import { alreadyExists, prepareCreate, prepareReplace, type Served } from "./objects.ts"
import { FakeStore } from "./storage.ts"

/** How an in-memory API server behaves: watch bookmarks, the resources it serves, garbage collection. */
export interface FakeApiServerOptions {
  /** Bookmark period of watches that allow bookmarks; `0` sends none unasked. Default 60 s. */
  readonly bookmarkInterval?: Duration.Input | undefined
  /** Resources known from the start (for discovery and the HTTP adapter). Default: `Resources`. */
  readonly resources?: ReadonlyArray<ResourceRef> | undefined
  /**
   * Owner references cascade (see `gc.ts`) and deletes honour `propagationPolicy`, as with
   * kube-controller-manager running. Default false: like envtest without a controller-manager
   * (and like kube-apiserver with garbage collection off, the policy is then ignored).
   */
  readonly garbageCollection?: boolean | undefined
  /**
   * Namespaces have a lifecycle (see `namespaces.ts`): content needs an existing, active namespace,
   * and deleting a namespace deletes its content first. The server then starts with `default`,
   * `kube-node-lease`, `kube-public` and `kube-system`. Default false: namespaces need not exist.
   */
  readonly namespaceLifecycle?: boolean | undefined
}

/** Whether a call's body answered with an error instead of a result. */

/** The state and the shared steps of `FakeApiServer` (see `server.ts`). */
export abstract class ServerCore {
  protected readonly store = new FakeStore()
  protected readonly faults = new Faults()
  protected readonly bookmarkMillis: number
  protected readonly gc: GarbageCollector | undefined
  protected readonly namespaces: NamespaceController | undefined
  protected up = true

  constructor(options: FakeApiServerOptions) {
    this.bookmarkMillis = Duration.toMillis(
      Duration.fromInputUnsafe(options.bookmarkInterval ?? "60 seconds"),
    )
    for (const ref of options.resources ?? Object.values(Resources)) this.store.register(ref)
    this.gc = options.garbageCollection === true ? new GarbageCollector(this.store) : undefined
    this.namespaces =
      options.namespaceLifecycle === true
        ? new NamespaceController(this.store, { garbageCollection: this.gc !== undefined })
        : undefined
  }

  /** Admission: outage, then injected faults (with their delay). */
  protected admit(target: FaultTarget): Effect.Effect<void, KubeError> {
    return Effect.suspend(() => {
      if (!this.up) {
        return Effect.fail(
          new Unreachable({
            verb: target.verb,
            path: target.path,
            message: "connection refused",
            code: "ECONNREFUSED",
          }),
        )
      }
      const outcome = this.faults.take(target)
      if (outcome === undefined) return Effect.void
      const delay = outcome.delayMillis > 0 ? Effect.sleep(outcome.delayMillis) : Effect.void
      return outcome.error === undefined ? delay : Effect.andThen(delay, Effect.fail(outcome.error))
    })
  }

  /**
   * Admission, then `body` with the current time, then the garbage collector's writes; both run
   * synchronously, so a call and the collection it causes are atomic.
   */
  protected op<A>(target: FaultTarget, body: (now: number) => A | KubeError): Effect.Effect<A, KubeError> {
    return Effect.andThen(
      this.admit(target),
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const result = body(now)
        this.settle(now)
        return isKubeError(result) ? Effect.fail(result) : Effect.succeed(result)
      }),
    )
  }

  /** Runs the collector and the namespace controller until neither has work left. */
  protected settle(now: number): void {
    for (let busy = true; busy; ) {
      this.gc?.drain(now)
      busy = this.namespaces?.drain(now) ?? false
    }
  }

  protected served(
    verb: Verb,
    ref: ResourceRef,
    key: Partial<ObjectKey>,
    sub?: "status",
  ): Served & FaultTarget {
    const namespace = ref.namespaced ? key.namespace : undefined
    return {
      verb,
      ref,
      path: resourcePath(ref, { namespace, name: key.name }, sub),
      resource: ref.resource,
      namespace,
      name: key.name,
      status: sub === "status",
    }
  }

  protected insert<T extends KubeObject>(
    s: Served,
    object: KubeObject,
    now: number,
    dryRun: boolean | undefined,
  ): T | KubeError {
    const ctx = { now, serial: ++this.store.serial, hasStatus: this.store.hasStatus(s.ref) }
    const prepared = prepareCreate(s, object, ctx)
    if (isKubeError(prepared)) return prepared
    const lifecycle = this.namespaces !== undefined
    const refused = lifecycle ? admitCreate(this.store, s, prepared.metadata.namespace) : undefined
    if (refused !== undefined) return refused
    const created =
      lifecycle && s.ref.resource === "namespaces" && s.ref.group === ""
        ? prepareNamespace(prepared)
        : prepared
    if (
      this.store.find(s.ref, { namespace: created.metadata.namespace, name: created.metadata.name ?? "" })
    ) {
      return alreadyExists(s, created.metadata.name ?? "")
    }
    if (dryRun) return this.store.out<T>(s.ref, created)
    return this.store.out<T>(s.ref, this.store.put(s.ref, "ADDED", created, undefined))
  }

  protected replace<T extends KubeObject>(
    s: Served,
    existing: KubeObject,
    proposed: KubeObject,
    options: { readonly dryRun?: boolean | undefined; readonly statusOnly: boolean },
  ): T | KubeError {
    const r = prepareReplace(s, existing, proposed, {
      statusOnly: options.statusOnly,
      hasStatus: this.store.hasStatus(s.ref),
    })
    if (isKubeError(r)) return r
    if (r._tag === "Unchanged" || options.dryRun) return this.store.out<T>(s.ref, r.object)
    return this.store.out<T>(
      s.ref,
      this.store.put(s.ref, r.finalized ? "DELETED" : "MODIFIED", r.object, existing),
    )
  }
}
