// The trace of a reconcile is core/cluster's own: the shell hears of a reconcile through its
// result (actions, status, row) and `whyReconcile`, never through the trace or the modules that
// build it.
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"

const INTERNAL = ["scope", "decide", "phases", "actionFailed", "waitingOn"]
const root = new URL("../../", import.meta.url).pathname

const sources = (dir: string): ReadonlyArray<string> =>
  readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(dir, f))

describe("core/cluster's trace", () => {
  it("no shell module imports the trace or the modules that build it", () => {
    const importsTrace = new RegExp(`core/cluster/(${INTERNAL.join("|")})\\.ts"`)
    const offenders = sources("shell").filter((f) => importsTrace.test(readFileSync(join(root, f), "utf8")))
    expect(offenders).toEqual([])
  })
})
