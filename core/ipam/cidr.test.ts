import { describe, expect, it } from "vitest"
import { cidrOf, contains, formatCidr, isCidrError, overlaps, parseCidr, sizeOf } from "./cidr.ts"

describe("parseCidr()", () => {
  it("reads IPv4 and IPv6 and writes the canonical text (RFC 5952)", () => {
    expect(formatCidr(cidrOf("10.27.0.0/16"))).toBe("10.27.0.0/16")
    expect(formatCidr(cidrOf("2001:DB8:0:0:1:0:0:1/128"))).toBe("2001:db8::1:0:0:1/128")
    expect(formatCidr(cidrOf("fd00:0:0:0::/48"))).toBe("fd00::/48")
    expect(formatCidr(cidrOf("::/0"))).toBe("::/0")
    expect(formatCidr(cidrOf("::ffff:1.2.3.4/128"))).toBe("::ffff:102:304/128")
  })
  it("refuses malformed text, naming what is wrong", () => {
    for (const bad of [
      "10.0.0.0",
      "10.0.0/8",
      "10.0.0.256/32",
      "10.0.0.0/33",
      "010.0.0.0/8",
      "1::2::3/64",
      "fd00::/129",
      "x/1",
      "10.0.0.0/ 8",
    ]) {
      const r = parseCidr(bad)
      expect(isCidrError(r), bad).toBe(true)
    }
    const r = parseCidr("10.0.0.1/24")
    expect(isCidrError(r) && r.message).toContain("10.0.0.0/24")
  })
  it("sizes, containment and overlap use bigint arithmetic in both families", () => {
    expect(sizeOf(cidrOf("fd00::/48"))).toBe(1n << 80n)
    expect(contains(cidrOf("fd00::/48"), cidrOf("fd00:0:0:ffff::/64"))).toBe(true)
    expect(contains(cidrOf("fd00::/48"), cidrOf("fd00:0:1::/64"))).toBe(false)
    expect(overlaps(cidrOf("10.0.0.0/8"), cidrOf("10.1.0.0/16"))).toBe(true)
    expect(overlaps(cidrOf("10.0.0.0/16"), cidrOf("10.1.0.0/16"))).toBe(false)
    expect(overlaps(cidrOf("0.0.0.0/0"), cidrOf("::/0"))).toBe(false)
  })
})
