import { assert, describe, it } from "@effect/vitest"
import { BackoffDefaults, BucketDefaults, ItemBackoff, TokenBucket } from "./backoff.ts"

describe("TokenBucket", () => {
  it("starts full with 100 tokens and refills 10 a second (controller-runtime's defaults)", () => {
    assert.deepStrictEqual(BucketDefaults, { qps: 10, burst: 100 })
    const bucket = new TokenBucket()
    const waits = Array.from({ length: 103 }, () => bucket.reserve(1_000))
    assert.deepStrictEqual(waits.slice(0, 100), Array(100).fill(0))
    assert.deepStrictEqual(waits.slice(100), [100, 200, 300], "reservations queue up behind each other")
    // 1 s later 10 tokens were added; 3 of them were already promised.
    const later = Array.from({ length: 8 }, () => bucket.reserve(2_000))
    assert.deepStrictEqual(later, [0, 0, 0, 0, 0, 0, 0, 100])
  })

  it("saves up at most burst tokens, and a clock going back adds none", () => {
    const bucket = new TokenBucket({ qps: 2, burst: 3 })
    assert.deepStrictEqual(
      [0, 0, 0].map(() => bucket.reserve(0)),
      [0, 0, 0],
    )
    assert.strictEqual(bucket.reserve(3_600_000), 0, "an hour refills the bucket to its burst")
    assert.deepStrictEqual(
      [1, 2].map(() => bucket.reserve(3_600_000)),
      [0, 0],
    )
    assert.strictEqual(bucket.reserve(3_600_000), 500)
    assert.strictEqual(bucket.reserve(1_000), 1_000, "going back in time adds no token")
  })

  it("refuses a qps that is not positive and a burst below 1, naming the field", () => {
    assert.throws(() => new TokenBucket({ qps: 0 }), /bucket\.qps must be a positive number, got 0/)
    assert.throws(() => new TokenBucket({ qps: Number.POSITIVE_INFINITY }), /bucket\.qps/)
    assert.throws(
      () => new TokenBucket({ burst: 0 }),
      /bucket\.burst must be an integer of at least 1, got 0/,
    )
    assert.throws(() => new TokenBucket({ burst: 1.5 }), /bucket\.burst/)
  })
})

describe("ItemBackoff", () => {
  it("doubles from 5 ms and caps at 1000 s (controller-runtime's defaults)", () => {
    assert.deepStrictEqual(BackoffDefaults, { baseDelay: "5 millis", maxDelay: "1000 seconds" })
    const backoff = new ItemBackoff()
    assert.deepStrictEqual(
      [0, 1, 2, 3].map((i) => backoff.delay(i)),
      [5, 10, 20, 40],
    )
    assert.strictEqual(backoff.delay(17), 655_360)
    assert.strictEqual(backoff.delay(18), 1_000_000)
    assert.strictEqual(backoff.delay(5000), 1_000_000)
  })
})
