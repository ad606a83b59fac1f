import { describe, expect, it } from "vitest"
import { checkLiveOptions, LiveDefaults, live, liveConfig } from "./live.ts"

/** A stand-in for stdout that keeps what is written. */
const stream = (tty: boolean) => {
  let text = ""
  const out = {
    isTTY: tty,
    columns: 104,
    write: (s: string) => {
      text += s
      return true
    },
  } as unknown as NodeJS.WriteStream
  return { out, text: () => text }
}

describe("krtt live", () => {
  it("prints a few summary lines without a terminal, and how to run against a real cluster", async () => {
    const s = stream(false)
    expect(await live({ ...LiveDefaults, clusters: 12, minutes: 40 }, s.out)).toBe(0)
    const lines = s.text().trimEnd().split("\n")
    expect(lines[0]).toBe(
      "krtt live: 12 simulated Clusters for 40 virtual minutes (no terminal: summary only)",
    )
    expect(s.text()).toMatch(/invariants: all held/)
    expect(s.text()).toMatch(/krtt run --kubeconfig/)
  })

  it("draws the fleet on a terminal while virtual time runs faster than real time", async () => {
    const s = stream(true)
    expect(await live({ clusters: 8, minutes: 20, speed: 20 * 60 * 4, seed: 1 }, s.out)).toBe(0)
    const ESC = String.fromCharCode(27)
    const screen = s
      .text()
      .split(ESC)
      .map((part) => part.replace(/^\[[0-9;?]*[a-zA-Z]/, ""))
      .join("")
    expect(screen).toMatch(/krtt live — 8 simulated Clusters/)
    expect(screen).toMatch(/virtual time 00:20:00 of 00:20:00/)
    expect(screen).toMatch(/Provisioned/)
    expect(s.text().endsWith(`${ESC}[?25h`)).toBe(true) // the cursor is shown again
  })

  it("scripts an outage, a rotation, a slow period and a deletion within the run", () => {
    const c = liveConfig(LiveDefaults)
    expect(c.scenario.map((i) => i.incident)).toEqual([
      "apiserver-down",
      "rotate-credentials",
      "apiserver-slow",
      "delete-cluster",
    ])
    expect(Math.max(...c.scenario.map((i) => i.at))).toBeLessThan(LiveDefaults.minutes * 60_000)
  })

  it("names the flag of an option it cannot run", () => {
    expect(checkLiveOptions(LiveDefaults)).toBeUndefined()
    expect(checkLiveOptions({ ...LiveDefaults, speed: 0 })).toMatch(/^--speed/)
    expect(checkLiveOptions({ ...LiveDefaults, clusters: 2.5 })).toMatch(/^--clusters/)
  })
})
