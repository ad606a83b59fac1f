import { describe, expect, it } from "vitest"
import { gvkString, isClusterLevel, refString } from "./types.ts"

const gvk = { group: "apps", version: "v1", kind: "Deployment" }

describe("refString() and gvkString() (the informer's name in logs and Events)", () => {
  it("writes a cluster-level informer's namespace as '*' and a namespace-level one's as itself", () => {
    expect(refString({ namespace: "", gvk, key: "k" })).toBe("*/apps/v1/Deployment#k")
    expect(refString({ namespace: "team", gvk, key: "k" })).toBe("team/apps/v1/Deployment#k")
    expect(isClusterLevel({ namespace: "", gvk, key: "k" })).toBe(true)
    expect(isClusterLevel({ namespace: "team", gvk, key: "k" })).toBe(false)
  })
  it("leaves the core group out", () => {
    expect(gvkString({ group: "", version: "v1", kind: "Pod" })).toBe("v1/Pod")
  })
})
