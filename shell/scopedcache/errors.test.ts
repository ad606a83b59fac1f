// The scoped cache's own errors: each keeps the tag a Cache read names and is told apart by class.
import { assert, describe, it } from "@effect/vitest"
import { InformerNotFound, informerNotFound } from "../cache/types.ts"
import { Forbidden, Invalid, NotFound } from "../kube/errors.ts"
import { Resources } from "../kube/resource.ts"
import {
  CacheNotFound,
  CacheNotStarted,
  InformerForbidden,
  InvalidContinueToken,
  isCacheError,
} from "./errors.ts"

const failure = { verb: "get", path: "/api/v1/configmaps", message: "m" }

describe("the scoped cache's errors", () => {
  it("keep the API's tags, say they come from the cache, and isCacheError tells them apart", () => {
    const cases = [
      [new CacheNotFound(failure), "NotFound", NotFound],
      [new InformerForbidden(failure), "Forbidden", Forbidden],
      [new InvalidContinueToken(failure), "Invalid", Invalid],
      [
        new CacheNotStarted({ resource: Resources.configMaps, namespace: undefined, message: "m" }),
        "InformerNotFound",
        InformerNotFound,
      ],
    ] as const
    for (const [error, tag, base] of cases) {
      assert.strictEqual(error._tag, tag)
      assert.isTrue(error instanceof base, tag)
      assert.strictEqual(error.origin, "cache")
      assert.isTrue(isCacheError(error), tag)
    }
    assert.isTrue(isCacheError(informerNotFound(Resources.configMaps, "a")))
    for (const api of [
      new NotFound(failure),
      new Forbidden(failure),
      new Invalid(failure),
      new Error("x"),
      undefined,
    ])
      assert.isFalse(isCacheError(api))
  })
})
