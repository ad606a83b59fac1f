/**
 * `FakeApiServer`: an in-memory Kubernetes API server with the semantics controllers depend on,
 * for fast tests on virtual time (kube-rs's scenario-style mock is the model).
 *
 * # Guarantees
 * - One global resourceVersion counter (like etcd's revision); every write bumps it.
 * - `update` and patches with a stale `metadata.resourceVersion` fail with 409 Conflict;
 *   `create` of an existing name fails with 409 AlreadyExists.
 * - Watches replay history after their resourceVersion, then follow live changes; a watch from a
 *   compacted resourceVersion gets an `ERROR` frame with code 410 (as kube-apiserver sends it);
 *   a `continue` token older than the compaction fails the list with `Gone`.
 * - Watches without a resourceVersion start with the current objects as ADDED; with
 *   `sendInitialEvents` they end the initial batch with the `k8s.io/initial-events-end` bookmark.
 * - Bookmarks every `bookmarkInterval` (default 60 s, kube-apiserver's frequency) on watches that
 *   allow them, and on demand with `bookmark()`; `timeoutSeconds` ends a watch cleanly.
 * - Label selectors on watches turn changes that enter or leave the selection into ADDED/DELETED.
 * - Finalizers: deleting an object with finalizers sets `deletionTimestamp`; removing the last
 *   finalizer deletes it; no new finalizer may be added while it is being deleted.
 * - Status subresource: the main resource ignores `status`, `/status` changes only `status`.
 *   `generation` starts at 1 and grows when anything but metadata and status changes.
 * - Fault injection (`inject`), an outage switch (`stop`/`start`/`restart`), forced watch ends
 *   (`closeWatches`, `expireWatches`).
 *
 * # Caveats
 * - No garbage collector, no admission, no namespace lifecycle (like envtest without a
 *   controller-manager): owner references do not cascade and namespaces need not exist.
 * - Server-side apply is a merge patch that may create: no field ownership, `force` is ignored.
 * - Later pages of a list show the current objects, not the first page's snapshot.
 *
 * @module
 */
import { Cause, Clock, Duration, Effect, Queue, Stream } from "effect"
import type {
  DeleteOptions,
  KubeClientShape,
  ListAllOptions,
  ListOptions,
  PatchOptions,
  RawRequest,
  WatchOptions,
  WriteOptions,
} from "./client.ts"
import {
  AlreadyExists,
  ApiError,
  Conflict,
  Gone,
  Invalid,
  type KubeError,
  NotFound,
  Unreachable,
} from "./errors.ts"
import { type Change, type Collection, canonicalJson, type Watcher, watchEventFor } from "./fakeStorage.ts"
import { type Fault, Faults, type FaultTarget, type Verb } from "./faults.ts"
import { listAllPages } from "./pages.ts"
import { applyJsonPatch, applyMergePatch, type Patch } from "./patch.ts"
import {
  apiVersionOf,
  groupVersionPath,
  type KubeObject,
  keyOf,
  type ObjectKey,
  type ObjectList,
  type ObjectMeta,
  type ResourceRef,
  Resources,
  resourcePath,
} from "./resource.ts"
import { matchesFieldSelector, matchesLabelSelector } from "./selector.ts"
import { InitialEventsEndAnnotation, type WatchEvent } from "./watch.ts"

/** Options of the in-memory server. */
export interface FakeApiServerOptions {
  /** Bookmark period of watches that allow bookmarks; `0` sends none unasked. Default 60 s. */
  readonly bookmarkInterval?: Duration.Input | undefined
  /** Resources known from the start (for discovery and the HTTP adapter). Default: `Resources`. */
  readonly resources?: ReadonlyArray<ResourceRef> | undefined
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

const groupResource = (ref: Pick<ResourceRef, "group" | "resource">) => `${ref.group}/${ref.resource}`
const clone = <T>(u: T): T => structuredClone(u)
const timestamp = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`
const withoutMetaAndStatus = (o: KubeObject) => {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o
  return rest
}

/** An in-memory API server; see the module doc for what it models. */
export class FakeApiServer {
  private rv = 0
  private compacted = 0
  private uids = 0
  private names = 0
  private up = true
  private readonly collections = new Map<string, Collection>()
  private history: Array<Change> = []
  private readonly watchers = new Set<Watcher>()
  private readonly registry = new Map<string, { ref: ResourceRef; status: boolean }>()
  private readonly faults = new Faults()
  private readonly bookmarkMillis: number

  private constructor(options: FakeApiServerOptions) {
    this.bookmarkMillis = Duration.toMillis(
      Duration.fromInputUnsafe(options.bookmarkInterval ?? "60 seconds"),
    )
    for (const ref of options.resources ?? Object.values(Resources)) this.register(ref)
  }

  /** A new, empty server. */
  static make(options: FakeApiServerOptions = {}): Effect.Effect<FakeApiServer> {
    return Effect.sync(() => new FakeApiServer(options))
  }

  // ---- test controls --------------------------------------------------------------------------

  /** Makes a resource known; `status: false` means it has no status subresource (default true). */
  register(ref: ResourceRef, options: { readonly status?: boolean } = {}): void {
    const key = groupResource(ref)
    const status = options.status ?? this.registry.get(key)?.status ?? ref.resource !== "configmaps"
    this.registry.set(key, { ref, status })
  }

  /** The resources known to the server (registered or used). */
  resources(): ReadonlyArray<ResourceRef> {
    return [...this.registry.values()].map((r) => r.ref)
  }

  /** Makes matching calls fail or answer late (see `Fault`). */
  inject(fault: Fault): void {
    this.faults.add(fault)
  }

  /** Removes every injected fault. */
  clearFaults(): void {
    this.faults.clear()
  }

  /** An outage: every call fails with Unreachable and every open watch breaks off. Data survives. */
  stop(): void {
    this.up = false
    this.endWatches(
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

  /** A restart: open watches break off, new calls succeed. */
  restart(): void {
    this.stop()
    this.start()
  }

  /** Whether the server answers. */
  isUp(): boolean {
    return this.up
  }

  /** Forgets history up to `resourceVersion` (default: now); older watches and continue tokens get 410. */
  compact(resourceVersion: number = this.rv): void {
    this.compacted = Math.max(this.compacted, resourceVersion)
    this.history = this.history.filter((c) => c.rv > this.compacted)
  }

  /** Sends every open watch an `ERROR` 410 frame and ends it (a watch that fell too far behind). */
  expireWatches(): void {
    for (const w of [...this.watchers]) {
      Queue.offerUnsafe(w.queue, {
        type: "ERROR",
        object: {
          kind: "Status",
          status: "Failure",
          code: 410,
          reason: "Expired",
          message: "too old resource version",
        },
      })
    }
    this.endWatches()
  }

  /** Ends every open watch cleanly, as the server does when `timeoutSeconds` is over. */
  closeWatches(): void {
    this.endWatches()
  }

  /** Sends a BOOKMARK with the current resourceVersion to every watch that allows bookmarks. */
  bookmark(): void {
    for (const w of this.watchers) if (w.bookmarks) Queue.offerUnsafe(w.queue, this.bookmarkEvent(w.ref))
  }

  /** The current resourceVersion. */
  resourceVersion(): string {
    return String(this.rv)
  }

  /** How many watches are open (on `ref`, when given). */
  watchCount(ref?: ResourceRef): number {
    return [...this.watchers].filter((w) => ref === undefined || w.key === groupResource(ref)).length
  }

  /** A copy of the stored objects of a resource, sorted by key. */
  objects(ref: ResourceRef): ReadonlyArray<KubeObject> {
    return [...this.collection(ref).values()].sort(byKey).map((o) => this.out(ref, o))
  }

  // ---- internals ------------------------------------------------------------------------------

  private collection(ref: ResourceRef): Collection {
    const key = groupResource(ref)
    if (!this.registry.has(key)) this.register(ref)
    let c = this.collections.get(key)
    if (c === undefined) {
      c = new Map()
      this.collections.set(key, c)
    }
    return c
  }

  private hasStatus(ref: ResourceRef): boolean {
    return this.registry.get(groupResource(ref))?.status ?? true
  }

  private out<T extends KubeObject>(ref: ResourceRef, o: KubeObject): T {
    return clone({ ...o, apiVersion: apiVersionOf(ref), kind: ref.kind }) as T
  }

  private bookmarkEvent(ref: ResourceRef, annotations?: Record<string, string>): WatchEvent {
    const metadata: ObjectMeta = { resourceVersion: String(this.rv), ...(annotations ? { annotations } : {}) }
    return { type: "BOOKMARK", object: { apiVersion: apiVersionOf(ref), kind: ref.kind, metadata } }
  }

  private endWatches(error?: (w: Watcher) => KubeError): void {
    for (const w of [...this.watchers]) {
      this.watchers.delete(w)
      if (error) Queue.failCauseUnsafe(w.queue, Cause.fail(error(w)))
      else Queue.endUnsafe(w.queue)
    }
  }

  /** Admission: outage, then injected faults (with their delay). */
  private admit(target: FaultTarget): Effect.Effect<void, KubeError> {
    return Effect.suspend(() => {
      const request = { verb: target.verb, path: target.path }
      if (!this.up) {
        return Effect.fail(
          new Unreachable({ ...request, message: "connection refused", code: "ECONNREFUSED" }),
        )
      }
      const outcome = this.faults.take(target)
      if (outcome === undefined) return Effect.void
      const delay = outcome.delayMillis > 0 ? Effect.sleep(outcome.delayMillis) : Effect.void
      return outcome.error === undefined ? delay : Effect.andThen(delay, Effect.fail(outcome.error))
    })
  }

  /** Runs `body` after admission with the current time; `body` runs synchronously (atomically). */
  private op<A>(target: FaultTarget, body: (now: number) => A | KubeError): Effect.Effect<A, KubeError> {
    return Effect.gen({ self: this }, function* () {
      yield* this.admit(target)
      const now = yield* Clock.currentTimeMillis
      const result = body(now)
      if (result instanceof Error && "_tag" in result && "verb" in result)
        return yield* Effect.fail(result as KubeError)
      return result as A
    })
  }

  private target(
    verb: Verb,
    ref: ResourceRef,
    key: { namespace?: string | undefined; name?: string | undefined },
    sub?: string,
  ): FaultTarget {
    const namespace = ref.namespaced ? key.namespace : undefined
    return {
      verb,
      path: resourcePath(ref, { namespace, name: key.name }, sub),
      resource: ref.resource,
      namespace,
      name: key.name,
      status: sub === "status",
    }
  }

  private next(): string {
    this.rv += 1
    return String(this.rv)
  }

  /** Stores `obj` (or removes it) and tells the watchers. */
  private commit(ref: ResourceRef, type: Change["type"], obj: KubeObject, old: KubeObject | undefined): void {
    const c = this.collection(ref)
    const k = keyOf({ namespace: obj.metadata.namespace, name: obj.metadata.name ?? "" })
    if (type === "DELETED") c.delete(k)
    else c.set(k, obj)
    const change: Change = { rv: this.rv, key: groupResource(ref), type, object: obj, old }
    this.history.push(change)
    for (const w of this.watchers) {
      const event = watchEventFor(w, change)
      if (event !== undefined) Queue.offerUnsafe(w.queue, { type: event, object: this.out(ref, obj) })
    }
  }

  private notFound(target: FaultTarget, ref: ResourceRef, name: string): NotFound {
    return new NotFound({
      verb: target.verb,
      path: target.path,
      message: `${ref.resource} "${name}" not found`,
    })
  }

  private conflict(target: FaultTarget, ref: ResourceRef, name: string): Conflict {
    return new Conflict({
      verb: target.verb,
      path: target.path,
      message: `Operation cannot be fulfilled on ${ref.resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    })
  }

  /**
   * Replaces `existing` with `next` as a main-resource write (status kept, identity kept,
   * generation bumped on change, finalizer rules, deletion once the last finalizer is gone).
   */
  private write(
    target: FaultTarget,
    ref: ResourceRef,
    existing: KubeObject,
    proposed: KubeObject,
    options: { readonly dryRun?: boolean | undefined; readonly statusOnly?: boolean },
  ): KubeObject | KubeError {
    const name = existing.metadata.name ?? ""
    const rv = proposed.metadata.resourceVersion
    if (rv !== undefined && rv !== "" && rv !== existing.metadata.resourceVersion)
      return this.conflict(target, ref, name)
    const next: Mutable<KubeObject> = options.statusOnly
      ? { ...existing, status: proposed.status }
      : { ...proposed, metadata: { ...proposed.metadata } }
    if (!options.statusOnly && this.hasStatus(ref)) {
      if (existing.status === undefined) delete next.status
      else next.status = existing.status
    }
    const meta: Mutable<ObjectMeta> = { ...next.metadata }
    for (const f of [
      "name",
      "namespace",
      "uid",
      "creationTimestamp",
      "deletionTimestamp",
      "deletionGracePeriodSeconds",
      "generation",
    ] as const) {
      if (existing.metadata[f] === undefined) delete meta[f]
      else meta[f] = existing.metadata[f] as never
    }
    meta.resourceVersion = existing.metadata.resourceVersion
    const oldFinalizers = existing.metadata.finalizers ?? []
    if (
      existing.metadata.deletionTimestamp !== undefined &&
      (meta.finalizers ?? []).some((f) => !oldFinalizers.includes(f))
    ) {
      return new Invalid({
        verb: target.verb,
        path: target.path,
        message: `${ref.resource} "${name}" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted`,
      })
    }
    next.metadata = meta
    if (canonicalJson(next) === canonicalJson(existing)) return this.out(ref, existing)
    if (canonicalJson(withoutMetaAndStatus(next)) !== canonicalJson(withoutMetaAndStatus(existing))) {
      meta.generation = (existing.metadata.generation ?? 0) + 1
    }
    if (options.dryRun) return this.out(ref, next)
    meta.resourceVersion = this.next()
    const gone = meta.deletionTimestamp !== undefined && (meta.finalizers ?? []).length === 0
    this.commit(ref, gone ? "DELETED" : "MODIFIED", next, existing)
    return this.out(ref, next)
  }

  private find(ref: ResourceRef, key: ObjectKey): KubeObject | undefined {
    return this.collection(ref).get(
      keyOf({ namespace: ref.namespaced ? key.namespace : undefined, name: key.name }),
    )
  }

  private createNow(
    target: FaultTarget,
    ref: ResourceRef,
    object: KubeObject,
    now: number,
    options: WriteOptions,
  ): KubeObject | KubeError {
    const err = (message: string) => new Invalid({ verb: target.verb, path: target.path, message })
    const meta = object.metadata ?? {}
    const name =
      meta.name ||
      (meta.generateName ? `${meta.generateName}${(++this.names).toString(36).padStart(5, "x")}` : undefined)
    if (name === undefined)
      return err(
        `${ref.resource} is invalid: metadata.name: Required value: name or generateName is required`,
      )
    const namespace = ref.namespaced ? meta.namespace : undefined
    if (ref.namespaced && !namespace)
      return err(`${ref.resource} "${name}" is invalid: metadata.namespace: Required value`)
    if (this.find(ref, { namespace, name }) !== undefined) {
      return new AlreadyExists({
        verb: target.verb,
        path: target.path,
        message: `${ref.resource} "${name}" already exists`,
      })
    }
    const created: Mutable<KubeObject> = clone({ ...object })
    if (this.hasStatus(ref)) delete created.status
    const m: Mutable<ObjectMeta> = {
      ...meta,
      name,
      uid: `fake-uid-${++this.uids}`,
      generation: 1,
      creationTimestamp: timestamp(now),
    }
    if (namespace === undefined) delete m.namespace
    else m.namespace = namespace
    delete m.deletionTimestamp
    delete m.deletionGracePeriodSeconds
    created.metadata = m
    if (options.dryRun) return this.out(ref, created)
    m.resourceVersion = this.next()
    this.commit(ref, "ADDED", created, undefined)
    return this.out(ref, created)
  }

  private patched(target: FaultTarget, existing: KubeObject, patch: Patch): KubeObject | KubeError {
    if (patch.type !== "json") return applyMergePatch(existing, patch.body) as KubeObject
    try {
      return applyJsonPatch(existing, patch.body) as KubeObject
    } catch (e) {
      return new Invalid({
        verb: target.verb,
        path: target.path,
        message: e instanceof Error ? e.message : String(e),
      })
    }
  }

  // ---- the API --------------------------------------------------------------------------------

  /** GET one object. */
  get<T extends KubeObject>(ref: ResourceRef, key: ObjectKey, sub?: "status"): Effect.Effect<T, KubeError> {
    const target = this.target("get", ref, key, sub)
    return this.op(target, () => {
      const found = this.find(ref, key)
      return found === undefined ? this.notFound(target, ref, key.name) : this.out<T>(ref, found)
    })
  }

  /** One page of a list. */
  list<T extends KubeObject>(
    ref: ResourceRef,
    options: ListOptions = {},
  ): Effect.Effect<ObjectList<T>, KubeError> {
    const target = this.target("list", ref, { namespace: options.namespace })
    return this.op(target, () => {
      let listRv = this.rv
      let after = ""
      if (options.continue) {
        const token = decodeContinue(options.continue)
        if (token === undefined)
          return new ApiError({
            verb: "list",
            path: target.path,
            status: 400,
            reason: "BadRequest",
            message: "invalid continue token",
          })
        if (token.rv < this.compacted) {
          return new Gone({
            verb: "list",
            path: target.path,
            message:
              "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
          })
        }
        listRv = token.rv
        after = token.after
      }
      const all = [...this.collection(ref).values()]
        .filter((o) => !ref.namespaced || !options.namespace || o.metadata.namespace === options.namespace)
        .filter(
          (o) =>
            matchesLabelSelector(options.labelSelector, o) && matchesFieldSelector(options.fieldSelector, o),
        )
        .sort(byKey)
        .filter((o) => after === "" || objectKey(o) > after)
      const limit = options.limit !== undefined && options.limit > 0 ? options.limit : all.length
      const page = all.slice(0, limit)
      const more = all.length > page.length
      const last = page[page.length - 1]
      return {
        items: page.map((o) => this.out<T>(ref, o)),
        resourceVersion: String(listRv),
        continue: more && last ? encodeContinue({ rv: listRv, after: objectKey(last) }) : undefined,
        remainingItemCount: more ? all.length - page.length : undefined,
      }
    })
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
    const target = this.target("create", ref, { namespace: object.metadata?.namespace })
    return this.op(target, (now) => this.createNow(target, ref, object, now, options) as T)
  }

  /** PUT, or PUT on `/status` with `sub`. */
  update<T extends KubeObject>(
    ref: ResourceRef,
    object: T,
    options: WriteOptions = {},
    sub?: "status",
  ): Effect.Effect<T, KubeError> {
    const key = { namespace: object.metadata.namespace, name: object.metadata.name ?? "" }
    const target = this.target("update", ref, key, sub)
    return this.op(target, () => {
      const existing = this.find(ref, key)
      if (existing === undefined) return this.notFound(target, ref, key.name)
      if (sub === "status" && !this.hasStatus(ref)) return this.notFound(target, ref, key.name)
      return this.write(target, ref, existing, clone(object), {
        dryRun: options.dryRun,
        statusOnly: sub === "status",
      }) as T
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
    const target = this.target("patch", ref, key, sub)
    return this.op(target, (now) => {
      if (patch.type === "apply" && !options.fieldManager) {
        return new ApiError({
          verb: "patch",
          path: target.path,
          status: 400,
          reason: "BadRequest",
          message: "PATCH requests with apply content type require fieldManager",
        })
      }
      const existing = this.find(ref, key)
      if (existing === undefined) {
        if (patch.type !== "apply" || sub === "status") return this.notFound(target, ref, key.name)
        const body = patch.body as KubeObject
        const metadata = { ...body.metadata, name: key.name, namespace: key.namespace }
        return this.createNow(target, ref, { ...body, metadata }, now, options) as T
      }
      if (sub === "status" && !this.hasStatus(ref)) return this.notFound(target, ref, key.name)
      const proposed = this.patched(target, clone(existing), patch)
      if (proposed instanceof Error) return proposed as KubeError
      return this.write(target, ref, existing, proposed, {
        dryRun: options.dryRun,
        statusOnly: sub === "status",
      }) as T
    })
  }

  /** DELETE: finalizers turn it into setting `deletionTimestamp`. */
  delete<T extends KubeObject>(
    ref: ResourceRef,
    key: ObjectKey,
    options: DeleteOptions = {},
  ): Effect.Effect<T | undefined, KubeError> {
    const target = this.target("delete", ref, key)
    return this.op(target, (now) => {
      const existing = this.find(ref, key)
      if (existing === undefined) return this.notFound(target, ref, key.name)
      const pre = options.preconditions
      if (
        (pre?.uid && pre.uid !== existing.metadata.uid) ||
        (pre?.resourceVersion && pre.resourceVersion !== existing.metadata.resourceVersion)
      ) {
        return this.conflict(target, ref, key.name)
      }
      if (options.dryRun) return this.out<T>(ref, existing)
      if ((existing.metadata.finalizers ?? []).length > 0) {
        if (existing.metadata.deletionTimestamp !== undefined) return this.out<T>(ref, existing)
        const metadata = {
          ...existing.metadata,
          deletionTimestamp: timestamp(now),
          deletionGracePeriodSeconds: 0,
          resourceVersion: this.next(),
        }
        const next = { ...existing, metadata }
        this.commit(ref, "MODIFIED", next, existing)
        return this.out<T>(ref, next)
      }
      const gone = { ...existing, metadata: { ...existing.metadata, resourceVersion: this.next() } }
      this.commit(ref, "DELETED", gone, existing)
      return this.out<T>(ref, gone)
    })
  }

  /** A watch (see the module doc for its semantics). */
  watch<T extends KubeObject>(
    ref: ResourceRef,
    options: WatchOptions = {},
  ): Stream.Stream<WatchEvent<T>, KubeError> {
    const target = this.target("watch", ref, { namespace: options.namespace })
    return Stream.callback<WatchEvent<T>, KubeError>((queue) =>
      Effect.gen({ self: this }, function* () {
        yield* this.admit(target)
        const watcher: Watcher = {
          ref,
          key: groupResource(ref),
          path: target.path,
          namespace: ref.namespaced ? options.namespace : undefined,
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          bookmarks: options.allowWatchBookmarks === true,
          queue: queue as Queue.Queue<WatchEvent, KubeError | Cause.Done>,
        }
        const from = options.resourceVersion
        if (from !== undefined && from !== "" && from !== "0") {
          const n = Number(from)
          if (!Number.isFinite(n) || n < this.compacted) {
            Queue.offerUnsafe(queue, {
              type: "ERROR",
              object: {
                kind: "Status",
                status: "Failure",
                code: 410,
                reason: "Expired",
                message: `too old resource version: ${from} (${this.compacted})`,
              },
            })
            return yield* Queue.end(queue)
          }
          for (const change of this.history) {
            if (change.rv <= n) continue
            const type = watchEventFor(watcher, change)
            if (type !== undefined)
              Queue.offerUnsafe(queue, { type, object: this.out<T>(ref, change.object) })
          }
        } else {
          for (const o of [...this.collection(ref).values()].sort(byKey)) {
            if (
              watchEventFor(watcher, {
                rv: this.rv,
                key: watcher.key,
                type: "ADDED",
                object: o,
                old: undefined,
              })
            ) {
              Queue.offerUnsafe(queue, { type: "ADDED", object: this.out<T>(ref, o) })
            }
          }
          if (options.sendInitialEvents) {
            Queue.offerUnsafe(
              queue,
              this.bookmarkEvent(ref, { [InitialEventsEndAnnotation]: "true" }) as WatchEvent<T>,
            )
          }
        }
        this.watchers.add(watcher)
        yield* Effect.addFinalizer(() => Effect.sync(() => this.watchers.delete(watcher)))
        const ticks =
          watcher.bookmarks && this.bookmarkMillis > 0
            ? Effect.forever(
                Effect.andThen(
                  Effect.sleep(this.bookmarkMillis),
                  Effect.sync(() => Queue.offerUnsafe(queue, this.bookmarkEvent(ref) as WatchEvent<T>)),
                ),
              )
            : Effect.never
        const deadline =
          options.timeoutSeconds !== undefined && options.timeoutSeconds > 0
            ? Effect.andThen(
                Effect.sleep(options.timeoutSeconds * 1000),
                Effect.sync(() => {
                  this.watchers.delete(watcher)
                  Queue.endUnsafe(queue)
                }),
              )
            : Effect.never
        yield* Effect.raceFirst(ticks, deadline)
      }),
    )
  }

  /** `GET /`. */
  probe(): Effect.Effect<void, KubeError> {
    return this.op({ verb: "probe", path: "/" }, () => undefined)
  }

  /** Discovery documents (`/`, `/api`, `/apis`, `/api/v1`, `/apis/<g>/<v>`, `/version`); others 404. */
  raw(request: RawRequest): Effect.Effect<unknown, KubeError> {
    const target: FaultTarget = { verb: "discovery", path: request.path }
    return this.op(target, () => {
      if (request.method !== "GET")
        return new ApiError({
          verb: request.method.toLowerCase(),
          path: request.path,
          status: 405,
          reason: "MethodNotAllowed",
          message: "the fake API server answers only GET for raw requests",
        })
      return (
        discovery(this.resources(), request.path) ??
        new NotFound({
          verb: "get",
          path: request.path,
          message: "the server could not find the requested resource",
        })
      )
    })
  }

  /** The server seen through the `KubeClient` shape (no rate limit, no timeout). */
  client(): KubeClientShape {
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
      watch: (ref, o) => this.watch(ref, o),
      probe: () => this.probe(),
      raw: (r) => this.raw(r),
    }
  }
}

const objectKey = (o: KubeObject) => keyOf({ namespace: o.metadata.namespace, name: o.metadata.name ?? "" })
const byKey = (a: KubeObject, b: KubeObject) =>
  objectKey(a) < objectKey(b) ? -1 : objectKey(a) > objectKey(b) ? 1 : 0

const encodeContinue = (token: { readonly rv: number; readonly after: string }) =>
  Buffer.from(JSON.stringify(token)).toString("base64url")

const decodeContinue = (s: string): { readonly rv: number; readonly after: string } | undefined => {
  try {
    const t = JSON.parse(Buffer.from(s, "base64url").toString("utf8")) as { rv?: unknown; after?: unknown }
    return typeof t.rv === "number" && typeof t.after === "string" ? { rv: t.rv, after: t.after } : undefined
  } catch {
    return undefined
  }
}

/** The discovery document for `path`, or undefined. */
const discovery = (resources: ReadonlyArray<ResourceRef>, path: string): unknown => {
  const gvs = [...new Set(resources.map((r) => groupVersionPath(r)))].sort()
  if (path === "/") return { paths: ["/api", "/apis", "/version", ...gvs] }
  if (path === "/version") return { major: "1", minor: "34", gitVersion: "v1.34.0-krtt-fake" }
  if (path === "/api") return { kind: "APIVersions", versions: ["v1"] }
  if (path === "/apis") {
    const groups = [...new Set(resources.filter((r) => r.group !== "").map((r) => r.group))].sort()
    return {
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: groups.map((name) => {
        const versions = [...new Set(resources.filter((r) => r.group === name).map((r) => r.version))]
        const list = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }))
        return { name, versions: list, preferredVersion: list[0] }
      }),
    }
  }
  const inGv = resources.filter((r) => groupVersionPath(r) === path)
  if (inGv.length === 0) return undefined
  const first = inGv[0] as ResourceRef
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: apiVersionOf(first),
    resources: inGv.map((r) => ({
      name: r.resource,
      singularName: r.kind.toLowerCase(),
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
    })),
  }
}
