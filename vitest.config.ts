import { defineConfig } from "vitest/config"
import { sourceAliases } from "./vitest.aliases.ts"

export default defineConfig({
  resolve: { alias: sourceAliases() },
  test: {
    include: ["{core,shell,spec,property-tests,sim,testenv,e2e,docs,examples}/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    retry: 0,
    globalSetup: ["testenv/vitest-global-setup.ts"],
    setupFiles: ["property-tests/setup.ts"],
  },
})
