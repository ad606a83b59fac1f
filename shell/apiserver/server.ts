/**
 * `FakeApiServer`: an in-memory Kubernetes API server with the semantics controllers depend on,
 * for fast tests on virtual time (kube-rs's scenario-style mock is the model). docs/apiserver.md
 * lists what it models and how it differs from kube-apiserver.
 *
 * The class is built in layers of one job each: `serverCore.ts` (the state, admission, a call
 * and the collection it causes as one step), `controls.ts` (the test controls), `reads.ts` (get,
 * list, watch), and here the writes, discovery and the `KubeClient` view.
 *
 * # Guarantees
 * - One global resourceVersion counter (like etcd's revision); every write bumps it, no-op
 *   writes do not.
 * - `update` and patches (and their `/status` forms) with a stale `metadata.resourceVersion` fail
 *   with 409 Conflict; without one an update is unconditional; `create` of an existing name fails
 *   with 409 AlreadyExists.
 * - A new server is at resourceVersion 1, as a new etcd is: no list answers at `"0"`.
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
 *   (`closeWatches`, `failWatches`, `expireWatches`).
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
import type {
  DeleteOptions,
  KubeClientShape,
  PatchOptions,
  RawRequest,
  WriteOptions,
} from "../kube/client.ts"
import { ApiError, Invalid, isKubeError, type KubeError, NotFound } from "../kube/errors.ts"
import type { Patch } from "../kube/patch.ts"
import { type KubeObject, type ObjectKey, type ResourceRef, Resources } from "../kube/resource.ts"
import { discoveryDocument } from "./discovery.ts"
import { InitialNamespaces, prepareNamespaceDelete } from "./namespaces.ts"
import {
  badRequest,
  conflict,
  notFound,
  PropagationPolicies,
  patchObject,
  preconditionsFail,
  prepareDelete,
} from "./objects.ts"
import { ServerReads } from "./reads.ts"
import type { FakeApiServerOptions } from "./serverCore.ts"

export type { OpenWatch } from "./controls.ts"
export type { FakeApiServerOptions } from "./serverCore.ts"

/** An in-memory API server; see the module doc for what it models. */
export class FakeApiServer extends ServerReads {
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
