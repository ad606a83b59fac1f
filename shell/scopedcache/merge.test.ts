import { assert, describe, it } from "@effect/vitest"
import type { KubeObject } from "../kube/resource.ts"
import { Store } from "../reflector/store.ts"
import { mergeStores } from "./merge.ts"

const cm = (namespace: string, name: string, labels: Record<string, string> = {}, rv = "1"): KubeObject => ({
  metadata: { namespace, name, labels, resourceVersion: rv },
})
const storeOf = (objects: ReadonlyArray<KubeObject>, indexers = {}) => {
  const s = new Store<KubeObject>(indexers)
  for (const o of objects) s.upsert(o)
  return s
}
const names = (objects: ReadonlyArray<KubeObject>) =>
  objects.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)

describe("mergeStores", () => {
  it("merges the stores of several namespaces, each object once, sorted by key", () => {
    const a = storeOf([cm("a", "x"), cm("a", "y")])
    const b = storeOf([cm("b", "x")])
    const cluster = storeOf([cm("a", "x", {}, "2"), cm("b", "x"), cm("c", "z")])
    const merged = mergeStores([b, a, cluster])
    assert.deepStrictEqual(names(merged), ["a/x", "a/y", "b/x", "c/z"])
    assert.strictEqual(merged[0]?.metadata.resourceVersion, "1", "the first store's copy is kept")
  })

  it("filters by namespace, label selector, field selector and index", () => {
    const s = storeOf(
      [cm("a", "x", { app: "web" }), cm("a", "y", { app: "db" }), cm("b", "x", { app: "web" })],
      {
        byName: (o: KubeObject) => [o.metadata.name ?? ""],
      },
    )
    assert.deepStrictEqual(names(mergeStores([s], { namespace: "a" })), ["a/x", "a/y"])
    assert.deepStrictEqual(names(mergeStores([s], { labelSelector: "app=web" })), ["a/x", "b/x"])
    assert.deepStrictEqual(names(mergeStores([s], { fieldSelector: "metadata.name=y" })), ["a/y"])
    assert.deepStrictEqual(
      names(mergeStores([s], { index: { name: "byName", value: "x" }, namespace: "b" })),
      ["b/x"],
    )
  })

  it("no stores, no objects", () => {
    assert.deepStrictEqual(mergeStores([]), [])
  })
})
