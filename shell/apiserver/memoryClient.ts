/**
 * The in-memory `KubeClient`: the `FakeApiServer` seen through the client's shape, with the same
 * per-request timeout and (when asked for) the same token bucket as the real client, all on
 * `Clock` time, so tests run on `TestClock`.
 *
 * Defaults differ from `ClientDefaults` in one point: no rate limit (`qps: Infinity`), so that
 * tests do not have to move the clock for every 30 requests. Pass `qps`/`burst` to test pacing.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { KubeClient, type KubeClientShape } from "../kube/client.ts"
import { Timeout } from "../kube/errors.ts"
import { type ClientOptions, clientOptions, timeoutMillis } from "../kube/options.ts"
import { makeTokenBucket } from "../kube/rateLimiter.ts"
import { type ResourceRef, resourcePath } from "../kube/resource.ts"
import type { FakeApiServer } from "./server.ts"

/** A client over `fake`; its watches are counted under `name` when given (`FakeApiServer.openWatches`). */
export const makeMemoryClient = (
  fake: FakeApiServer,
  overrides: Partial<ClientOptions> = {},
  name?: string,
): Effect.Effect<KubeClientShape> =>
  Effect.gen(function* () {
    const options = clientOptions({ qps: Number.POSITIVE_INFINITY, ...overrides })
    const limiter = yield* makeTokenBucket(options)
    const timeoutMs = timeoutMillis(options)
    const server = fake.client(name)
    const guard =
      (verb: string, path: string, ms = timeoutMs) =>
      <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E | Timeout> =>
        Effect.andThen(
          limiter.take,
          Effect.timeoutOrElse(effect, {
            duration: ms,
            orElse: () => Effect.fail(new Timeout({ verb, path, message: `no response within ${ms} ms` })),
          }),
        )
    const at = (
      verb: string,
      ref: ResourceRef,
      key: { readonly namespace?: string | undefined; readonly name?: string | undefined } = {},
    ) => guard(verb, resourcePath(ref, { namespace: key.namespace, name: key.name }))
    return {
      get: (ref, key) => at("get", ref, key)(server.get(ref, key)),
      list: (ref, o) => at("list", ref, { namespace: o?.namespace })(server.list(ref, o)),
      listAll: (ref, o) => at("list", ref, { namespace: o?.namespace })(server.listAll(ref, o)),
      create: (ref, obj, o) =>
        at("create", ref, { namespace: obj.metadata.namespace })(server.create(ref, obj, o)),
      update: (ref, obj, o) => at("update", ref, obj.metadata)(server.update(ref, obj, o)),
      patch: (ref, key, p, o) => at("patch", ref, key)(server.patch(ref, key, p, o)),
      delete: (ref, key, o) => at("delete", ref, key)(server.delete(ref, key, o)),
      getStatus: (ref, key) => at("get", ref, key)(server.getStatus(ref, key)),
      updateStatus: (ref, obj, o) => at("update", ref, obj.metadata)(server.updateStatus(ref, obj, o)),
      patchStatus: (ref, key, p, o) => at("patch", ref, key)(server.patchStatus(ref, key, p, o)),
      watch: (ref, o) => Stream.unwrap(Effect.as(limiter.take, server.watch(ref, o))),
      probe: (o) =>
        guard(
          "probe",
          "/",
          o?.timeout === undefined ? timeoutMs : timeoutMillis({ timeout: o.timeout }),
        )(server.probe()),
      raw: (r) =>
        guard(
          r.verb ?? "get",
          r.path,
          r.timeout === undefined ? timeoutMs : timeoutMillis({ timeout: r.timeout }),
        )(server.raw(r)),
    } satisfies KubeClientShape
  })

/** The `KubeClient` service over the in-memory client of `fake` (no rate limit unless `qps` is given). */
export const memoryClientLayer = (
  fake: FakeApiServer,
  options: Partial<ClientOptions> = {},
): Layer.Layer<KubeClient> => Layer.effect(KubeClient, makeMemoryClient(fake, options))
