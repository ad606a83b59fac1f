/**
 * The real `KubeClient`: REST over HTTP to an API server, configured by a client-node
 * `KubeConfig`, rate limited by a token bucket and bounded by a per-request timeout
 * (`ClientOptions`, defaults QPS 20, burst 30, timeout 10 s).
 *
 * @module
 */
import type { KubeConfig } from "@kubernetes/client-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import {
  type DeleteOptions,
  KubeClient,
  type KubeClientShape,
  type ListAllOptions,
  type ListOptions,
  type PatchOptions,
  type RawRequest,
  type WatchOptions,
  type WriteOptions,
} from "./client.ts"
import { fromStatus, type KubeError } from "./errors.ts"
import { type ClientOptions, clientOptions, timeoutMillis } from "./options.ts"
import { listAllPages } from "./pages.ts"
import { contentTypeOf, type Patch } from "./patch.ts"
import { makeTokenBucket } from "./rateLimiter.ts"
import {
  apiVersionOf,
  type KubeObject,
  type ObjectKey,
  type ObjectList,
  type ResourceRef,
  resourcePath,
} from "./resource.ts"
import { networkError, open, readBody, send } from "./transport.ts"
import { parseWatchLine, type WatchEvent } from "./watch.ts"

type Query = Record<string, string>

const defined = (entries: Record<string, string | number | boolean | undefined>): Query => {
  const out: Query = {}
  for (const [k, v] of Object.entries(entries)) if (v !== undefined && v !== "") out[k] = String(v)
  return out
}

const writeQuery = (options: WriteOptions & { readonly force?: boolean | undefined } = {}): Query =>
  defined({
    dryRun: options.dryRun ? "All" : undefined,
    fieldManager: options.fieldManager,
    force: options.force,
  })

const listQuery = (options: ListOptions = {}): Query =>
  defined({
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    limit: options.limit,
    continue: options.continue,
    resourceVersion: options.resourceVersion,
    resourceVersionMatch: options.resourceVersionMatch,
  })

const watchQuery = (options: WatchOptions = {}): Query =>
  defined({
    watch: "true",
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    resourceVersion: options.resourceVersion,
    allowWatchBookmarks: options.allowWatchBookmarks,
    timeoutSeconds: options.timeoutSeconds,
    sendInitialEvents: options.sendInitialEvents,
    resourceVersionMatch: options.sendInitialEvents ? "NotOlderThan" : undefined,
  })

/** Fills in apiVersion and kind from the resource when the object leaves them out. */
const withTypeMeta = (resource: ResourceRef, body: unknown): unknown =>
  typeof body === "object" && body !== null && !Array.isArray(body)
    ? { apiVersion: apiVersionOf(resource), kind: resource.kind, ...body }
    : body

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
    const timeoutMs = timeoutMillis(options)

    const call = (
      verb: string,
      method: string,
      path: string,
      query: Query,
      body?: { readonly contentType: string; readonly value: unknown },
      timeout = timeoutMs,
    ): Effect.Effect<unknown, KubeError> =>
      Effect.gen(function* () {
        yield* limiter.take
        const request = {
          verb,
          method,
          path,
          query,
          headers: body === undefined ? undefined : { "Content-Type": body.contentType },
          body: body === undefined ? undefined : JSON.stringify(body.value),
        }
        const res = yield* send(kc, request, { userAgent: options.userAgent, timeoutMs: timeout })
        if (res.status >= 200 && res.status < 300) return res.body
        return yield* Effect.fail(fromStatus({ verb, path }, res.status, res.body))
      })

    const json = (value: unknown) => ({ contentType: "application/json", value })
    const nsOf = (object: KubeObject) => ({ namespace: object.metadata.namespace })
    const keyPath = (resource: ResourceRef, key: ObjectKey, sub?: string) => resourcePath(resource, key, sub)
    const objectPath = (resource: ResourceRef, object: KubeObject, sub?: string) =>
      resourcePath(resource, { namespace: object.metadata.namespace, name: object.metadata.name ?? "" }, sub)
    const patchBody = (resource: ResourceRef, patch: Patch) => ({
      contentType: contentTypeOf(patch),
      value: patch.type === "apply" ? withTypeMeta(resource, patch.body) : patch.body,
    })

    const list = <T extends KubeObject>(resource: ResourceRef, opts: ListOptions = {}) =>
      Effect.map(
        call("list", "GET", resourcePath(resource, { namespace: opts.namespace }), listQuery(opts)),
        (body): ObjectList<T> => {
          const b = (body ?? {}) as {
            readonly items?: ReadonlyArray<T> | null
            readonly metadata?: {
              readonly resourceVersion?: string
              readonly continue?: string
              readonly remainingItemCount?: number
            }
          }
          return {
            items: b.items ?? [],
            resourceVersion: b.metadata?.resourceVersion ?? "",
            continue: b.metadata?.continue || undefined,
            remainingItemCount: b.metadata?.remainingItemCount,
          }
        },
      )

    const deleteObject = <T extends KubeObject>(
      resource: ResourceRef,
      key: ObjectKey,
      opts: DeleteOptions = {},
    ) =>
      Effect.map(
        call(
          "delete",
          "DELETE",
          keyPath(resource, key),
          {},
          json({
            kind: "DeleteOptions",
            apiVersion: "v1",
            ...(opts.dryRun ? { dryRun: ["All"] } : {}),
            ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}),
            ...(opts.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: opts.gracePeriodSeconds }),
            ...(opts.preconditions ? { preconditions: opts.preconditions } : {}),
          }),
        ),
        (body) => {
          const b = body as KubeObject | undefined
          return b === undefined || b.kind === "Status" || typeof b.metadata !== "object"
            ? undefined
            : (b as T)
        },
      )

    const watch = <T extends KubeObject>(resource: ResourceRef, opts: WatchOptions = {}) => {
      const path = resourcePath(resource, { namespace: opts.namespace })
      const request = { verb: "watch", method: "GET", path, query: watchQuery(opts) }
      return Stream.unwrap(
        Effect.gen(function* () {
          yield* limiter.take
          const res = yield* open(kc, request, options.userAgent).pipe(
            Effect.timeoutOrElse({
              duration: timeoutMs,
              orElse: () => Effect.fail(fromStatus(request, 504, `no response within ${timeoutMs} ms`)),
            }),
          )
          if (res.statusCode !== 200) {
            const body = yield* readBody(res, request)
            return yield* Effect.fail(fromStatus(request, res.statusCode ?? 0, body))
          }
          return Stream.fromAsyncIterable(res, (e) => networkError(request, e)).pipe(
            Stream.map((chunk) => chunk as Uint8Array),
            Stream.decodeText,
            Stream.splitLines,
            Stream.filterMap((line) => {
              const event = parseWatchLine(line)
              return event === undefined ? Result.failVoid : Result.succeed(event as WatchEvent<T>)
            }),
          )
        }),
      )
    }

    const raw = (req: RawRequest) =>
      call(
        req.verb ?? req.method.toLowerCase(),
        req.method,
        req.path,
        { ...req.query },
        req.body === undefined ? undefined : json(req.body),
        req.timeout === undefined ? timeoutMs : timeoutMillis({ timeout: req.timeout }),
      )

    const client: KubeClientShape = {
      get: <T extends KubeObject>(resource: ResourceRef, key: ObjectKey) =>
        call("get", "GET", keyPath(resource, key), {}) as Effect.Effect<T, KubeError>,
      list,
      listAll: <T extends KubeObject>(resource: ResourceRef, opts?: ListAllOptions) =>
        listAllPages<T>(list, resource, opts),
      create: <T extends KubeObject>(resource: ResourceRef, object: T, opts?: WriteOptions) =>
        call(
          "create",
          "POST",
          resourcePath(resource, nsOf(object)),
          writeQuery(opts),
          json(withTypeMeta(resource, object)),
        ) as Effect.Effect<T, KubeError>,
      update: <T extends KubeObject>(resource: ResourceRef, object: T, opts?: WriteOptions) =>
        call(
          "update",
          "PUT",
          objectPath(resource, object),
          writeQuery(opts),
          json(withTypeMeta(resource, object)),
        ) as Effect.Effect<T, KubeError>,
      patch: <T extends KubeObject>(
        resource: ResourceRef,
        key: ObjectKey,
        patch: Patch,
        opts?: PatchOptions,
      ) =>
        call(
          "patch",
          "PATCH",
          keyPath(resource, key),
          writeQuery(opts),
          patchBody(resource, patch),
        ) as Effect.Effect<T, KubeError>,
      delete: deleteObject,
      getStatus: <T extends KubeObject>(resource: ResourceRef, key: ObjectKey) =>
        call("get", "GET", keyPath(resource, key, "status"), {}) as Effect.Effect<T, KubeError>,
      updateStatus: <T extends KubeObject>(resource: ResourceRef, object: T, opts?: WriteOptions) =>
        call(
          "update",
          "PUT",
          objectPath(resource, object, "status"),
          writeQuery(opts),
          json(withTypeMeta(resource, object)),
        ) as Effect.Effect<T, KubeError>,
      patchStatus: <T extends KubeObject>(
        resource: ResourceRef,
        key: ObjectKey,
        patch: Patch,
        opts?: PatchOptions,
      ) =>
        call(
          "patch",
          "PATCH",
          keyPath(resource, key, "status"),
          writeQuery(opts),
          patchBody(resource, patch),
        ) as Effect.Effect<T, KubeError>,
      watch,
      probe: (opts) =>
        Effect.asVoid(raw({ method: "GET", path: "/", verb: "probe", timeout: opts?.timeout })),
      raw,
    }
    return client
  })

/** The `KubeClient` service over the REST client for the current context of `kc`. */
export const restClientLayer = (
  kc: KubeConfig,
  options: Partial<ClientOptions> = {},
): Layer.Layer<KubeClient> => Layer.effect(KubeClient, makeRestClient(kc, options))
