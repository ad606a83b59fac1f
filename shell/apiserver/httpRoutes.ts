/**
 * The HTTP front end's requests: a path resolved to a resource, an object and a subresource
 * (`route`), then the verb and its query parameters turned into a call of the in-memory API
 * server (`handle`), its answer written as JSON, a Kubernetes `Status` for an error, or a chunked
 * stream of watch events. A call refused as Unreachable resets the connection.
 *
 * @module
 */
import type * as http from "node:http"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { DeleteOptions, ListOptions, WatchOptions } from "../kube/client.ts"
import { type KubeError, toStatus } from "../kube/errors.ts"
import type { Patch } from "../kube/patch.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { FakeApiServer } from "./server.ts"

interface Route {
  readonly ref: ResourceRef
  readonly namespace: string | undefined
  readonly name: string | undefined
  readonly status: boolean
}

/** Resolves `/api/v1/...` and `/apis/<g>/<v>/...` to a known resource, object and subresource. */
const route = (fake: FakeApiServer, path: string): Route | undefined => {
  const segs = path
    .split("/")
    .filter((s) => s !== "")
    .map(decodeURIComponent)
  const [root, ...rest] = segs
  const group = root === "api" ? "" : root === "apis" ? rest.shift() : undefined
  const version = rest.shift()
  if (group === undefined || version === undefined) return undefined
  const nsScoped = rest[0] === "namespaces" && rest.length >= 3
  const [resource, name, sub] = nsScoped ? rest.slice(2) : rest
  const ref = resource === undefined ? undefined : fake.lookup(group, resource)
  if (ref === undefined || ref.version !== version || (sub !== undefined && sub !== "status"))
    return undefined
  return { ref, namespace: nsScoped ? rest[1] : undefined, name, status: sub === "status" }
}

const patchOf = (contentType: string | undefined, body: unknown): Patch => {
  const type = (contentType ?? "").split(";")[0]?.trim()
  if (type === "application/json-patch+json") return { type: "json", body: body as never }
  if (type === "application/apply-patch+yaml") return { type: "apply", body }
  if (type === "application/strategic-merge-patch+json") return { type: "strategic", body }
  return { type: "merge", body }
}

export const send = (res: http.ServerResponse, code: number, body: unknown) => {
  res.writeHead(code, { "Content-Type": "application/json" })
  res.end(JSON.stringify(body))
}

const reply = (res: http.ServerResponse, effect: Effect.Effect<unknown, KubeError>, code = 200) =>
  Effect.match(effect, {
    onSuccess: (body) => send(res, code, body ?? { kind: "Status", status: "Success", code }),
    onFailure: (e) => (e._tag === "Unreachable" ? res.destroy() : send(res, toStatus(e).code, toStatus(e))),
  })

/** A query parameter of the request, if present. */
type Query = (k: string) => string | undefined

/** A watch: the events as a chunked stream of JSON lines, ended cleanly or reset on failure. */
const serveWatch = (fake: FakeApiServer, res: http.ServerResponse, ref: ResourceRef, opts: WatchOptions) =>
  Effect.matchEffect(fake.openWatch(ref, opts), {
    onFailure: (e) => reply(res, Effect.fail(e)),
    onSuccess: (events) => {
      res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" })
      res.flushHeaders()
      return Stream.runForEach(events, (e) => Effect.sync(() => res.write(`${JSON.stringify(e)}\n`))).pipe(
        Effect.match({ onSuccess: () => res.end(), onFailure: () => res.destroy() }),
      )
    },
  })

/** GET: one object, a watch, or one page of a list. */
const serveGet = (fake: FakeApiServer, res: http.ServerResponse, r: Route, q: Query) => {
  if (r.name !== undefined)
    return reply(
      res,
      fake.get(r.ref, { namespace: r.namespace, name: r.name }, r.status ? "status" : undefined),
    )
  const selectors = {
    namespace: r.namespace,
    labelSelector: q("labelSelector"),
    fieldSelector: q("fieldSelector"),
  }
  if (q("watch") === "true" || q("watch") === "1")
    return serveWatch(fake, res, r.ref, {
      ...selectors,
      resourceVersion: q("resourceVersion"),
      allowWatchBookmarks: q("allowWatchBookmarks") === "true",
      sendInitialEvents: q("sendInitialEvents") === "true",
      timeoutSeconds: q("timeoutSeconds") === undefined ? undefined : Number(q("timeoutSeconds")),
    })
  const limit = q("limit") === undefined ? undefined : Number(q("limit"))
  const listOptions: ListOptions = {
    ...selectors,
    limit,
    continue: q("continue"),
    resourceVersion: q("resourceVersion"),
    resourceVersionMatch: q("resourceVersionMatch") as ListOptions["resourceVersionMatch"],
  }
  const list = Effect.map(fake.list(r.ref, listOptions), (l) => ({
    kind: `${r.ref.kind}List`,
    apiVersion: "v1",
    metadata: {
      resourceVersion: l.resourceVersion,
      continue: l.continue,
      remainingItemCount: l.remainingItemCount,
    },
    items: l.items,
  }))
  return reply(res, list)
}

/** DELETE: the options from the body, `dryRun` and `propagationPolicy` also from the query. */
const serveDelete = (fake: FakeApiServer, res: http.ServerResponse, r: Route, q: Query, body: unknown) => {
  const opts = (body ?? {}) as {
    preconditions?: { uid?: string; resourceVersion?: string }
    dryRun?: Array<string>
    propagationPolicy?: DeleteOptions["propagationPolicy"]
  }
  return reply(
    res,
    fake.delete(
      r.ref,
      { namespace: r.namespace, name: r.name ?? "" },
      {
        preconditions: opts.preconditions,
        dryRun: (opts.dryRun ?? []).includes("All") || q("dryRun") === "All",
        propagationPolicy:
          opts.propagationPolicy ?? (q("propagationPolicy") as DeleteOptions["propagationPolicy"]),
      },
    ),
  )
}

/** Answers one authenticated request with a parsed body; paths not of a resource go to `raw`. */
export const handle = (
  fake: FakeApiServer,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  body: unknown,
) => {
  const url = new URL(req.url ?? "/", "http://localhost")
  const q: Query = (k) => url.searchParams.get(k) ?? undefined
  const r = route(fake, url.pathname)
  if (r === undefined) {
    return reply(res, fake.raw({ method: (req.method ?? "GET") as "GET", path: url.pathname }))
  }
  const key = { namespace: r.namespace, name: r.name ?? "" }
  const sub = r.status ? ("status" as const) : undefined
  const write = { dryRun: q("dryRun") === "All", fieldManager: q("fieldManager") }
  switch (req.method) {
    case "GET":
      return serveGet(fake, res, r, q)
    case "POST":
      return reply(
        res,
        fake.create(
          r.ref,
          {
            ...(body as KubeObject),
            metadata: { ...(body as KubeObject).metadata, namespace: r.namespace },
          },
          write,
        ),
        201,
      )
    case "PUT":
      return reply(res, fake.update(r.ref, body as KubeObject, write, sub))
    case "PATCH":
      return reply(
        res,
        fake.patch(
          r.ref,
          key,
          patchOf(req.headers["content-type"], body),
          { ...write, force: q("force") === "true" },
          sub,
        ),
      )
    case "DELETE":
      return serveDelete(fake, res, r, q, body)
    default:
      return Effect.sync(() => send(res, 405, { kind: "Status", code: 405, reason: "MethodNotAllowed" }))
  }
}
