// The soak's flatness judgement (e2e/soak/samples.ts) on made-up samples: a process whose memory
// or sockets grow after the warm-up is named, a flat one is not, and too few samples say so.
import { describe, expect, it } from "vitest"
import { flatnessProblems, type Sample, sampleProcess } from "./samples.ts"

const settings = { warmupMs: 100, rssGrowthFactor: 1.25, rssSlackMiB: 16, socketSlack: 3 }
const series = (rss: (i: number) => number, sockets: (i: number) => number): ReadonlyArray<Sample> =>
  Array.from({ length: 12 }, (_, i) => ({ atMs: i * 20, rssMiB: rss(i), sockets: sockets(i) }))

describe("flatnessProblems", () => {
  it("passes a process that stays flat, warm-up growth and noise included", () => {
    const samples = series(
      (i) => (i < 5 ? 50 + i * 30 : 180 + (i % 3) * 5),
      (i) => (i < 5 ? i * 4 : 20 + (i % 2)),
    )
    expect(flatnessProblems("op", samples, settings)).toEqual([])
  })

  it("names memory that keeps growing after the warm-up", () => {
    const samples = series(
      (i) => 100 + i * 30,
      () => 20,
    )
    const problems = flatnessProblems("op", samples, settings)
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^op: RSS grew from a median of \d+\.\d MiB to \d+\.\d MiB \(bound/)
  })

  it("names sockets that keep growing after the warm-up", () => {
    const samples = series(
      () => 100,
      (i) => 20 + i,
    )
    expect(flatnessProblems("ipam", samples, settings)).toEqual([
      "ipam: open sockets grew from at most 27 to 31 (slack 3)",
    ])
  })

  it("holds growth at the bound: equal passes, one more fails", () => {
    const at = (late: number) =>
      flatnessProblems(
        "p",
        [100, 100, 100, 100, late, late, late, late].map((rss, i) => ({
          atMs: 100 + i,
          rssMiB: rss,
          sockets: i < 4 ? 10 : 13,
        })),
        settings,
      )
    expect(at(141)).toEqual([])
    expect(at(141.5)).toHaveLength(1)
  })

  it("says when there is too little to judge", () => {
    expect(
      flatnessProblems(
        "p",
        series(
          () => 1,
          () => 1,
        ).slice(0, 8),
        settings,
      ),
    ).toEqual(["p: 3 samples after the warm-up, 4 needed to judge"])
  })
})

describe("sampleProcess", () => {
  it("reads this process's memory and sockets, and nothing of a process that is gone", () => {
    const own = sampleProcess(process.pid, 7)
    expect(own?.atMs).toBe(7)
    expect(own?.rssMiB).toBeGreaterThan(10)
    expect(own?.sockets).toBeGreaterThanOrEqual(0)
    expect(sampleProcess(2 ** 22 + 1, 0)).toBeUndefined()
  })
})
