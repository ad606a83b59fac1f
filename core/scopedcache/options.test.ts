import { describe, expect, it } from "vitest"
import { informerKey, ScopedCacheDefaults, scopedCacheOptions } from "./index.ts"

const gvk = { group: "apps", version: "v1", kind: "Deployment" }

describe("ScopedCacheDefaults", () => {
  it("has automatic termination on, the gvk key function and no access review (seed 002 resolutions)", () => {
    expect(ScopedCacheDefaults).toEqual({
      automaticTermination: true,
      informerKey: "gvk",
      accessReview: false,
    })
  })

  it("scopedCacheOptions() overrides only what it is given", () => {
    expect(scopedCacheOptions({ automaticTermination: false })).toEqual({
      automaticTermination: false,
      informerKey: "gvk",
      accessReview: false,
    })
    expect(scopedCacheOptions()).toEqual(ScopedCacheDefaults)
  })
})

describe("informerKey()", () => {
  it("gvk: one key per GVK, selectors ignored; the core group has no prefix", () => {
    expect(informerKey("gvk", gvk, { labelSelector: "app=web" })).toBe("apps/v1/Deployment")
    expect(informerKey("gvk", { group: "", version: "v1", kind: "ConfigMap" })).toBe("v1/ConfigMap")
  })

  it("gvkAndSelectors: different selectors give different keys, none gives the GVK's", () => {
    expect(informerKey("gvkAndSelectors", gvk)).toBe("apps/v1/Deployment")
    const web = informerKey("gvkAndSelectors", gvk, { labelSelector: "app=web" })
    const db = informerKey("gvkAndSelectors", gvk, { labelSelector: "app=db" })
    const field = informerKey("gvkAndSelectors", gvk, { fieldSelector: "metadata.name=x" })
    expect(new Set([web, db, field, "apps/v1/Deployment"]).size).toBe(4)
    expect(web).toBe("apps/v1/Deployment?labels=app=web&fields=")
  })
})
