// The held-back bugs of docs/reliability.md ("Held-back bugs") are patches of the runtime's shell
// (shell/chaos/planted/*.patch) that scripts/planted-bugs.ts plants one at a time before running
// the campaign. This only checks that each still applies to the current tree, so that they do
// not rot as the shell changes; judging them is the script's job (minutes, not seconds).
import { execFileSync } from "node:child_process"
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { EQUIVALENT } from "../../scripts/planted-bugs.ts"

const root = fileURLToPath(new URL("../..", import.meta.url))
const dir = join(root, "shell", "chaos", "planted")
const patches = readdirSync(dir)
  .filter((f) => f.endsWith(".patch"))
  .sort()

describe("the planted bugs", () => {
  it("are there", () => {
    expect(patches.length).toBeGreaterThanOrEqual(6)
  })

  it("argued equivalent are planted ones", () => {
    for (const name of EQUIVALENT.keys()) expect(patches).toContain(`${name}.patch`)
  })

  it.each(patches)("%s applies to the current tree", (patch) => {
    expect(() =>
      execFileSync("git", ["apply", "--check", join(dir, patch)], { cwd: root, stdio: "pipe" }),
    ).not.toThrow()
  })
})
