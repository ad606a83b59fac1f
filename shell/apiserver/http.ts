/**
 * The in-memory API server behind a real HTTP socket, speaking enough of the Kubernetes REST
 * protocol (paths, verbs, patch content types, Status errors, chunked watch streams) to test the
 * REST client, the transport and the reflector without a control plane.
 *
 * Authentication is a bearer token (401 otherwise). While the fake is stopped, connections are
 * reset, as they are when an API server goes away. `httpRoutes.ts` answers each request.
 *
 * @module
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { KubeConfig } from "@kubernetes/client-node"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import type * as Scope from "effect/Scope"
import { handle, send } from "./httpRoutes.ts"
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

/** Serves `fake` on a loopback port until the scope closes. */
export const serveHttp = (
  fake: FakeApiServer,
  options: { readonly token?: string | undefined } = {},
): Effect.Effect<FakeHttpServer, never, Scope.Scope> =>
  Effect.gen(function* () {
    const token = options.token ?? "krtt-test-token"
    const run = yield* FiberSet.makeRuntime<never>()
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
          const fiber = run(handle(fake, req, res, body))
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
