import { describe, expect, it } from "vitest"
import { review } from "./server.ts"

const resolve = (group: string) => (group === "infrastructure.example.com" ? "v1alpha1" : undefined)
const cluster = (spec: Record<string, unknown>) => ({
  apiVersion: "cluster.x-k8s.io/v1beta2",
  kind: "Cluster",
  metadata: { name: "c", namespace: "n" },
  spec,
})

describe("review (POST /convert)", () => {
  it("converts every object to the desired version and echoes the request's uid", () => {
    const r = review(
      {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "ConversionReview",
        request: {
          uid: "u-1",
          desiredAPIVersion: "cluster.x-k8s.io/v1beta1",
          objects: [
            cluster({ infrastructureRef: { apiGroup: "infrastructure.example.com", kind: "K", name: "c" } }),
          ],
        },
      },
      resolve,
    ) as {
      response: {
        uid: string
        result: { status: string }
        convertedObjects: Array<{ apiVersion: string; spec: unknown }>
      }
    }
    expect(r.response.uid).toBe("u-1")
    expect(r.response.result.status).toBe("Success")
    expect(r.response.convertedObjects[0]?.apiVersion).toBe("cluster.x-k8s.io/v1beta1")
    expect(r.response.convertedObjects[0]?.spec).toEqual({
      infrastructureRef: { apiVersion: "infrastructure.example.com/v1alpha1", kind: "K", name: "c" },
    })
  })

  it("fails naming the object and the field, or the desired version", () => {
    const bad = review(
      {
        request: {
          uid: "u-2",
          desiredAPIVersion: "cluster.x-k8s.io/v1beta1",
          objects: [cluster({ controlPlaneRef: { apiGroup: "unknown.io", kind: "K", name: "c" } })],
        },
      },
      resolve,
    ) as { response: { uid: string; result: { status: string; message: string } } }
    expect(bad.response).toMatchObject({ uid: "u-2", result: { status: "Failure" } })
    expect(bad.response.result.message).toMatch(/^Cluster n\/c: spec\.controlPlaneRef: /)
    const version = review(
      { request: { uid: "u-3", desiredAPIVersion: "cluster.x-k8s.io/v1alpha3", objects: [] } },
      resolve,
    ) as {
      response: { result: { message: string } }
    }
    expect(version.response.result.message).toContain("request.desiredAPIVersion")
  })
})

describe("mutate and validate (upstream's Cluster admission paths)", () => {
  it("defaults a topology version with a JSON patch", async () => {
    const { mutate } = await import("./server.ts")
    const r = mutate({
      request: {
        uid: "m",
        object: {
          metadata: { name: "c" },
          spec: { topology: { classRef: { name: "q" }, version: "1.34.0" } },
        },
      },
    }) as { response: { uid: string; allowed: boolean; patchType: string; patch: string } }
    expect(r.response).toMatchObject({ uid: "m", allowed: true, patchType: "JSONPatch" })
    expect(JSON.parse(Buffer.from(r.response.patch, "base64").toString())).toEqual([
      { op: "replace", path: "/spec/topology/version", value: "v1.34.0" },
    ])
  })
  it("refuses an invalid update with 422 and a message naming the field; allows deletes", async () => {
    const { validate } = await import("./server.ts")
    const refs = { infrastructureRef: { apiGroup: "g", kind: "K", name: "c" } }
    const r = validate(
      {
        request: {
          uid: "v",
          operation: "UPDATE",
          oldObject: { metadata: { name: "c" }, spec: refs },
          object: { metadata: { name: "c" }, spec: {} },
        },
      },
      { clusterTopology: false },
    ) as { response: { allowed: boolean; status: { code: number; message: string } } }
    expect(r.response.allowed).toBe(false)
    expect(r.response.status.code).toBe(422)
    expect(r.response.status.message).toContain("spec.infrastructureRef: Forbidden: cannot be removed")
    const d = validate({ request: { uid: "d", operation: "DELETE" } }, { clusterTopology: false }) as {
      response: { allowed: boolean }
    }
    expect(d.response.allowed).toBe(true)
  })
})

describe("serveWebhooks", () => {
  it("serves /convert over HTTPS and loads a renewed certificate without a restart", async () => {
    const { mkdtempSync, writeFileSync } = await import("node:fs")
    const { tmpdir } = await import("node:os")
    const { join } = await import("node:path")
    const net = await import("node:net")
    const tls = await import("node:tls")
    const https = await import("node:https")
    const { Effect, Layer } = await import("effect")
    const { selfSignedCertificate } = await import("../manager/diagnostics.ts")
    const { serveWebhooks } = await import("./server.ts")
    const dir = mkdtempSync(join(tmpdir(), "krtt-webhook-"))
    const write = (c: { cert: string; key: string }) => {
      writeFileSync(join(dir, "tls.key"), c.key)
      writeFileSync(join(dir, "tls.crt"), c.cert)
    }
    const first = selfSignedCertificate(["127.0.0.1"], Date.UTC(2026, 0, 1))
    const second = selfSignedCertificate(["127.0.0.1"], Date.UTC(2026, 0, 2))
    write(first)
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port
        s.close(() => resolve(p))
      })
    })
    const served = () =>
      new Promise<string>((resolve, reject) => {
        const socket = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
          resolve(socket.getPeerX509Certificate()?.toString() ?? "")
          socket.end()
        })
        socket.on("error", reject)
      })
    const { X509Certificate } = await import("node:crypto")
    const pem = (c: string) => new X509Certificate(c).toString()
    const post = (body: unknown) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = https.request(
          {
            host: "127.0.0.1",
            port,
            path: "/convert",
            method: "POST",
            rejectUnauthorized: false,
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
        req.end(JSON.stringify(body))
      })
    const options = {
      host: "127.0.0.1",
      port,
      certDir: dir,
      certName: "tls.crt",
      keyName: "tls.key",
      tls: { minVersion: "TLSv1.2" as const, ciphers: [] },
    }
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          yield* Layer.build(serveWebhooks(options, () => "v1beta2"))
          expect(yield* Effect.promise(served)).toBe(pem(first.cert))
          const r = yield* Effect.promise(() =>
            post({ request: { uid: "u", desiredAPIVersion: "cluster.x-k8s.io/v1beta2", objects: [] } }),
          )
          expect(r.status).toBe(200)
          expect(JSON.parse(r.text).response.result.status).toBe("Success")
          write(second)
          let now = ""
          for (let i = 0; i < 100 && now !== pem(second.cert); i++) {
            yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 50)))
            now = yield* Effect.promise(served)
          }
          expect(now).toBe(pem(second.cert))
        }),
      ),
    )
  }, 30_000)
})
