/**
 * The real `KubeClient`: REST over HTTP to an API server, configured by a client-node
 * `KubeConfig`, rate limited by a token bucket and bounded by a per-request timeout
 * (`ClientOptions`, defaults QPS 20, burst 30, timeout 10 s). Each verb's request is built in
 * `requests.ts` and sent by `restCall.ts`.
 *
 * @module
 */
import type { KubeConfig } from "@kubernetes/client-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import {
  type DeleteOptions,
  KubeClient,
  type KubeClientShape,
  type ListAllOptions,
  type ListOptions,
} from "./client.ts"
import type { KubeError } from "./errors.ts"
import { type ClientOptions, clientOptions, timeoutMillis } from "./options.ts"
import { listAllPages } from "./pages.ts"
import { makeTokenBucket } from "./rateLimiter.ts"
import * as Req from "./requests.ts"
import type { KubeObject, ObjectKey, ObjectList, ResourceRef } from "./resource.ts"
import { type Connection, call, watchStream } from "./restCall.ts"

/** A call answering an object of the caller's type (the server's JSON is not checked). */
const callFor = <T>(c: Connection, req: Req.CallRequest) => call(c, req) as Effect.Effect<T, KubeError>

/** The client's verbs over one connection. */
const clientOver = (c: Connection): KubeClientShape => {
  const list = <T extends KubeObject>(resource: ResourceRef, opts?: ListOptions) =>
    Effect.map(call(c, Req.listRequest(resource, opts)), (body): ObjectList<T> => Req.toObjectList<T>(body))
  const raw: KubeClientShape["raw"] = (req) =>
    call(
      c,
      Req.rawRequest(req, req.timeout === undefined ? undefined : timeoutMillis({ timeout: req.timeout })),
    )
  return {
    get: (resource, key) => callFor(c, Req.getRequest(resource, key)),
    list,
    listAll: <T extends KubeObject>(resource: ResourceRef, opts?: ListAllOptions) =>
      listAllPages<T>(list, resource, opts),
    create: (resource, object, opts) => callFor(c, Req.createRequest(resource, object, opts)),
    update: (resource, object, opts) => callFor(c, Req.updateRequest(resource, object, opts)),
    patch: (resource, key, patch, opts) => callFor(c, Req.patchRequest(resource, key, patch, opts)),
    delete: <T extends KubeObject>(resource: ResourceRef, key: ObjectKey, opts?: DeleteOptions) =>
      Effect.map(call(c, Req.deleteRequest(resource, key, opts)), (body) => Req.toDeleted<T>(body)),
    getStatus: (resource, key) => callFor(c, Req.getRequest(resource, key, "status")),
    updateStatus: (resource, object, opts) => callFor(c, Req.updateRequest(resource, object, opts, "status")),
    patchStatus: (resource, key, patch, opts) =>
      callFor(c, Req.patchRequest(resource, key, patch, opts, "status")),
    watch: (resource, opts) => watchStream(c, Req.watchRequest(resource, opts)),
    probe: (opts) => Effect.asVoid(raw({ method: "GET", path: "/", verb: "probe", timeout: opts?.timeout })),
    raw,
  }
}

/**
 * Makes a client for the current context of `kc`. The KubeConfig is read on every request, so
 * rotated tokens and refreshed auth plugins take effect without a new client.
 */
export const makeRestClient = (
  kc: KubeConfig,
  overrides: Partial<ClientOptions> = {},
): Effect.Effect<KubeClientShape> =>
  Effect.gen(function* () {
    const options = clientOptions(overrides)
    const limiter = yield* makeTokenBucket(options)
    return clientOver({ kc, options, limiter, timeoutMs: timeoutMillis(options) })
  })

/** The `KubeClient` service over the REST client for the current context of `kc`. */
export const restClientLayer = (
  kc: KubeConfig,
  options: Partial<ClientOptions> = {},
): Layer.Layer<KubeClient> => Layer.effect(KubeClient, makeRestClient(kc, options))
