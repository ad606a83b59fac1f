import { describe, expect, it } from "vitest"
import {
  bitsOf,
  type Cidr,
  cidrOf,
  compareCidr,
  contains,
  formatCidr,
  isCidrError,
  lastOf,
  overlaps,
  parseCidr,
  sizeOf,
} from "./cidr.ts"

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

describe("parseCidr() at the edges of the text forms (RFC 4291 section 2.2)", () => {
  const ok = (text: string, canonical: string) => expect(formatCidr(cidrOf(text)), text).toBe(canonical)
  const refused = (text: string, why: RegExp) => {
    const r = parseCidr(text)
    expect(isCidrError(r) ? r.message : `parsed as ${formatCidr(r as Cidr)}`, text).toMatch(why)
  }
  it("reads every full and compressed IPv6 form", () => {
    ok("1:2:3:4:5:6:7:8/128", "1:2:3:4:5:6:7:8/128")
    ok("1::2:3:4:5:6:7/128", "1:0:2:3:4:5:6:7/128")
    ok("::2:3:4:5:6:7:8/128", "0:2:3:4:5:6:7:8/128")
    ok("1:2:3:4:5:6:7::/128", "1:2:3:4:5:6:7:0/128")
    ok("::1.2.3.4/128", "::102:304/128")
    ok("1:2:3:4:5:6:1.2.3.4/128", "1:2:3:4:5:6:102:304/128")
    ok("ABCD:EF01::/32", "abcd:ef01::/32")
  })
  it("refuses IPv6 texts with too many or too few groups, bad groups or a misplaced IPv4 part", () => {
    for (const bad of [
      "1:2:3:4:5:6:7/112",
      "1:2:3:4:5:6:7:8:9/128",
      "1::2:3:4:5:6:7:8/128",
      "1:::2/64",
      "::1::/128",
      ":1::/64",
      "1::2:/64",
      "::1:/64",
      "12345::/16",
      "g::/16",
      "1.2.3.4::/128",
      "::1.2.3.4:5/128",
      "::1.2.3/128",
      "::1.2.3.256/128",
      "1:2:3:4:5:6:7:1.2.3.4/128",
    ])
      refused(bad, /is not an IPv6 address/)
  })
  it("refuses IPv4 texts with a wrong number of octets or a bad octet", () => {
    for (const bad of [
      "1.2.3.4.5/32",
      "1.2.3/24",
      "1.2.3.-4/32",
      "1.2.3.1000/32",
      "1.2.3.04/32",
      "1..3.4/32",
    ])
      refused(bad, /is not an IPv4 address/)
    ok("255.255.255.255/32", "255.255.255.255/32")
    ok("0.0.0.0/0", "0.0.0.0/0")
  })
  it("reads a prefix length up to the family's bits and no further", () => {
    ok("10.0.0.0/32", "10.0.0.0/32")
    ok("fd00::/128", "fd00::/128")
    refused("10.0.0.0/33", /the prefix length 33 exceeds 32/)
    refused("::/129", /the prefix length 129 exceeds 128/)
    refused("10.0.0.0/", /"" is not a prefix length/)
    refused("10.0.0.0/08", /"08" is not a prefix length/)
    refused("10.0.0.0/1000", /"1000" is not a prefix length/)
    refused("10.0.0.0/-1", /"-1" is not a prefix length/)
    refused("10.0.0.0", /prefix length after '\/' is missing/)
  })
  it("names the network when host bits are set, in both families", () => {
    refused("10.0.0.128/24", /host bits are set; the network is 10\.0\.0\.0\/24/)
    refused("fd00::1/64", /host bits are set; the network is fd00::\/64/)
    refused("0.0.0.1/0", /the network is 0\.0\.0\.0\/0/)
    ok("10.0.0.128/25", "10.0.0.128/25")
  })
  it("answers a MalformedCidrError; cidrOf() throws it for a text this program did not write", () => {
    expect(parseCidr("10.0.0.0/33")).toMatchObject({ _tag: "MalformedCidrError" })
    expect(() => cidrOf("10.0.0.1/24")).toThrow(/host bits are set/)
  })
  it("refuses what is not a string, quoting the input", () => {
    refused(42 as unknown as string, /not a string/)
    refused("x/1", /^"x\/1" is not a CIDR: /)
  })
})

describe("formatCidr() follows RFC 5952 section 4.2", () => {
  const canon = (text: string) => formatCidr(cidrOf(`${text}/128`)).replace(/\/128$/, "")
  it("never compresses a single zero group (4.2.2)", () => {
    expect(canon("2001:db8:0:1:1:1:1:1")).toBe("2001:db8:0:1:1:1:1:1")
  })
  it("compresses the longest run of zero groups (4.2.3), the first of equal runs", () => {
    expect(canon("2001:0:0:1:0:0:0:1")).toBe("2001:0:0:1::1")
    expect(canon("2001:db8:0:0:1:0:0:1")).toBe("2001:db8::1:0:0:1")
    expect(canon("1:0:0:0:0:0:0:0")).toBe("1::")
    expect(canon("0:0:0:0:0:0:0:1")).toBe("::1")
    expect(canon("0:0:0:0:0:0:0:0")).toBe("::")
    expect(canon("1:0:0:2:3:4:5:6")).toBe("1::2:3:4:5:6")
  })
  it("writes groups without leading zeros, in lower case (4.1, 4.3)", () => {
    expect(canon("00FF:0ABC:1:2:3:4:5:6")).toBe("ff:abc:1:2:3:4:5:6")
  })
})

describe("contains(), overlaps() and compareCidr() at their boundaries", () => {
  const c = cidrOf
  it("contains() holds for equal CIDRs and for the first and last sub-block, not for a bigger one", () => {
    expect(contains(c("10.0.0.0/16"), c("10.0.0.0/16"))).toBe(true)
    expect(contains(c("10.0.0.0/16"), c("10.0.0.0/24"))).toBe(true)
    expect(contains(c("10.0.0.0/16"), c("10.0.255.0/24"))).toBe(true)
    expect(contains(c("10.0.0.0/16"), c("10.1.0.0/24"))).toBe(false)
    expect(contains(c("10.0.0.0/16"), c("9.255.255.0/24"))).toBe(false)
    expect(contains(c("10.0.0.0/24"), c("10.0.0.0/16"))).toBe(false)
    expect(contains(c("0.0.0.0/0"), c("::/128"))).toBe(false)
  })
  it("overlaps() holds when the CIDRs share one address, in either order, and not when adjacent", () => {
    expect(overlaps(c("10.0.0.255/32"), c("10.0.0.0/24"))).toBe(true)
    expect(overlaps(c("10.0.0.0/24"), c("10.0.0.255/32"))).toBe(true)
    expect(overlaps(c("10.0.0.0/32"), c("10.0.0.0/24"))).toBe(true)
    expect(overlaps(c("10.0.0.0/24"), c("10.0.1.0/24"))).toBe(false)
    expect(overlaps(c("10.0.1.0/24"), c("10.0.0.0/24"))).toBe(false)
  })
  it("compareCidr() orders by family, then address, then prefix length", () => {
    const sorted = ["fd00::/8", "10.0.0.0/16", "10.0.0.0/8", "9.0.0.0/8", "::/0"].map(c).sort(compareCidr)
    expect(sorted.map(formatCidr)).toEqual(["9.0.0.0/8", "10.0.0.0/8", "10.0.0.0/16", "::/0", "fd00::/8"])
    expect(compareCidr(c("10.0.0.0/8"), c("10.0.0.0/8"))).toBe(0)
    expect(Math.sign(compareCidr(c("10.0.0.0/8"), c("9.0.0.0/8")))).toBe(1)
    expect(Math.sign(compareCidr(c("9.0.0.0/8"), c("10.0.0.0/8")))).toBe(-1)
    expect(Math.sign(compareCidr(c("10.0.0.0/16"), c("10.0.0.0/8")))).toBe(1)
    expect(Math.sign(compareCidr(c("::/0"), c("10.0.0.0/8")))).toBe(1)
  })
  it("sizeOf() and lastOf() count the block's addresses", () => {
    expect(sizeOf(c("10.0.0.0/32"))).toBe(1n)
    expect(sizeOf(c("0.0.0.0/0"))).toBe(1n << 32n)
    expect(lastOf(c("10.0.0.0/24"))).toBe(c("10.0.0.255/32").base)
    expect(bitsOf(4)).toBe(32)
    expect(bitsOf(6)).toBe(128)
  })
})
