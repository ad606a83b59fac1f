// The webhook server under hostile clients, over real HTTPS: bodies over the limit (announced or
// chunked), a client that never finishes its headers, more connections than allowed, and a
// thousand generated malformed requests. Every answer is a well-formed refusal or review, and
// the server answers a good request afterwards.
import { mkdtempSync, writeFileSync } from "node:fs"
import https from "node:https"
import net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import tls from "node:tls"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ServerLimits } from "../http/limits.ts"
import { selfSignedCertificate } from "../manager/diagnostics.ts"
import { serveWebhooks } from "./server.ts"

const LIMITS: ServerLimits = {
  maxRequestBytes: 64 * 1024,
  headersTimeoutMs: 400,
  requestTimeoutMs: 2_000,
  idleTimeoutMs: 1_000,
  maxHeaderBytes: 16 * 1024,
  maxConnections: 8,
}
const PATHS = [
  "/convert",
  "/mutate-cluster-x-k8s-io-v1beta2-cluster",
  "/validate-cluster-x-k8s-io-v1beta2-cluster",
]

let port: number
let scope: Scope.Closeable
const agent = new https.Agent({ keepAlive: true, maxSockets: 4, rejectUnauthorized: false })

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port
      s.close(() => resolve(p))
    })
  })

/** One POST; the status and the body (a body given as a Buffer is sent as it is, chunked when asked). */
const post = (path: string, body: string | Buffer, chunked = false) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = https.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        agent,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        let text = ""
        res.on("data", (d: Buffer) => {
          text += d.toString()
        })
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }))
      },
    )
    req.on("error", reject)
    if (chunked) {
      req.setHeader("transfer-encoding", "chunked")
      for (let i = 0; i < body.length; i += 8192) req.write(body.slice(i, i + 8192))
      req.end()
    } else req.end(body)
  })

const conversion = (objects: number) =>
  JSON.stringify({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    request: { uid: "u", desiredAPIVersion: "cluster.x-k8s.io/v1beta2", objects: Array(objects).fill({}) },
  })

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "krtt-webhook-limits-"))
  const c = selfSignedCertificate(["127.0.0.1"], Date.now())
  writeFileSync(join(dir, "tls.crt"), c.cert)
  writeFileSync(join(dir, "tls.key"), c.key)
  port = await freePort()
  scope = await Effect.runPromise(Scope.make())
  const options = {
    host: "127.0.0.1",
    port,
    certDir: dir,
    certName: "tls.crt",
    keyName: "tls.key",
    tls: { minVersion: "TLSv1.2" as const, ciphers: [] },
    limits: LIMITS,
  }
  await Effect.runPromise(Scope.provide(Layer.build(serveWebhooks(options, () => "v1beta2")), scope))
})

afterAll(async () => {
  agent.destroy()
  await Effect.runPromise(Scope.close(scope, Effect.void as never))
})

describe("the webhook server's limits", () => {
  it("refuses an announced body over the limit with 413, and stops reading a chunked one (400)", async () => {
    const big = conversion(25_000)
    expect(big.length).toBeGreaterThan(LIMITS.maxRequestBytes)
    const announced = await post("/convert", big)
    expect(announced.status).toBe(413)
    expect(JSON.parse(announced.text).message).toMatch(/too large; limit is 65536 bytes/)
    const chunked = await post("/convert", Buffer.from(big), true)
    expect(chunked.status).toBe(400)
    expect(JSON.parse(chunked.text).message).toMatch(/at most 65536 bytes/)
    expect((await post("/convert", conversion(100))).status).toBe(200)
  })

  it("closes a connection whose headers do not arrive in time", async () => {
    const started = Date.now()
    const closedAfter = await new Promise<number>((resolve, reject) => {
      const socket = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
        socket.write("POST /convert HTTP/1.1\r\nHost: x\r\n")
        const drip = setInterval(() => socket.write("X-Slow: 1\r\n"), 100)
        socket.on("close", () => {
          clearInterval(drip)
          resolve(Date.now() - started)
        })
      })
      socket.on("error", () => undefined)
      setTimeout(() => reject(new Error("still open after 5 s")), 5_000)
    })
    expect(closedAfter).toBeLessThan(LIMITS.headersTimeoutMs + 1_500)
  })

  it("closes connections beyond the limit as they come, and serves again once they go", async () => {
    const open = await Promise.all(
      Array.from(
        { length: LIMITS.maxConnections + 2 },
        () =>
          new Promise<net.Socket>((resolve) => {
            const s = net.connect({ host: "127.0.0.1", port }, () => resolve(s))
            s.on("error", () => undefined)
          }),
      ),
    )
    await new Promise((r) => setTimeout(r, 200))
    const closed = open.filter((s) => s.destroyed || s.readyState !== "open").length
    expect(closed).toBeGreaterThanOrEqual(2)
    for (const s of open) s.destroy()
    await new Promise((r) => setTimeout(r, 200))
    expect((await post("/convert", conversion(1))).status).toBe(200)
  })

  it("answers 1,000 malformed requests with well-formed refusals or reviews, never a server error", async () => {
    const json = fc.oneof(
      fc.string(),
      fc.json(),
      fc.jsonValue().map((v) => JSON.stringify({ request: v })),
      fc
        .record({ uid: fc.option(fc.string()), kind: fc.string(), operation: fc.string() })
        .map((r) => JSON.stringify({ kind: "AdmissionReview", request: { ...r, object: { spec: r } } })),
      fc.integer({ min: 0, max: 300 }).map(conversion),
      fc.string().map((s) => conversion(3).slice(0, Math.max(1, s.length))),
    )
    const bodies = fc.sample(fc.tuple(fc.constantFrom(...PATHS), json), { numRuns: 1_000, seed: 20261126 })
    const statuses = new Map<number, number>()
    for (const [path, body] of bodies) {
      const r = await post(path, body)
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)
      expect([200, 400, 413], `${path} ${body.slice(0, 80)}`).toContain(r.status)
      expect(() => JSON.parse(r.text), r.text.slice(0, 80)).not.toThrow()
    }
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0)
    expect(statuses.get(400) ?? 0).toBeGreaterThan(0)
    expect((await post("/convert", conversion(1))).status).toBe(200)
  }, 120_000)
})
