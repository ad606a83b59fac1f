import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeObject } from "../kube/resource.ts"
import { DiagnosticsDefaults, makeAuthorizer, selfSignedCertificate } from "./diagnostics.ts"

/** A client that answers TokenReviews and SubjectAccessReviews from tables, counting requests. */
const reviewer = (users: Record<string, string>, allowed: ReadonlySet<string>) => {
  const calls = { tokenReviews: 0, accessReviews: 0 }
  const client = {
    create: (_resource: unknown, object: KubeObject & { spec?: Record<string, unknown> }) =>
      Effect.sync(() => {
        if (object.kind === "TokenReview") {
          calls.tokenReviews++
          const user = users[String(object.spec?.token)]
          return {
            ...object,
            status:
              user === undefined
                ? { authenticated: false }
                : { authenticated: true, user: { username: user } },
          }
        }
        calls.accessReviews++
        return { ...object, status: { allowed: allowed.has(String(object.spec?.user)) } }
      }),
  } as unknown as KubeClientShape
  return { client, calls }
}

describe("makeAuthorizer (--diagnostics-address without --insecure-diagnostics)", () => {
  it.effect(
    "401 without a token or with an unknown one, 403 without access, allowed with it; decisions are cached",
    () =>
      Effect.gen(function* () {
        const { client, calls } = reviewer({ "t-admin": "admin", "t-nobody": "nobody" }, new Set(["admin"]))
        const authorize = yield* makeAuthorizer(client)
        assert.strictEqual((yield* authorize(undefined, "/metrics", "get"))?.status, 401)
        assert.strictEqual((yield* authorize("Bearer t-wrong", "/metrics", "get"))?.status, 401)
        assert.strictEqual((yield* authorize("Bearer t-nobody", "/metrics", "get"))?.status, 403)
        assert.isUndefined(yield* authorize("Bearer t-admin", "/metrics", "get"))
        const before = { ...calls }
        assert.isUndefined(yield* authorize("Bearer t-admin", "/metrics", "get"))
        assert.deepStrictEqual(calls, before)
        // After the cache's time to live the review is asked again.
        yield* TestClock.adjust(DiagnosticsDefaults.authorizedCacheTtl + 1)
        assert.isUndefined(yield* authorize("Bearer t-admin", "/metrics", "get"))
        assert.strictEqual(calls.tokenReviews, before.tokenReviews + 1)
      }),
  )

  it.effect(
    "keeps at most cacheSize decisions, dropping the oldest: a flood of unknown tokens costs bounded memory",
    () =>
      Effect.gen(function* () {
        const { client, calls } = reviewer({ "t-admin": "admin" }, new Set(["admin"]))
        const authorize = yield* makeAuthorizer(client)
        const size = DiagnosticsDefaults.cacheSize
        for (let i = 0; i < size; i++)
          assert.strictEqual((yield* authorize(`Bearer flood-${i}`, "/metrics", "get"))?.status, 401)
        // Full: every decision is still kept.
        const full = calls.tokenReviews
        assert.strictEqual((yield* authorize("Bearer flood-0", "/metrics", "get"))?.status, 401)
        assert.strictEqual(calls.tokenReviews, full)
        // One more pushes out the oldest, flood-0; the newest stays.
        assert.isUndefined(yield* authorize("Bearer t-admin", "/metrics", "get"))
        assert.strictEqual((yield* authorize(`Bearer flood-${size - 1}`, "/metrics", "get"))?.status, 401)
        assert.strictEqual(calls.tokenReviews, full + 1)
        assert.strictEqual((yield* authorize("Bearer flood-0", "/metrics", "get"))?.status, 401)
        assert.strictEqual(calls.tokenReviews, full + 2)
        assert.strictEqual(size, 1_000)
      }),
  )
  it("caches as controller-runtime's delegating authenticator and authorizer: 1 min, 5 min allowed, 30 s denied", () => {
    assert.strictEqual(DiagnosticsDefaults.authenticationCacheTtl, 60_000)
    assert.strictEqual(DiagnosticsDefaults.authorizedCacheTtl, 300_000)
    assert.strictEqual(DiagnosticsDefaults.deniedCacheTtl, 30_000)
  })

  it("self-signs a serving certificate for the given hosts", () => {
    const c = selfSignedCertificate(["localhost", "127.0.0.1"], Date.UTC(2026, 0, 1))
    assert.match(c.cert, /BEGIN CERTIFICATE/)
    assert.match(c.key, /BEGIN PRIVATE KEY/)
  })
})
