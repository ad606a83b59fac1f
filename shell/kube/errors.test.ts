import { assert, describe, it } from "@effect/vitest"
import { fromStatus, httpStatusOf, isKubeError, isRetryable, toStatus } from "./errors.ts"

const request = { verb: "get", path: "/api/v1/namespaces/a/configmaps/b" }

describe("fromStatus", () => {
  it("names each documented status after its condition", () => {
    const tags = [401, 403, 404, 409, 410, 422, 504, 500, 429].map((code) => fromStatus(request, code)._tag)
    assert.deepStrictEqual(tags, [
      "Unauthorized",
      "Forbidden",
      "NotFound",
      "Conflict",
      "Gone",
      "Invalid",
      "Timeout",
      "ApiError",
      "ApiError",
    ])
  })

  it("tells AlreadyExists from Conflict by the Status reason and keeps verb, path and message", () => {
    const e = fromStatus(request, 409, {
      kind: "Status",
      code: 409,
      reason: "AlreadyExists",
      message: "taken",
    })
    assert.strictEqual(e._tag, "AlreadyExists")
    assert.strictEqual(e.message, "taken")
    assert.strictEqual(e.verb, "get")
    assert.strictEqual(e.path, request.path)
  })

  it("prefers the Status code over the HTTP status (watch ERROR frames arrive with 200)", () => {
    assert.strictEqual(
      fromStatus(request, 200, { kind: "Status", code: 410, reason: "Expired" })._tag,
      "Gone",
    )
  })

  it("keeps the status code and reason of a generic ApiError", () => {
    const e = fromStatus(request, 429, {
      kind: "Status",
      code: 429,
      reason: "TooManyRequests",
      message: "slow down",
    })
    assert.isTrue(e._tag === "ApiError" && e.status === 429 && e.reason === "TooManyRequests")
  })
})

describe("retryability and round trips", () => {
  it("retries Conflict, Timeout, Unreachable, 429 and 5xx but not 401, 403, 404, 422", () => {
    const retry = [409, 504, 429, 503, 401, 403, 404, 422].map((c) => isRetryable(fromStatus(request, c)))
    assert.deepStrictEqual(retry, [true, true, true, true, false, false, false, false])
  })

  it("toStatus and fromStatus agree on the condition", () => {
    for (const code of [401, 403, 404, 409, 410, 422, 504, 500]) {
      const e = fromStatus(request, code)
      assert.strictEqual(fromStatus(request, httpStatusOf(e), toStatus(e))._tag, e._tag)
      assert.isTrue(isKubeError(e))
    }
    assert.isFalse(isKubeError(new Error("x")))
    // Told by its class, not its fields.
    assert.isFalse(isKubeError({ _tag: "NotFound", verb: "get", path: "/api/v1/x", message: "m" }))
  })
})
