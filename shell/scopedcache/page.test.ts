// Pages of a list read from the scoped cache: limit, continue, and tokens the cache did not issue.
import { assert, describe, it } from "@effect/vitest"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { InvalidContinueToken } from "./errors.ts"
import { pageOf } from "./page.ts"

const cms = Resources.configMaps
const objects: ReadonlyArray<KubeObject> = ["a/1", "a/2", "b/1", "c/1"].map((k) => {
  const [namespace, name] = k.split("/") as [string, string]
  return { metadata: { namespace, name } }
})
const keys = (items: ReadonlyArray<KubeObject>) =>
  items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)
const page = (options: Parameters<typeof pageOf>[2], resource = cms) => {
  const p = pageOf(resource, objects, options)
  if (p instanceof InvalidContinueToken) throw p
  return p
}

describe("pageOf", () => {
  it("without limit (or 0, or a limit at least the length), everything and no token", () => {
    for (const limit of [undefined, 0, -1, 4, 5]) {
      const p = page({ limit })
      assert.deepStrictEqual(keys(p.items), ["a/1", "a/2", "b/1", "c/1"], String(limit))
      assert.isUndefined(p.continue)
      assert.isUndefined(p.remainingItemCount)
    }
  })

  it("walks every page by its tokens, each object once", () => {
    const seen: Array<string> = []
    let token: string | undefined
    const remaining: Array<number | undefined> = []
    do {
      const p = page({ limit: 1, continue: token })
      seen.push(...keys(p.items))
      remaining.push(p.remainingItemCount)
      token = p.continue
    } while (token !== undefined)
    assert.deepStrictEqual(seen, ["a/1", "a/2", "b/1", "c/1"])
    assert.deepStrictEqual(remaining, [3, 2, 1, undefined])
  })

  it("an empty continue is the first page", () => {
    assert.deepStrictEqual(keys(page({ limit: 2, continue: "" }).items), ["a/1", "a/2"])
  })

  it("refuses tokens it did not issue, or issued for another resource", () => {
    const token = page({ limit: 2 }).continue as string
    const other = pageOf(Resources.secrets, objects, { continue: token })
    assert.instanceOf(other, InvalidContinueToken)
    const otherGroup = pageOf({ ...cms, group: "example.com" }, objects, { continue: token })
    assert.instanceOf(otherGroup, InvalidContinueToken)
    const forged = (body: string) => Buffer.from(`krtt-scopedcache:${body}`).toString("base64url")
    for (const bad of [
      "x",
      Buffer.from("other:[]").toString("base64url"),
      forged("not json"),
      forged(JSON.stringify(["", "configmaps", 3])),
      Buffer.from(`${"x".repeat(17)}${JSON.stringify(["", "configmaps", "a/2"])}`).toString("base64url"),
    ]) {
      const p = pageOf(cms, objects, { continue: bad })
      assert.instanceOf(p, InvalidContinueToken, bad)
      assert.strictEqual((p as InvalidContinueToken).path, "/api/v1/configmaps")
      assert.strictEqual((p as InvalidContinueToken).verb, "list")
      assert.include((p as InvalidContinueToken).message, "not issued by this cache")
    }
    assert.deepStrictEqual(
      keys(page({ continue: forged(JSON.stringify(["", "configmaps", "a/2"])) }).items),
      ["b/1", "c/1"],
    )
  })
})
