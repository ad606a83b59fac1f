import { assert, describe, it } from "@effect/vitest"
import { Resources } from "../kube/resource.ts"
import {
  closest,
  InvalidScopedCacheOptionsError,
  informerSelection,
  keyFor,
  millisOf,
  type ScopedCacheConfig,
  ScopedCacheDefaults,
  type ScopedCacheOptions,
  scopedCacheConfig,
} from "./options.ts"

const ok = (o: ScopedCacheOptions = {}): ScopedCacheConfig => {
  const c = scopedCacheConfig(o)
  if (c instanceof InvalidScopedCacheOptionsError) throw new Error(c.message)
  return c
}
const refused = (o: unknown): InvalidScopedCacheOptionsError => {
  const c = scopedCacheConfig(o as ScopedCacheOptions)
  if (!(c instanceof InvalidScopedCacheOptionsError)) throw new Error("accepted")
  return c
}
const cms = Resources.configMaps

describe("scopedCacheConfig", () => {
  it("defaults: automatic termination on, no access review, a recheck every 10 s, a 403 stops within 1 s", () => {
    const c = ok()
    assert.isTrue(c.automaticTermination)
    assert.isFalse(c.accessReview)
    assert.strictEqual(c.informerKey, "gvk")
    assert.strictEqual(millisOf(c.permissionRecheckInterval), 10_000)
    assert.strictEqual(millisOf(c.stopTimeout), 1000)
    assert.strictEqual(millisOf(ScopedCacheDefaults.stopTimeout), 1000)
    assert.isUndefined(c.defaultNamespaces)
    assert.deepStrictEqual(c.byResource, {})
  })

  it("every default can be overridden", () => {
    const c = ok({
      automaticTermination: false,
      accessReview: true,
      permissionRecheckInterval: "250 millis",
      stopTimeout: "2 seconds",
      informerKey: "gvkAndSelectors",
    })
    assert.isFalse(c.automaticTermination)
    assert.isTrue(c.accessReview)
    assert.strictEqual(millisOf(c.permissionRecheckInterval), 250)
    assert.strictEqual(millisOf(c.stopTimeout), 2000)
    assert.strictEqual(c.informerKey, "gvkAndSelectors")
  })

  it("an unknown key is refused, naming the closest known one", () => {
    const e = refused({ automaticTerminaton: false })
    assert.strictEqual(e.field, "automaticTerminaton")
    assert.include(e.message, "did you mean automaticTermination?")
    const n = refused({ byResource: { configmaps: { labelSelecter: "a=b" } } })
    assert.strictEqual(n.field, "byResource.configmaps.labelSelecter")
    assert.include(n.message, "did you mean byResource.configmaps.labelSelector?")
  })

  it("a field of the wrong type is refused, naming the field", () => {
    assert.strictEqual(refused({ automaticTermination: "yes" }).field, "automaticTermination")
    assert.strictEqual(refused({ stopTimeout: "soon" }).field, "stopTimeout")
    assert.strictEqual(refused({ defaultNamespaces: ["a", ""] }).field, "defaultNamespaces[1]")
    assert.strictEqual(refused({ defaultLabelSelector: "a in (" }).field, "defaultLabelSelector")
    assert.strictEqual(refused({ keyOf: "mine" }).field, "keyOf")
    assert.strictEqual(refused({ informerKey: "uid" }).field, "informerKey")
  })

  it("closest picks the known key with the smallest edit distance", () => {
    assert.strictEqual(closest("acessReview", ["accessReview", "automaticTermination"]), "accessReview")
  })
})

describe("informerSelection", () => {
  it("explicit selectors win over the list-options function, byResource and the defaults", () => {
    const c = ok({
      defaultLabelSelector: "tier=default",
      defaultFieldSelector: "metadata.name=x",
      byResource: { configmaps: { labelSelector: "tier=byresource" } },
      listOptions: ({ namespace }) => (namespace === "fn" ? { labelSelector: "tier=fn" } : {}),
    })
    assert.deepStrictEqual(informerSelection(c, { resource: cms, namespace: "a" }), {
      labelSelector: "tier=byresource",
      fieldSelector: "metadata.name=x",
      transform: undefined,
    })
    assert.strictEqual(informerSelection(c, { resource: cms, namespace: "fn" }).labelSelector, "tier=fn")
    assert.strictEqual(
      informerSelection(c, { resource: cms, namespace: "fn", labelSelector: "tier=explicit" }).labelSelector,
      "tier=explicit",
    )
    assert.strictEqual(
      informerSelection(c, { resource: Resources.secrets, namespace: "a" }).labelSelector,
      "tier=default",
    )
  })
})

describe("keyFor", () => {
  it("uses the registry's key function unless the user gives one", () => {
    const request = { resource: cms, namespace: "a", labelSelector: "x=y", fieldSelector: undefined }
    assert.strictEqual(keyFor(ok(), request), "v1/ConfigMap")
    assert.strictEqual(
      keyFor(ok({ informerKey: "gvkAndSelectors" }), request),
      "v1/ConfigMap?labels=x=y&fields=",
    )
    assert.strictEqual(keyFor(ok({ keyOf: (r) => `mine-${r.namespace}` }), request), "mine-a")
  })
})
