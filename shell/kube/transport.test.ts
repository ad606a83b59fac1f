import { once } from "node:events"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { KubeConfig } from "@kubernetes/client-node"
import * as Effect from "effect/Effect"
import { selfSignedCertificate } from "../manager/diagnostics.ts"
import { identityOf, poolAgent, poolCount, pooled } from "./agentPools.ts"
import { send } from "./transport.ts"

const serving = selfSignedCertificate(["127.0.0.1"], Date.now())
const otherCa = selfSignedCertificate(["127.0.0.1"], Date.now())
const clientCert = selfSignedCertificate(["client"], Date.now())

/** An HTTPS server answering each request with its Authorization header and connection number. */
const serve = Effect.acquireRelease(
  Effect.promise(async () => {
    let connections = 0
    const server = https.createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
      const socket = req.socket as typeof req.socket & { n?: number }
      res.setHeader("Content-Type", "application/json")
      res.end(JSON.stringify({ authorization: req.headers.authorization ?? null, connection: socket.n }))
    })
    server.on("secureConnection", (socket: { n?: number }) => {
      socket.n = ++connections
    })
    server.listen(0, "127.0.0.1")
    await once(server, "listening")
    return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}` }
  }),
  ({ server }) =>
    Effect.promise(() => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    }),
)

const b64 = (pem: string) => Buffer.from(pem).toString("base64")

const kubeconfig = (
  server: string,
  user: { readonly token?: string; readonly cert?: string; readonly key?: string },
  ca = serving.cert,
) => {
  const kc = new KubeConfig()
  kc.loadFromOptions({
    clusters: [{ name: "c", server, caData: b64(ca), skipTLSVerify: false }],
    users: [
      {
        name: "u",
        ...(user.token === undefined ? {} : { token: user.token }),
        ...(user.cert === undefined ? {} : { certData: b64(user.cert) }),
        ...(user.key === undefined ? {} : { keyData: b64(user.key) }),
      },
    ],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  })
  return kc
}

const get = (kc: KubeConfig) =>
  Effect.map(
    send(kc, { method: "GET", path: "/", verb: "probe" }, { userAgent: "test", timeoutMs: 5_000 }),
    (r) => r.body as { readonly authorization: string | null; readonly connection: number },
  )

/** The pool identity of a kubeconfig's requests to its server. */
const identity = (kc: KubeConfig) =>
  Effect.promise(async () => {
    const options: https.RequestOptions = {}
    await kc.applyToHTTPSOptions(options)
    const url = new URL(kc.getCurrentCluster()?.server ?? "")
    return { id: identityOf(url, options as Record<string, unknown>), agent: pooled(url, options).agent }
  })

describe("transport pools", () => {
  it.effect("clients differing only by token share a pool and a socket and send their own tokens", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { url } = yield* serve
        const a = kubeconfig(url, { token: "token-a" })
        const b = kubeconfig(url, { token: "token-b" })
        const ra = yield* get(a)
        const rb = yield* get(b)
        const ra2 = yield* get(a)
        assert.strictEqual(ra.authorization, "Bearer token-a")
        assert.strictEqual(rb.authorization, "Bearer token-b")
        assert.strictEqual(ra2.authorization, "Bearer token-a")
        assert.strictEqual(rb.connection, ra.connection)
        assert.strictEqual(ra2.connection, ra.connection)
        const ia = yield* identity(a)
        const ib = yield* identity(b)
        assert.strictEqual(ia.id, ib.id)
        assert.strictEqual(ia.agent, ib.agent)
        assert.strictEqual(ia.agent, poolAgent(ia.id))
      }),
    ),
  )

  it.effect("a different CA or client certificate is another pool", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { url } = yield* serve
        const plain = yield* identity(kubeconfig(url, { token: "t" }))
        const ca = yield* identity(kubeconfig(url, { token: "t" }, otherCa.cert))
        const cert = yield* identity(kubeconfig(url, { cert: clientCert.cert, key: clientCert.key }))
        const otherServer = yield* identity(kubeconfig("https://127.0.0.2:1", { token: "t" }))
        assert.notStrictEqual(ca.id, plain.id)
        assert.notStrictEqual(cert.id, plain.id)
        assert.notStrictEqual(otherServer.id, plain.id)
        assert.notStrictEqual(ca.agent, plain.agent)
        assert.notStrictEqual(cert.agent, plain.agent)
        assert.notStrictEqual(cert.agent, ca.agent)
        // A client certificate is a credential: it never reaches the server over another's pool.
        const withCert = yield* get(kubeconfig(url, { cert: clientCert.cert, key: clientCert.key }))
        const withToken = yield* get(kubeconfig(url, { token: "t" }))
        assert.notStrictEqual(withCert.connection, withToken.connection)
        assert.strictEqual(withCert.authorization, null)
      }),
    ),
  )

  it.effect("a pool is released when its last socket closes", () =>
    Effect.gen(function* () {
      const before = poolCount()
      const { id } = yield* Effect.scoped(
        Effect.gen(function* () {
          const { url } = yield* serve
          const kc = kubeconfig(url, { token: "release" }, serving.cert)
          yield* get(kc)
          const current = yield* identity(kc)
          assert.isDefined(poolAgent(current.id))
          return current
        }),
      )
      // The server has closed every connection: the pool's sockets are gone.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
      assert.isUndefined(poolAgent(id))
      assert.isAtMost(poolCount(), before)
    }),
  )

  it("leaves proxy agents as client-node makes them", () => {
    class ProxyAgent extends https.Agent {}
    const agent = new ProxyAgent()
    const options = { agent, ca: "x" }
    assert.strictEqual(pooled(new URL("https://example.invalid"), options), options)
  })
})
