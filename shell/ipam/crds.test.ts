import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { IpamCrdFiles } from "./crds.ts"
import { crdsModule } from "./crdsGenerate.ts"

const dir = fileURLToPath(new URL("../../config/ipam/crds/", import.meta.url))
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".yaml"))
  .sort()

describe("shell/ipam/crds.ts", () => {
  it("carries config/ipam/crds as they are (when not: node shell/ipam/crdsGenerate.ts)", () => {
    expect(Object.keys(IpamCrdFiles).sort()).toEqual(files)
    for (const f of files) expect(IpamCrdFiles[f], f).toBe(readFileSync(join(dir, f), "utf8"))
  })
  it("is what the generator writes, each file's text as a string literal", () => {
    const text = crdsModule(dir)
    for (const f of files) expect(text).toContain(`${JSON.stringify(f)}: ${JSON.stringify(IpamCrdFiles[f])},`)
  })
})
