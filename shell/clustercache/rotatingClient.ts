/**
 * A live client whose credentials can be replaced while it is in use: every call goes to the
 * client of the current credentials, so that a rotated kubeconfig Secret takes effect for new
 * requests without stopping the informers that run on this client. A watch already open keeps
 * the connection it was opened on until it ends (the server closes watches every few minutes);
 * its next list or watch uses the new credentials.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type {
  DeleteOptions,
  KubeClientShape,
  ListAllOptions,
  ListOptions,
  PatchOptions,
  WatchOptions,
  WriteOptions,
} from "../kube/client.ts"
import type { Patch } from "../kube/patch.ts"
import type { KubeObject, ObjectKey, ResourceRef } from "../kube/resource.ts"

/** A client that delegates to the current one, and how to replace it. */
export interface RotatingClient {
  readonly client: KubeClientShape
  /** New requests go to `next` from now on. */
  readonly replace: (next: KubeClientShape) => Effect.Effect<void>
}

/** Wraps `initial`; `replace` swaps the client every later call goes to. */
export const makeRotatingClient = (initial: KubeClientShape): RotatingClient => {
  let current = initial
  const now = Effect.sync(() => current)
  const client: KubeClientShape = {
    get: <T extends KubeObject = KubeObject>(r: ResourceRef, k: ObjectKey) =>
      Effect.flatMap(now, (c) => c.get<T>(r, k)),
    list: <T extends KubeObject = KubeObject>(r: ResourceRef, o?: ListOptions) =>
      Effect.flatMap(now, (c) => c.list<T>(r, o)),
    listAll: <T extends KubeObject = KubeObject>(r: ResourceRef, o?: ListAllOptions) =>
      Effect.flatMap(now, (c) => c.listAll<T>(r, o)),
    create: <T extends KubeObject = KubeObject>(r: ResourceRef, obj: T, o?: WriteOptions) =>
      Effect.flatMap(now, (c) => c.create<T>(r, obj, o)),
    update: <T extends KubeObject = KubeObject>(r: ResourceRef, obj: T, o?: WriteOptions) =>
      Effect.flatMap(now, (c) => c.update<T>(r, obj, o)),
    patch: <T extends KubeObject = KubeObject>(r: ResourceRef, k: ObjectKey, p: Patch, o?: PatchOptions) =>
      Effect.flatMap(now, (c) => c.patch<T>(r, k, p, o)),
    delete: <T extends KubeObject = KubeObject>(r: ResourceRef, k: ObjectKey, o?: DeleteOptions) =>
      Effect.flatMap(now, (c) => c.delete<T>(r, k, o)),
    getStatus: <T extends KubeObject = KubeObject>(r: ResourceRef, k: ObjectKey) =>
      Effect.flatMap(now, (c) => c.getStatus<T>(r, k)),
    updateStatus: <T extends KubeObject = KubeObject>(r: ResourceRef, obj: T, o?: WriteOptions) =>
      Effect.flatMap(now, (c) => c.updateStatus<T>(r, obj, o)),
    patchStatus: <T extends KubeObject = KubeObject>(
      r: ResourceRef,
      k: ObjectKey,
      p: Patch,
      o?: PatchOptions,
    ) => Effect.flatMap(now, (c) => c.patchStatus<T>(r, k, p, o)),
    watch: <T extends KubeObject = KubeObject>(r: ResourceRef, o?: WatchOptions) =>
      Stream.unwrap(Effect.map(now, (c) => c.watch<T>(r, o))),
    probe: (o) => Effect.flatMap(now, (c) => c.probe(o)),
    raw: (req) => Effect.flatMap(now, (c) => c.raw(req)),
  }
  return {
    client,
    replace: (next) =>
      Effect.sync(() => {
        current = next
      }),
  }
}
