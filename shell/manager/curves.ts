/**
 * TLS key exchange groups (`--tls-curve-preferences`): Go's crypto/tls CurveIDs, which upstream's
 * manager takes, and the OpenSSL group names Node's `ecdhCurve` takes.
 *
 * @module
 */
import { createSecureContext } from "node:tls"

/** A key exchange group: its Go CurveID (the IANA TLS group number) and its OpenSSL name. */
export interface TlsCurve {
  readonly id: number
  readonly openssl: string
}

/**
 * The CurveIDs Go's crypto/tls names (Go 1.26, which upstream v1.14 is built with), in the order
 * of preference Go applies to any configured list: the order a list is given in does not matter.
 */
export const TlsCurves: ReadonlyArray<TlsCurve> = [
  { id: 4588, openssl: "X25519MLKEM768" },
  { id: 4587, openssl: "SecP256r1MLKEM768" },
  { id: 4589, openssl: "SecP384r1MLKEM1024" },
  { id: 29, openssl: "X25519" },
  { id: 23, openssl: "P-256" },
  { id: 24, openssl: "P-384" },
  { id: 25, openssl: "P-521" },
]

/** Whether the OpenSSL Node runs on can negotiate a group (post-quantum ones need OpenSSL 3.5). */
export const opensslSupportsGroup = (name: string): boolean => {
  try {
    createSecureContext({ ecdhCurve: name })
    return true
  } catch {
    return false
  }
}

/**
 * The OpenSSL group list (`ecdhCurve`) for CurveIDs, in Go's order of preference; empty for an
 * empty list (Node's defaults). Throws, naming the value, on what Go refuses (outside 1-65535, a
 * duplicate, an unknown CurveID) and on a group this Node's OpenSSL lacks.
 */
export const curveGroups = (
  ids: ReadonlyArray<number>,
  supported: (openssl: string) => boolean = opensslSupportsGroup,
): ReadonlyArray<string> => {
  const seen = new Set<number>()
  for (const id of ids) {
    if (id <= 0 || id > 65535) throw new Error(`curve preference ${id} is out of range (must be 1-65535)`)
    if (seen.has(id)) throw new Error(`duplicate curve preference ${id}`)
    seen.add(id)
    const curve = TlsCurves.find((c) => c.id === id)
    if (curve === undefined)
      throw new Error(
        `curve preference ${id} is not a crypto/tls CurveID (known: ${TlsCurves.map((c) => `${c.id} ${c.openssl}`).join(", ")})`,
      )
    if (!supported(curve.openssl))
      throw new Error(
        `curve preference ${id} (${curve.openssl}) is not supported by Node's OpenSSL ${process.versions.openssl}`,
      )
  }
  return TlsCurves.filter((c) => seen.has(c.id)).map((c) => c.openssl)
}
