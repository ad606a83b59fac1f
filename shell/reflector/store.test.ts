import { assert, describe, it } from "@effect/vitest"
import type { KubeObject } from "../kube/resource.ts"
import { IndexNames, Store, storeKey } from "./store.ts"

const obj = (
  name: string,
  options: { ns?: string; rv?: string; labels?: Record<string, string>; owner?: string } = {},
): KubeObject => ({
  metadata: {
    name,
    namespace: options.ns ?? "default",
    resourceVersion: options.rv ?? "1",
    labels: options.labels ?? {},
    ownerReferences: options.owner
      ? [{ apiVersion: "v1", kind: "Owner", name: "o", uid: options.owner }]
      : [],
  },
})
const names = (os: ReadonlyArray<KubeObject>) => os.map((o) => o.metadata.name).sort()

describe("Store", () => {
  it("indexes by namespace, owner uid and label key=value, and keeps indexes right on update and delete", () => {
    const store = new Store()
    store.upsert(obj("a", { ns: "x", labels: { app: "web" }, owner: "u1" }))
    store.upsert(obj("b", { ns: "x", labels: { app: "db" }, owner: "u1" }))
    store.upsert(obj("c", { ns: "y", labels: { app: "web" } }))
    assert.deepStrictEqual(names(store.byNamespace("x")), ["a", "b"])
    assert.deepStrictEqual(names(store.byOwner("u1")), ["a", "b"])
    assert.deepStrictEqual(names(store.byLabel("app", "web")), ["a", "c"])
    store.upsert(obj("a", { ns: "x", labels: { app: "db" } }))
    assert.deepStrictEqual(names(store.byLabel("app", "web")), ["c"])
    assert.deepStrictEqual(names(store.byOwner("u1")), ["b"])
    store.remove("x/b")
    assert.deepStrictEqual(names(store.byOwner("u1")), [])
    assert.deepStrictEqual([...store.indexValues(IndexNames.namespace)].sort(), ["x", "y"])
    assert.strictEqual(store.get({ namespace: "y", name: "c" })?.metadata.name, "c")
    assert.strictEqual(store.get("y/c")?.metadata.name, "c")
  })

  it("supports user-defined index functions", () => {
    const store = new Store({ byFirstLetter: (o) => [(o.metadata.name ?? "").slice(0, 1)] })
    store.upsert(obj("apple"))
    store.upsert(obj("avocado"))
    store.upsert(obj("banana"))
    assert.deepStrictEqual(names(store.byIndex("byFirstLetter", "a")), ["apple", "avocado"])
    assert.deepStrictEqual(store.byIndex("unknown", "a"), [])
    assert.deepStrictEqual(store.indexValues("unknown"), [])
    assert.deepStrictEqual([...store.indexValues("byFirstLetter")].sort(), ["a", "b"])
  })

  it("a user-defined index replaces a built-in one of the same name", () => {
    const store = new Store({ [IndexNames.namespace]: (o) => [`ns:${o.metadata.namespace}`] })
    store.upsert(obj("a", { ns: "x" }))
    assert.deepStrictEqual(names(store.byNamespace("ns:x")), ["a"])
    assert.deepStrictEqual(store.byNamespace("x"), [])
  })

  it("drops index values with no object left, and remove of an absent key changes nothing", () => {
    const store = new Store()
    store.upsert(obj("a", { ns: "x", labels: { app: "web" } }))
    assert.strictEqual(store.remove("x/none"), undefined)
    assert.strictEqual(store.size(), 1)
    assert.strictEqual(store.remove("x/a")?.metadata.name, "a")
    assert.deepStrictEqual(store.indexValues(IndexNames.label), [])
    assert.deepStrictEqual(store.indexValues(IndexNames.namespace), [])
    assert.deepStrictEqual(store.list(), [])
    assert.strictEqual(store.size(), 0)
  })

  it("keys cluster-scoped objects by name alone", () => {
    const store = new Store()
    store.upsert({ metadata: { name: "node-1" } })
    assert.deepStrictEqual(store.keys(), ["node-1"])
    assert.deepStrictEqual(names(store.byNamespace("")), ["node-1"])
  })

  it("replace reports added, updated (resourceVersion changed) and deleted objects", () => {
    const store = new Store()
    store.upsert(obj("keep", { rv: "1" }))
    store.upsert(obj("change", { rv: "1" }))
    store.upsert(obj("gone", { rv: "1" }))
    const r = store.replace([obj("keep", { rv: "1" }), obj("change", { rv: "2" }), obj("new", { rv: "3" })])
    assert.deepStrictEqual(names(r.added), ["new"])
    assert.deepStrictEqual(
      r.updated.map((u) => [u.old.metadata.resourceVersion, u.object.metadata.resourceVersion]),
      [["1", "2"]],
    )
    assert.deepStrictEqual(names(r.deleted), ["gone"])
    assert.deepStrictEqual([...store.keys()].sort(), ["default/change", "default/keep", "default/new"])
  })

  it("an object with no owner references, labels or namespace is indexed under nothing but its namespace", () => {
    const store = new Store()
    store.upsert({ metadata: { name: "bare" } })
    assert.deepStrictEqual(store.indexValues(IndexNames.owner), [])
    assert.deepStrictEqual(store.indexValues(IndexNames.label), [])
    assert.deepStrictEqual(store.indexValues(IndexNames.namespace), [""])
    assert.deepStrictEqual(names(store.byNamespace("")), ["bare"])
    assert.deepStrictEqual(store.keys(), ["bare"], "a cluster-scoped object's key is its name")
  })

  it("an unknown index or value reads as empty", () => {
    const store = new Store()
    store.upsert(obj("a"))
    assert.deepStrictEqual(store.byIndex("nope", "default"), [])
    assert.deepStrictEqual(store.byIndex(IndexNames.namespace, "elsewhere"), [])
    assert.deepStrictEqual(store.indexValues("nope"), [])
  })

  it("an object without a name is keyed by its namespace and an empty name", () => {
    assert.strictEqual(storeKey({ metadata: { namespace: "ns" } }), "ns/")
    assert.strictEqual(storeKey({ metadata: {} }), "")
  })
})
