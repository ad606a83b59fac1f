/**
 * The command line and log reading of `bench/multicluster-compare.ts` (bench/ is outside
 * vitest's include, so its tests live here). No figures: the bench prints those.
 */
import { execFile } from "node:child_process"
import { join } from "node:path"
import { promisify } from "node:util"
import { assert, describe, it } from "@effect/vitest"
import { CompareUsageError, parseCompareArgs } from "../../bench/multicluster-compare-args.ts"
import { parseLogLine } from "../../bench/multicluster-compare-peer.ts"

const usage = (argv: ReadonlyArray<string>): CompareUsageError => {
  try {
    parseCompareArgs(argv)
  } catch (e) {
    if (e instanceof CompareUsageError) return e
    throw e
  }
  throw new Error(`accepted: ${argv.join(" ")}`)
}

describe("bench/multicluster-compare.ts: flags", () => {
  it("defaults: 100 clusters over 4 workload servers, 3 runs, 60 s after, krtt bundled", () => {
    const a = parseCompareArgs(["--side", "krtt"])
    assert.deepStrictEqual(
      [a.clusters, a.workloads, a.runs, a.steady, a.sides, a.krttFrom, a.json],
      [[100], 4, 3, 60, ["krtt"], "bundle", false],
    )
    const both = parseCompareArgs(["--peer-src", "/src", "--clusters", "100,1000", "--json"])
    assert.deepStrictEqual(
      [both.sides, both.clusters, both.peerSrc, both.json],
      [["krtt", "peer"], [100, 1000], "/src", true],
    )
  })

  it("an unknown flag is refused naming it and the closest known one", () => {
    const e = usage(["--side", "krtt", "--clsters", "10"])
    assert.strictEqual(e.flag, "--clsters")
    assert.include(e.message, "did you mean --clusters?")
  })

  it("a bad value names its flag", () => {
    assert.strictEqual(usage(["--side", "krtt", "--runs", "0"]).flag, "--runs")
    assert.include(
      usage(["--side", "krtt", "--clusters", "100,x"]).message,
      '--clusters: an integer ≥ 1, got "x"',
    )
    assert.strictEqual(usage(["--side", "krt"]).flag, "--side")
    assert.strictEqual(usage(["--side", "krtt", "--krtt-from", "dist"]).flag, "--krtt-from")
    assert.strictEqual(usage(["--side", "krtt", "--steady"]).flag, "--steady")
  })

  it("the peer needs its source tree or binary", () => {
    const e = usage([])
    assert.strictEqual(e.flag, "--peer-src")
    assert.include(e.message, "--side krtt measures krtt alone")
  })

  it("the script exits 2 on a bad flag, before starting anything", async () => {
    const run = promisify(execFile)
    const script = join(import.meta.dirname, "..", "..", "bench", "multicluster-compare.ts")
    const failed = await run(process.execPath, [script, "--workload", "2"]).then(
      () => undefined,
      (e: { code?: number; stderr?: string }) => e,
    )
    assert.strictEqual(failed?.code, 2)
    assert.include(failed?.stderr, "--workload: unknown flag (did you mean --workloads?)")
  })
})

describe("bench/multicluster-compare.ts: log lines", () => {
  it("reads krtt's zap JSON: a cluster engaged, a ConfigMap found", () => {
    assert.deepStrictEqual(
      parseLogLine(
        "krtt",
        '{"ts":1,"msg":"cluster engaged","v":0,"provider":"kubeconfig-secrets","cluster":"c0001"}',
      ),
      { _tag: "Engaged", cluster: "c0001" },
    )
    assert.deepStrictEqual(
      parseLogLine(
        "krtt",
        '{"ts":1,"msg":"ConfigMap found","v":0,"cluster":"c0002","namespace":"bench-data","name":"one"}',
      ),
      { _tag: "Found", cluster: "c0002", object: "bench-data/one" },
    )
    assert.isUndefined(parseLogLine("krtt", '{"ts":1,"msg":"engaging cluster","cluster":"c0001"}'))
  })

  it("reads the peer's zap console lines (fields last, as JSON; the last of a repeated key wins)", () => {
    assert.deepStrictEqual(
      parseLogLine(
        "peer",
        '2026-11-26T06:44:31Z\tINFO\tkubeconfig-provider\tSuccessfully engaged manager\t{"cluster": "c0003", "secret": "bench-fleet/c0003"}',
      ),
      { _tag: "Engaged", cluster: "c0003" },
    )
    assert.deepStrictEqual(
      parseLogLine(
        "peer",
        '2026-11-26T06:44:31Z\tINFO\tConfigMap found\t{"controller": "multicluster-configmaps", "namespace": "bench-data", "name": "one", "cluster": "c0004", "namespace": "kube-system", "name": "x", "cluster": "c0004"}',
      ),
      { _tag: "Found", cluster: "c0004", object: "kube-system/x" },
    )
    assert.isUndefined(parseLogLine("peer", "2026-11-26T06:44:31Z\tINFO\tentrypoint\tCreating manager"))
    assert.isUndefined(parseLogLine("peer", "I1126 06:44:31.000000 1 reflector.go:1] not zap"))
  })
})
