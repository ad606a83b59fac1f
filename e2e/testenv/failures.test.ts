// A control plane that cannot start says why and leaves nothing behind.
import { existsSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { startControlPlane } from "../../testenv/index.ts"

const parent = await mkdtemp(join(tmpdir(), "krtt-testenv-fail-"))
afterAll(async () => {
  await rm(parent, { recursive: true, force: true })
})

describe("a control plane that cannot start", () => {
  it("fails with the apiserver's own words and removes its directory", async () => {
    const dir = join(parent, "cp")
    const error = await startControlPlane({ dir, apiserverArgs: ["--no-such-flag=1"] }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toContain("kube-apiserver cluster-0 exited")
    expect((error as Error).message).toContain("unknown flag: --no-such-flag")
    expect(existsSync(dir)).toBe(false)
  })

  it("refuses a directory that is not empty", async () => {
    const dir = await mkdtemp(join(parent, "busy-"))
    await writeFile(join(dir, "mine"), "x")
    await expect(startControlPlane({ dir })).rejects.toThrow(/is not empty/)
    expect(existsSync(join(dir, "mine"))).toBe(true)
  })
})
