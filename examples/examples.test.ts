import { readFileSync } from "node:fs"
import * as Effect from "effect/Effect"
import { parseScenario } from "krtt/sim"
import { describe, expect, it } from "vitest"
import { compare } from "./broken-core.js"
import { simulate } from "./embed-clustercache.js"
import { tour } from "./tour.js"

describe("examples", () => {
  it("embed-clustercache: beta disconnects at the fifth failure and reconnects after its outage", () => {
    const log = simulate()
    expect(log).toContain("60s beta: API server down")
    const disconnect = log.find((l) => l.includes("beta") && l.includes("-> disconnected"))
    expect(disconnect).toMatch(/clustercache\.reconciler#10/)
    const reconnect = log.filter((l) => l.includes("beta") && l.includes("-> connected"))
    expect(reconnect.length).toBe(2) // the first connect, and the one after the outage
    expect(
      log.some((l) => l.startsWith("alpha") || (l.includes("alpha") && l.includes("disconnected"))),
    ).toBe(false)
  })

  it("broken-core: the retry-interval check catches the broken core, not the real one", () => {
    const { broken, real } = compare()
    expect(broken.violations.counts["retry-interval"]).toBeGreaterThan(0)
    expect(real.violations.total).toBe(0)
  })

  it("the sample scenario validates", () => {
    const text = readFileSync(new URL("./scenarios/incidents.yaml", import.meta.url), "utf8")
    expect(parseScenario(text, 1000)).toHaveLength(4)
  })

  it("tour: each entry point's step prints what it did", async () => {
    const lines = await Effect.runPromise(tour)
    expect(lines).toEqual([
      `krtt ${JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version}`,
      expect.stringMatching(/^20 tables, \d+ rows$/),
      "cluster: metadata.name Invalid value, spec Forbidden",
      'ipam: unknown field "injectionRule"; did you mean "injectionRules"?',
      "created ConfigMap hello at resourceVersion 2",
      "get absent: NotFound",
      "request cluster://east/default/hello",
      "clustercache probes every 10000 ms",
      "scopedcache stops a forbidden informer within 1 second",
    ])
  })
})
