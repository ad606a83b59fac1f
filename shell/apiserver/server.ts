/**
 * `FakeApiServer`: an in-memory Kubernetes API server with the semantics controllers depend on,
 * for fast tests on virtual time (kube-rs's scenario-style mock is the model). docs/apiserver.md
 * lists what it models and how it differs from kube-apiserver.
 *
 * # Guarantees
 * - One global resourceVersion counter (like etcd's revision); every write bumps it, no-op
 *   writes do not.
 * - `update` and patches (and their `/status` forms) with a stale `metadata.resourceVersion` fail
 *   with 409 Conflict; without one an update is unconditional; `create` of an existing name fails
 *   with 409 AlreadyExists.
 * - Lists: unset or `"0"` read the latest state; `resourceVersionMatch: Exact` reads the snapshot
 *   at that revision (410 Gone once compacted); a revision not reached yet is 504 Timeout ("Too
 *   large resource version"); later pages read the first page's snapshot, and a `continue` token
 *   older than the compaction fails with Gone.
 * - Watches replay history after their resourceVersion, then follow live changes; a watch from a
 *   compacted resourceVersion gets an `ERROR` frame with code 410 (as kube-apiserver sends it);
 *   one from a revision not reached yet fails with Timeout.
 * - Watches without a resourceVersion (or at `"0"`) start with the current objects as ADDED; with
 *   `sendInitialEvents` they end the initial batch with the `k8s.io/initial-events-end` bookmark.
 * - Bookmarks every `bookmarkInterval` (default 60 s, kube-apiserver's frequency) on watches that
 *   allow them, and on demand with `bookmark()`; `timeoutSeconds` ends a watch cleanly.
 * - Label selectors on watches turn changes that enter or leave the selection into ADDED/DELETED.
 * - Finalizers: deleting an object with finalizers sets `deletionTimestamp` (a second delete
 *   changes nothing); removing the last finalizer deletes it; no new finalizer may be added while
 *   it is being deleted; `deletionTimestamp` cannot be written.
 * - Status subresource: the main resource ignores `status`, `/status` changes only `status`.
 *   `generation` starts at 1 and grows when anything but metadata and status changes (status
 *   counts for resources registered without the subresource).
 * - Garbage collection (`garbageCollection: true`, see `gc.ts`): owner references cascade in
 *   Background, Foreground and Orphan as kube-controller-manager's collector makes them, each step
 *   a write of its own right after the call that caused it.
 * - Namespace lifecycle (`namespaceLifecycle: true`, see `namespaces.ts`): content needs an
 *   existing, active namespace; deleting a namespace deletes its content, then the namespace.
 * - Fault injection (`inject`), an outage switch (`stop`/`start`/`restart`), forced watch ends
 *   (`closeWatches`, `expireWatches`).
 *
 * # Caveats
 * - No admission but NamespaceLifecycle (with `namespaceLifecycle`; without it namespaces need
 *   not exist and deleting one leaves its content). Without `garbageCollection` owner references do not cascade and `propagationPolicy` is ignored (like
 *   envtest without a controller-manager, or kube-apiserver with garbage collection off).
 * - Server-side apply is a merge patch that may create: no field ownership, `force` is ignored.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type {
  DeleteOptions,
  KubeClientShape,
  ListAllOptions,
  ListOptions,
  PatchOptions,
  RawRequest,
  WatchOptions,
  WriteOptions,
} from "../kube/client.ts"
import { ApiError, Gone, Invalid, type KubeError, NotFound, Timeout, Unreachable } from "../kube/errors.ts"
import { listAllPages } from "../kube/pages.ts"
import type { Patch } from "../kube/patch.ts"
import {
  type KubeObject,
  type ObjectKey,
  type ObjectList,
  type ResourceRef,
  Resources,
  resourcePath,
} from "../kube/resource.ts"
import { matchesFieldSelector, matchesLabelSelector } from "../kube/selector.ts"
import type { WatchEvent } from "../kube/watch.ts"
import { discoveryDocument } from "./discovery.ts"
import { type Fault, Faults, type FaultTarget, type Verb } from "./faults.ts"
import { GarbageCollector } from "./gc.ts"
import {
  admitCreate,
  InitialNamespaces,
  NamespaceController,
  prepareNamespace,
  prepareNamespaceDelete,
} from "./namespaces.ts"
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
  PropagationPolicies,
  patchObject,
  preconditionsFail,
  prepareCreate,
  prepareDelete,
  prepareReplace,
  type Served,
} from "./objects.ts"
import {
  byKey,
  type Change,
  decodeContinue,
  encodeContinue,
  FakeStore,
  groupResource,
  objectKey,
} from "./storage.ts"
import { expiredFrame, watchStream } from "./watch.ts"

/** Options of the in-memory server. */
/** An open watch (`FakeApiServer.openWatches`). */
export interface OpenWatch {
  /** The name of the client that opened it, if it has one. */
  readonly client: string | undefined
  /** `group/resource`. */
  readonly resource: string
  readonly namespace: string | undefined
}

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

const isKubeError = (u: unknown): u is KubeError => u instanceof Error && "_tag" in u && "verb" in u

/** The watch cache's answer to a revision it has not reached: 504 Timeout (retry after 1 s). */
const tooLargeResourceVersion = (s: Served, rv: number, current: number): Timeout | undefined =>
  rv > current
    ? new Timeout({
        verb: s.verb,
        path: s.path,
        message: `Too large resource version: ${rv}, current: ${current}`,
      })
    : undefined

/** An in-memory API server; see the module doc for what it models. */
export class FakeApiServer {
  private readonly store = new FakeStore()
  private readonly faults = new Faults()
  private readonly bookmarkMillis: number
  private readonly gc: GarbageCollector | undefined
  private readonly namespaces: NamespaceController | undefined
  private up = true

  private constructor(options: FakeApiServerOptions) {
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

  /** A new server: empty, or with the initial namespaces under `namespaceLifecycle`. */
  static make(options: FakeApiServerOptions = {}): Effect.Effect<FakeApiServer> {
    return Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.sync(() => {
        const server = new FakeApiServer(options)
        if (server.namespaces !== undefined) {
          for (const name of InitialNamespaces) {
            const s = server.served("create", Resources.namespaces, {})
            server.insert(s, { metadata: { name } }, now, false)
          }
        }
        return server
      }),
    )
  }

  // ---- test controls (synchronous) ------------------------------------------------------------

  /** Makes a resource known; `status: false`: no status subresource (default true, configmaps false). */
  register(ref: ResourceRef, options: { readonly status?: boolean | undefined } = {}): void {
    this.store.register(ref, options)
  }

  /** The resources known to the server (registered or used). */
  resources(): ReadonlyArray<ResourceRef> {
    return this.store.resources()
  }

  /** The known resource of a group and plural (used by the HTTP adapter). */
  lookup(group: string, resource: string): ResourceRef | undefined {
    return this.store.lookup(group, resource)
  }

  /** Makes matching calls fail or answer late (see `Fault`); the first matching fault wins. */
  inject(fault: Fault): void {
    this.faults.add(fault)
  }

  /** Removes every injected fault. */
  clearFaults(): void {
    this.faults.clear()
  }

  /** An outage: every call fails with Unreachable and open watches break off. Data survives. */
  stop(): void {
    this.up = false
    this.store.endWatches(
      (w) =>
        new Unreachable({
          verb: "watch",
          path: w.path,
          message: "connection reset by peer",
          code: "ECONNRESET",
        }),
    )
  }

  /** Ends an outage. */
  start(): void {
    this.up = true
  }

  /** A restart: open watches break off; new calls succeed. */
  restart(): void {
    this.stop()
    this.start()
  }

  /** Whether the server answers. */
  isUp(): boolean {
    return this.up
  }

  /** Forgets history up to `resourceVersion` (default: now); older watches and continue tokens get 410. */
  compact(resourceVersion: number = this.store.rv): void {
    this.store.compact(resourceVersion)
  }

  /** Sends every open watch an `ERROR` 410 frame and ends it (a watch that fell too far behind). */
  expireWatches(): void {
    for (const w of this.store.watchers) Queue.offerUnsafe(w.queue, expiredFrame("too old resource version"))
    this.store.endWatches()
  }

  /** Ends every open watch cleanly, as the server does when `timeoutSeconds` is over. */
  closeWatches(): void {
    this.store.endWatches()
  }

  /** Sends a BOOKMARK with the current resourceVersion to every watch that allows bookmarks. */
  bookmark(): void {
    for (const w of this.store.watchers)
      if (w.bookmarks) Queue.offerUnsafe(w.queue, this.store.bookmarkEvent(w.ref))
  }

  /** The current resourceVersion. */
  resourceVersion(): string {
    return String(this.store.rv)
  }

  /** The open watches, each with its resource, namespace and the name of the client that opened it. */
  openWatches(): ReadonlyArray<OpenWatch> {
    return [...this.store.watchers].map((w) => ({
      client: w.client,
      resource: w.key,
      namespace: w.namespace,
    }))
  }

  /** How many watches are open (on `ref`, when given). */
  watchCount(ref?: ResourceRef): number {
    return [...this.store.watchers].filter((w) => ref === undefined || w.key === groupResource(ref)).length
  }

  /**
   * Calls `listener` synchronously after every committed write, with the object before and after
   * (`old` absent for a create); returns the function that removes it.
   */
  onCommit(
    listener: (change: {
      readonly resource: string
      readonly type: "ADDED" | "MODIFIED" | "DELETED"
      readonly object: KubeObject
      readonly old: KubeObject | undefined
    }) => void,
  ): () => void {
    const l = (c: Change) => listener({ resource: c.key, type: c.type, object: c.object, old: c.old })
    this.store.listeners.add(l)
    return () => {
      this.store.listeners.delete(l)
    }
  }

  /**
   * A stale view: a list of `ref` as it was at `resourceVersion` (what a lagging API server cache
   * serves), or `undefined` when that history was compacted.
   */
  listAt<T extends KubeObject>(ref: ResourceRef, resourceVersion: string): ObjectList<T> | undefined {
    const items = this.store.objectsAt(ref, Number(resourceVersion))
    return items === undefined
      ? undefined
      : { items: items.map((o) => this.store.out<T>(ref, o)), resourceVersion }
  }

  /** A copy of the stored objects of a resource, sorted by key. */
  objects(ref: ResourceRef): ReadonlyArray<KubeObject> {
    return [...this.store.collection(ref).values()].sort(byKey).map((o) => this.store.out(ref, o))
  }

  // ---- internals ------------------------------------------------------------------------------

  /** Admission: outage, then injected faults (with their delay). */
  private admit(target: FaultTarget): Effect.Effect<void, KubeError> {
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
  private op<A>(target: FaultTarget, body: (now: number) => A | KubeError): Effect.Effect<A, KubeError> {
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
  private settle(now: number): void {
    for (let busy = true; busy; ) {
      this.gc?.drain(now)
      busy = this.namespaces?.drain(now) ?? false
    }
  }

  private served(
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

  private insert<T extends KubeObject>(
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

  private replace<T extends KubeObject>(
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

  // ---- the API --------------------------------------------------------------------------------

  /** GET one object (or its `/status`). */
  get<T extends KubeObject>(ref: ResourceRef, key: ObjectKey, sub?: "status"): Effect.Effect<T, KubeError> {
    const s = this.served("get", ref, key, sub)
    return this.op(s, () => {
      const found = this.store.find(ref, key)
      return found === undefined ? notFound(s, key.name) : this.store.out<T>(ref, found)
    })
  }

  /** One page of a list. */
  list<T extends KubeObject>(
    ref: ResourceRef,
    options: ListOptions = {},
  ): Effect.Effect<ObjectList<T>, KubeError> {
    const s = this.served("list", ref, { namespace: options.namespace })
    return this.op(s, () => {
      const at = this.readAt(s, options.resourceVersion, options.resourceVersionMatch)
      if (isKubeError(at)) return at
      let listRv = at.rv
      let source = at.objects
      let after = ""
      if (options.continue) {
        const token = decodeContinue(options.continue)
        if (token === undefined) return badRequest(s, "invalid continue token")
        if (token.rv < this.store.compacted) {
          return new Gone({
            verb: "list",
            path: s.path,
            message:
              "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
          })
        }
        listRv = token.rv
        after = token.after
        // Later pages come from the first page's snapshot, as etcd serves them.
        source = this.store.objectsAt(ref, token.rv) ?? []
      }
      const all = source
        .filter((o) => !ref.namespaced || !options.namespace || o.metadata.namespace === options.namespace)
        .filter(
          (o) =>
            matchesLabelSelector(options.labelSelector, o) && matchesFieldSelector(options.fieldSelector, o),
        )
        .sort(byKey)
        .filter((o) => after === "" || objectKey(o) > after)
      const limit = options.limit !== undefined && options.limit > 0 ? options.limit : all.length
      const page = all.slice(0, limit)
      const last = page[page.length - 1]
      const more = all.length > page.length && last !== undefined
      return {
        items: page.map((o) => this.store.out<T>(ref, o)),
        resourceVersion: String(listRv),
        continue: more ? encodeContinue({ rv: listRv, after: objectKey(last) }) : undefined,
        remainingItemCount: more ? all.length - page.length : undefined,
      }
    })
  }

  /**
   * The objects a list reads, by its `resourceVersion` and `resourceVersionMatch`: unset or `"0"`
   * the latest (the watch cache is never behind here); `Exact` the snapshot at that revision, 410
   * Gone once compacted; a revision the server has not reached is a 504 Timeout ("Too large
   * resource version"), as the watch cache answers after waiting.
   */
  private readAt(
    s: Served,
    resourceVersion: string | undefined,
    match: ListOptions["resourceVersionMatch"],
  ): { readonly rv: number; readonly objects: ReadonlyArray<KubeObject> } | KubeError {
    const latest = () => ({ rv: this.store.rv, objects: [...this.store.collection(s.ref).values()] })
    if (match !== undefined && match !== "Exact" && match !== "NotOlderThan") {
      return invalid(
        s,
        `resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`,
      )
    }
    if (resourceVersion === undefined || resourceVersion === "") {
      return match === undefined
        ? latest()
        : invalid(
            s,
            "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
          )
    }
    if (resourceVersion === "0") {
      return match === "Exact"
        ? invalid(
            s,
            `resourceVersionMatch: Forbidden: resourceVersionMatch "Exact" is forbidden for resourceVersion "0"`,
          )
        : latest()
    }
    const n = Number(resourceVersion)
    if (!Number.isSafeInteger(n) || n < 0) {
      return badRequest(
        s,
        `resourceVersion: Invalid value: "${resourceVersion}": must be a non-negative integer`,
      )
    }
    const tooLarge = tooLargeResourceVersion(s, n, this.store.rv)
    if (tooLarge !== undefined) return tooLarge
    if (match !== "Exact") return latest()
    const objects = this.store.objectsAt(s.ref, n)
    return objects === undefined
      ? new Gone({
          verb: s.verb,
          path: s.path,
          message: "The resourceVersion for the provided list is too old.",
        })
      : { rv: n, objects }
  }

  /** Every page of a list. */
  listAll<T extends KubeObject>(
    ref: ResourceRef,
    options?: ListAllOptions,
  ): Effect.Effect<ObjectList<T>, KubeError> {
    return listAllPages<T>((r, o) => this.list<T>(r, o), ref, options)
  }

  /** POST. */
  create<T extends KubeObject>(
    ref: ResourceRef,
    object: T,
    options: WriteOptions = {},
  ): Effect.Effect<T, KubeError> {
    const s = this.served("create", ref, { namespace: object.metadata?.namespace })
    return this.op(s, (now) => this.insert<T>(s, object, now, options.dryRun))
  }

  /** PUT, or PUT on `/status` with `sub`. */
  update<T extends KubeObject>(
    ref: ResourceRef,
    object: T,
    options: WriteOptions = {},
    sub?: "status",
  ): Effect.Effect<T, KubeError> {
    const key = { namespace: object.metadata.namespace, name: object.metadata.name ?? "" }
    const s = this.served("update", ref, key, sub)
    return this.op(s, () => {
      const existing = this.store.find(ref, key)
      if (existing === undefined || (sub === "status" && !this.store.hasStatus(ref)))
        return notFound(s, key.name)
      return this.replace<T>(s, existing, structuredClone(object), {
        dryRun: options.dryRun,
        statusOnly: sub === "status",
      })
    })
  }

  /** PATCH, or PATCH on `/status` with `sub`. Server-side apply creates a missing object. */
  patch<T extends KubeObject>(
    ref: ResourceRef,
    key: ObjectKey,
    patch: Patch,
    options: PatchOptions = {},
    sub?: "status",
  ): Effect.Effect<T, KubeError> {
    const s = this.served("patch", ref, key, sub)
    return this.op(s, (now) => {
      if (patch.type === "apply" && !options.fieldManager) {
        return badRequest(s, "PATCH requests with apply content type require fieldManager")
      }
      const existing = this.store.find(ref, key)
      if (existing === undefined) {
        if (patch.type !== "apply" || sub === "status") return notFound(s, key.name)
        const body = patch.body as KubeObject
        return this.insert<T>(
          s,
          { ...body, metadata: { ...body.metadata, name: key.name, namespace: key.namespace } },
          now,
          options.dryRun,
        )
      }
      if (sub === "status" && !this.store.hasStatus(ref)) return notFound(s, key.name)
      const proposed = patchObject(s, structuredClone(existing), patch)
      if (isKubeError(proposed)) return proposed
      return this.replace<T>(s, existing, proposed, { dryRun: options.dryRun, statusOnly: sub === "status" })
    })
  }

  /**
   * DELETE: with finalizers it only sets `deletionTimestamp`. With garbage collection on,
   * `propagationPolicy` adds the `orphan` or `foregroundDeletion` finalizer (see `prepareDelete`).
   */
  delete<T extends KubeObject>(
    ref: ResourceRef,
    key: ObjectKey,
    options: DeleteOptions = {},
  ): Effect.Effect<T | undefined, KubeError> {
    const s = this.served("delete", ref, key)
    return this.op(s, (now) => {
      const policy = options.propagationPolicy
      if (policy !== undefined && !PropagationPolicies.includes(policy)) {
        return new Invalid({
          verb: "delete",
          path: s.path,
          message: `DeleteOptions.propagationPolicy: Unsupported value: "${policy}": supported values: "${PropagationPolicies.join('", "')}"`,
        })
      }
      const existing = this.store.find(ref, key)
      if (existing === undefined) return notFound(s, key.name)
      if (preconditionsFail(existing, options.preconditions)) return conflict(s, key.name)
      const d =
        this.namespaces !== undefined && ref.resource === "namespaces" && ref.group === ""
          ? prepareNamespaceDelete(existing, now)
          : prepareDelete(existing, { policy, garbageCollection: this.gc !== undefined, now })
      if (options.dryRun || d._tag === "Unchanged") return this.store.out<T>(ref, existing)
      return d._tag === "Removed"
        ? this.store.out<T>(ref, this.store.put(ref, "DELETED", existing, existing))
        : this.store.out<T>(ref, this.store.put(ref, "MODIFIED", d.object, existing))
    })
  }

  /** A watch (see the module doc for its semantics). */
  watch<T extends KubeObject>(
    ref: ResourceRef,
    options: WatchOptions = {},
    client?: string,
  ): Stream.Stream<WatchEvent<T>, KubeError> {
    return Stream.unwrap(this.openWatch<T>(ref, options, client))
  }

  /**
   * A watch in two steps: admission (outage, faults) as an effect, then the event stream. The
   * HTTP adapter uses it to answer errors with a status before it starts streaming.
   */
  openWatch<T extends KubeObject>(
    ref: ResourceRef,
    options: WatchOptions = {},
    client?: string,
  ): Effect.Effect<Stream.Stream<WatchEvent<T>, KubeError>, KubeError> {
    const s = this.served("watch", ref, { namespace: options.namespace })
    return Effect.andThen(
      this.admit(s),
      Effect.suspend(() => {
        const from = Number(options.resourceVersion ?? "0")
        const tooLarge = Number.isFinite(from) ? tooLargeResourceVersion(s, from, this.store.rv) : undefined
        return tooLarge === undefined
          ? Effect.succeed(
              watchStream<T>(this.store, ref, options, {
                path: s.path,
                bookmarkMillis: this.bookmarkMillis,
                client,
              }),
            )
          : Effect.fail(tooLarge)
      }),
    )
  }

  /** `GET /`. */
  probe(): Effect.Effect<void, KubeError> {
    return this.op({ verb: "probe", path: "/" }, () => undefined)
  }

  /** Discovery documents (`/`, `/api`, `/apis`, `/api/v1`, `/apis/<g>/<v>`, `/version`); others 404. */
  raw(request: RawRequest): Effect.Effect<unknown, KubeError> {
    const verb = request.verb ?? request.method.toLowerCase()
    return this.op({ verb: "discovery", path: request.path }, () => {
      if (request.method !== "GET") {
        return new ApiError({
          verb,
          path: request.path,
          status: 405,
          reason: "MethodNotAllowed",
          message: "only GET is served",
        })
      }
      const doc = discoveryDocument(this.store.resources(), request.path)
      return (
        doc ??
        new NotFound({
          verb,
          path: request.path,
          message: "the server could not find the requested resource",
        })
      )
    })
  }

  /**
   * The server seen through the `KubeClient` shape (no rate limit, no timeout). The watches of a
   * client given a `name` are counted under it (`openWatches`).
   */
  client(name?: string): KubeClientShape {
    return {
      get: (ref, key) => this.get(ref, key),
      list: (ref, o) => this.list(ref, o),
      listAll: (ref, o) => this.listAll(ref, o),
      create: (ref, obj, o) => this.create(ref, obj, o),
      update: (ref, obj, o) => this.update(ref, obj, o),
      patch: (ref, key, p, o) => this.patch(ref, key, p, o),
      delete: (ref, key, o) => this.delete(ref, key, o),
      getStatus: (ref, key) => this.get(ref, key, "status"),
      updateStatus: (ref, obj, o) => this.update(ref, obj, o, "status"),
      patchStatus: (ref, key, p, o) => this.patch(ref, key, p, o, "status"),
      watch: (ref, o) => this.watch(ref, o, name),
      probe: () => this.probe(),
      raw: (r) => this.raw(r),
    }
  }
}
