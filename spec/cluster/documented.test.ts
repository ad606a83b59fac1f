import { describe, expect, it } from "vitest"
import { ClusterControllerDefaults } from "../../core/cluster/config.ts"
import { ClusterControllerDocumented as D } from "./documented.ts"

describe("seed 001's documented numbers hold core's ClusterControllerDefaults", () => {
  it(`missingReferenceRequeueAfter is ${D.missingReferenceRequeueAfter.value} (${D.missingReferenceRequeueAfter.source})`, () => {
    expect(ClusterControllerDefaults.missingReferenceRequeueAfter).toBe(D.missingReferenceRequeueAfter.value)
  })
  it(`deleteRequeueAfter is ${D.deleteRequeueAfter.value} (${D.deleteRequeueAfter.source})`, () => {
    expect(ClusterControllerDefaults.deleteRequeueAfter).toBe(D.deleteRequeueAfter.value)
  })
})
