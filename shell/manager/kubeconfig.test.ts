import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { resolveKubeconfig } from "./kubeconfig.ts"

const dir = mkdtempSync(join(tmpdir(), "krtt-kc-"))
const kc = (server: string) =>
  `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${server}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`
const file = (name: string, text: string) => {
  const p = join(dir, name)
  writeFileSync(p, text)
  return p
}

describe("resolveKubeconfig", () => {
  it("prefers --kubeconfig, then KUBECONFIG, then ~/.kube/config", () => {
    const a = file("a", kc("https://a"))
    const b = file("b", kc("https://b"))
    expect(resolveKubeconfig(a, { KUBECONFIG: b }, dir)?.kubeconfig.getCurrentCluster()?.server).toBe(
      "https://a",
    )
    expect(resolveKubeconfig(undefined, { KUBECONFIG: b }, dir)?.source).toBe(b)
  })
  it("is undefined when nothing is configured", () => {
    expect(resolveKubeconfig(undefined, {}, join(dir, "nohome"))).toBeUndefined()
  })
  it("names the flag and the path of a bad file, never its contents", () => {
    const bad = file("bad", "clusters: [this is not: a kubeconfig")
    expect(() => resolveKubeconfig(bad, {}, dir)).toThrow(/--kubeconfig .*bad: /)
    expect(() => resolveKubeconfig(join(dir, "missing"), {}, dir)).toThrow(/no such file/)
    try {
      resolveKubeconfig(bad, {}, dir)
    } catch (e) {
      expect((e as Error).message).not.toContain("this is not")
    }
  })
})
