import { mkdtempSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { connect } from "node:tls"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import { serveWebhooks } from "../webhook/server.ts"
import { curveGroups, opensslSupportsGroup, TlsCurves } from "./curves.ts"
import { selfSignedCertificate, serveTlsOn, type TlsSettings } from "./diagnostics.ts"

describe("curveGroups (--tls-curve-preferences)", () => {
  it("maps Go's CurveIDs to OpenSSL's group names, in Go's order of preference", () => {
    expect(curveGroups([])).toEqual([])
    expect(curveGroups([23, 24, 25, 29])).toEqual(["X25519", "P-256", "P-384", "P-521"])
    expect(curveGroups([4588, 23], () => true)).toEqual(["X25519MLKEM768", "P-256"])
    expect(TlsCurves.map((c) => c.id).sort((a, b) => a - b)).toEqual([23, 24, 25, 29, 4587, 4588, 4589])
  })

  it("refuses what Go refuses, and a group this Node's OpenSSL lacks, naming the value", () => {
    expect(() => curveGroups([0])).toThrow("curve preference 0 is out of range (must be 1-65535)")
    expect(() => curveGroups([65536])).toThrow("out of range")
    expect(() => curveGroups([23, 29, 23])).toThrow("duplicate curve preference 23")
    expect(() => curveGroups([9999])).toThrow(/curve preference 9999 is not a crypto\/tls CurveID/)
    expect(() => curveGroups([29, 4588], (name) => name !== "X25519MLKEM768")).toThrow(
      /curve preference 4588 \(X25519MLKEM768\) is not supported by Node's OpenSSL/,
    )
  })

  it("knows what the running OpenSSL supports", () => {
    for (const name of ["X25519", "P-256", "P-384", "P-521"])
      expect(opensslSupportsGroup(name), name).toBe(true)
    expect(opensslSupportsGroup("NoSuchGroup")).toBe(false)
  })
})

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port
      s.close(() => resolve(p))
    })
  })

/**
 * The ECDH group a handshake with a client offering only `curve` agreed on; `no ECDH` when the
 * handshake used another key exchange (TLS 1.2's RSA suites), or the handshake's error.
 */
const handshake = (port: number, curve: string, maxVersion: "TLSv1.2" | "TLSv1.3") =>
  new Promise<string>((resolve) => {
    const socket = connect(
      { host: "127.0.0.1", port, rejectUnauthorized: false, ecdhCurve: curve, maxVersion },
      () => {
        const key = socket.getEphemeralKeyInfo() as { type?: string; name?: string } | null
        resolve(key?.type === "ECDH" ? String(key.name) : "no ECDH")
        socket.end()
      },
    )
    socket.on("error", (e) => resolve(`error: ${e.message}`))
  })

/** Offers each group in turn, over TLS 1.3 and 1.2: the ECDH groups the server agreed to. */
const agreed = async (port: number) => {
  const out: Array<string> = []
  for (const version of ["TLSv1.3", "TLSv1.2"] as const)
    for (const curve of ["X25519", "P-256", "P-384", "P-521"]) {
      const r = await handshake(port, curve, version)
      if (!r.startsWith("error") && r !== "no ECDH") out.push(`${version} ${r}`)
    }
  return out
}

const certificate = selfSignedCertificate(["127.0.0.1"], Date.UTC(2026, 0, 1))
const tls = (curves: ReadonlyArray<string>): TlsSettings => ({ minVersion: "TLSv1.2", ciphers: [], curves })
const serving = <A>(layer: Layer.Layer<never, unknown>, body: () => Promise<A>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        yield* Layer.build(layer)
        return yield* Effect.promise(body)
      }),
    ),
  )

describe("the HTTPS servers negotiate only the configured groups", () => {
  it("the diagnostics server", async () => {
    const port = await freePort()
    const routes = Layer.empty as Layer.Layer<never>
    const only = await serving(
      serveTlsOn({ host: "127.0.0.1", port }, routes, certificate, tls(["P-384"])),
      () => agreed(port),
    )
    expect(only).toEqual(["TLSv1.3 secp384r1", "TLSv1.2 secp384r1"])
    const port2 = await freePort()
    const defaults = await serving(
      serveTlsOn({ host: "127.0.0.1", port: port2 }, routes, certificate, tls([])),
      () => agreed(port2),
    )
    expect(defaults).toContain("TLSv1.3 X25519")
    expect(defaults).toContain("TLSv1.3 prime256v1")
  }, 30_000)

  it("the webhook server", async () => {
    const dir = mkdtempSync(join(tmpdir(), "krtt-curves-"))
    writeFileSync(join(dir, "tls.crt"), certificate.cert)
    writeFileSync(join(dir, "tls.key"), certificate.key)
    const port = await freePort()
    const options = {
      host: "127.0.0.1",
      port,
      certDir: dir,
      certName: "tls.crt",
      keyName: "tls.key",
      tls: tls(["X25519", "P-521"]),
    }
    const got = await serving(
      serveWebhooks(options, () => "v1beta2"),
      () => agreed(port),
    )
    expect(got).toEqual(["TLSv1.3 X25519", "TLSv1.3 secp521r1", "TLSv1.2 X25519", "TLSv1.2 secp521r1"])
  }, 30_000)
})
