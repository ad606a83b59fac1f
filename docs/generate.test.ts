import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { generated } from "./generate.ts"

describe("generated docs", () => {
  for (const { path, content } of generated()) {
    it(`docs/${path} is up to date with spec/ and api/ (run npm run docs:generate)`, () => {
      const onDisk = readFileSync(fileURLToPath(new URL(path, import.meta.url)), "utf8")
      expect(onDisk).toBe(content)
    })
  }
})
