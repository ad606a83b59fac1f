/**
 * The in-memory API server behind a real HTTP socket, speaking enough of the Kubernetes REST
 * protocol (paths, verbs, patch content types, Status errors, chunked watch streams) to test the
 * REST client, the transport and the reflector without a control plane.
 *
 * Authentication is a bearer token (401 otherwise). While the fake is stopped, connections are
 * reset, as they are when an API server goes away.
 *
 * @module
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { KubeConfig } from "@kubernetes/client-node"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { DeleteOptions, ListOptions, WatchOptions } from "../kube/client.ts"
import { type KubeError, toStatus } from "../kube/errors.ts"
import type { Patch } from "../kube/patch.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { FakeApiServer } from "./server.ts"

/** A running HTTP front of a fake. */
export interface FakeHttpServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  /** The token the server accepts. */
  readonly token: string
  /** A KubeConfig for this server, with `token` (default: the accepted one). */
  readonly kubeConfig: (token?: string) => KubeConfig
  /** Closes every open connection now (open watches break off mid-stream). */
  readonly dropConnections: Effect.Effect<void>
}

/** A kubeconfig for `server` with a bearer token (plain HTTP needs `skipTLSVerify`). */
export const tokenKubeConfig = (server: string, token: string): KubeConfig => {
  const kc = new KubeConfig()
  kc.loadFromOptions({
    clusters: [{ name: "fake", server, skipTLSVerify: true }],
    users: [{ name: "fake", token }],
    contexts: [{ name: "fake", cluster: "fake", user: "fake" }],
    currentContext: "fake",
  })
  return kc
}

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

const readJson = (req: http.IncomingMessage): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("error", reject)
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      try {
        resolve(text === "" ? undefined : JSON.parse(text))
      } catch (e) {
        reject(e)
      }
    })
  })

const send = (res: http.ServerResponse, code: number, body: unknown) => {
  res.writeHead(code, { "Content-Type": "application/json" })
  res.end(JSON.stringify(body))
}

/** Serves `fake` on a loopback port until the scope closes. */
export const serveHttp = (
  fake: FakeApiServer,
  options: { readonly token?: string | undefined } = {},
): Effect.Effect<FakeHttpServer, never, Scope.Scope> =>
  Effect.gen(function* () {
    const token = options.token ?? "krtt-test-token"
    const run = yield* FiberSet.makeRuntime<never>()
    const reply = (res: http.ServerResponse, effect: Effect.Effect<unknown, KubeError>, code = 200) =>
      Effect.match(effect, {
        onSuccess: (body) => send(res, code, body ?? { kind: "Status", status: "Success", code }),
        onFailure: (e) =>
          e._tag === "Unreachable" ? res.destroy() : send(res, toStatus(e).code, toStatus(e)),
      })

    const handle = (req: http.IncomingMessage, res: http.ServerResponse, body: unknown) => {
      const url = new URL(req.url ?? "/", "http://localhost")
      const q = (k: string) => url.searchParams.get(k) ?? undefined
      const r = route(fake, url.pathname)
      if (r === undefined) {
        return reply(res, fake.raw({ method: (req.method ?? "GET") as "GET", path: url.pathname }))
      }
      const key = { namespace: r.namespace, name: r.name ?? "" }
      const sub = r.status ? ("status" as const) : undefined
      const write = { dryRun: q("dryRun") === "All", fieldManager: q("fieldManager") }
      const api = fake
      switch (req.method) {
        case "GET": {
          if (r.name !== undefined) return reply(res, api.get(r.ref, key, sub))
          const selectors = {
            namespace: r.namespace,
            labelSelector: q("labelSelector"),
            fieldSelector: q("fieldSelector"),
          }
          if (q("watch") === "true" || q("watch") === "1") {
            const opts: WatchOptions = {
              ...selectors,
              resourceVersion: q("resourceVersion"),
              allowWatchBookmarks: q("allowWatchBookmarks") === "true",
              sendInitialEvents: q("sendInitialEvents") === "true",
              timeoutSeconds: q("timeoutSeconds") === undefined ? undefined : Number(q("timeoutSeconds")),
            }
            return Effect.matchEffect(api.openWatch(r.ref, opts), {
              onFailure: (e) => reply(res, Effect.fail(e)),
              onSuccess: (events) => {
                res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked" })
                res.flushHeaders()
                return Stream.runForEach(events, (e) =>
                  Effect.sync(() => res.write(`${JSON.stringify(e)}\n`)),
                ).pipe(Effect.match({ onSuccess: () => res.end(), onFailure: () => res.destroy() }))
              },
            })
          }
          const limit = q("limit") === undefined ? undefined : Number(q("limit"))
          const listOptions: ListOptions = {
            ...selectors,
            limit,
            continue: q("continue"),
            resourceVersion: q("resourceVersion"),
            resourceVersionMatch: q("resourceVersionMatch") as ListOptions["resourceVersionMatch"],
          }
          const list = Effect.map(api.list(r.ref, listOptions), (l) => ({
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
        case "POST":
          return reply(
            res,
            api.create(
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
          return reply(res, api.update(r.ref, body as KubeObject, write, sub))
        case "PATCH":
          return reply(
            res,
            api.patch(
              r.ref,
              key,
              patchOf(req.headers["content-type"], body),
              { ...write, force: q("force") === "true" },
              sub,
            ),
          )
        case "DELETE": {
          const opts = (body ?? {}) as {
            preconditions?: { uid?: string; resourceVersion?: string }
            dryRun?: Array<string>
            propagationPolicy?: DeleteOptions["propagationPolicy"]
          }
          return reply(
            res,
            api.delete(r.ref, key, {
              preconditions: opts.preconditions,
              dryRun: (opts.dryRun ?? []).includes("All") || q("dryRun") === "All",
              propagationPolicy:
                opts.propagationPolicy ?? (q("propagationPolicy") as DeleteOptions["propagationPolicy"]),
            }),
          )
        }
        default:
          return Effect.sync(() => send(res, 405, { kind: "Status", code: 405, reason: "MethodNotAllowed" }))
      }
    }

    const server = http.createServer((req, res) => {
      if (req.headers.authorization !== `Bearer ${token}`) {
        req.resume()
        return send(res, 401, {
          kind: "Status",
          status: "Failure",
          code: 401,
          reason: "Unauthorized",
          message: "Unauthorized",
        })
      }
      if (!fake.isUp()) return req.socket.destroy()
      readJson(req).then(
        (body) => {
          const fiber = run(handle(req, res, body))
          res.on("close", () => fiber.interruptUnsafe())
        },
        () =>
          send(res, 400, {
            kind: "Status",
            status: "Failure",
            code: 400,
            reason: "BadRequest",
            message: "invalid JSON",
          }),
      )
    })
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        }),
    )
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    return {
      url,
      token,
      kubeConfig: (t = token) => tokenKubeConfig(url, t),
      dropConnections: Effect.sync(() => server.closeAllConnections()),
    }
  })
