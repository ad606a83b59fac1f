import { describe, expect, it } from "vitest"
import { EMPTY_CLUSTER_NAME_PLACEHOLDER, IpamWebhooks } from "../../core/ipam/admission.ts"
import { normalizePath } from "../../core/ipam/paths.ts"
import { pathNotationExamples, pathNotationRefusals, upstreamReferences } from "./upstream.ts"

describe("upstream references (where seed 004 is silent)", () => {
  it("every path of controller-utils' Path Notation examples normalizes to the listed JSON Pointer", () => {
    for (const [jsonPath, pointer] of pathNotationExamples) {
      expect(normalizePath(jsonPath), jsonPath).toEqual({ ok: true, path: pointer })
      expect(normalizePath(pointer), pointer).toEqual({ ok: true, path: pointer })
    }
  })
  it("every path upstream refuses is refused, with a position inside the text and a reason", () => {
    for (const text of pathNotationRefusals) {
      const r = normalizePath(text)
      expect(r.ok, text).toBe(false)
      if (!r.ok) {
        expect(r.position).toBeGreaterThanOrEqual(0)
        expect(r.position).toBeLessThan(text.length)
        expect(r.reason.length).toBeGreaterThan(0)
      }
    }
  })
  it("the webhook entry names the paths and the placeholder core serves", () => {
    const webhooks = upstreamReferences.find((r) => r.topic === "webhooks")?.decision ?? ""
    for (const w of Object.values(IpamWebhooks)) expect(webhooks).toContain(w.path)
    expect(webhooks).toContain(EMPTY_CLUSTER_NAME_PLACEHOLDER)
  })
  it("every reference says what, from where and why", () => {
    for (const r of upstreamReferences) {
      expect(r.decision.length, r.topic).toBeGreaterThan(0)
      expect(r.source.length, r.topic).toBeGreaterThan(0)
      expect(r.reason.length, r.topic).toBeGreaterThan(0)
    }
    expect(new Set(upstreamReferences.map((r) => r.topic)).size).toBe(upstreamReferences.length)
  })
})
