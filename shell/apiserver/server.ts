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
import * as Effect from "effect/Effect"
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
import { ApiError, Gone, Invalid, type KubeError, NotFound, Timeout } from "../kube/errors.ts"
import { listAllPages } from "../kube/pages.ts"
import type { Patch } from "../kube/patch.ts"
import {
  type KubeObject,
  type ObjectKey,
  type ObjectList,
  type ResourceRef,
  Resources,
} from "../kube/resource.ts"
import { matchesFieldSelector, matchesLabelSelector } from "../kube/selector.ts"
import type { WatchEvent } from "../kube/watch.ts"
import { ServerControls } from "./controls.ts"
import { discoveryDocument } from "./discovery.ts"
import { InitialNamespaces, prepareNamespaceDelete } from "./namespaces.ts"
import {
  badRequest,
  conflict,
  invalid,
  notFound,
  PropagationPolicies,
  patchObject,
  preconditionsFail,
  prepareDelete,
  type Served,
} from "./objects.ts"
import { type FakeApiServerOptions, isKubeError } from "./serverCore.ts"
import { byKey, decodeContinue, encodeContinue, objectKey } from "./storage.ts"
import { watchStream } from "./watch.ts"

export { type OpenWatch, ServerControls } from "./controls.ts"
export { type FakeApiServerOptions, ServerCore } from "./serverCore.ts"

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
export class FakeApiServer extends ServerControls {
  private constructor(options: FakeApiServerOptions) {
    super(options)
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
