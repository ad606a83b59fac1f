import { defineConfig } from "vitest/config"
import { sourceAliases } from "./vitest.aliases.ts"

export default defineConfig({
  resolve: { alias: sourceAliases() },
  test: {
    // Two projects, run side by side by `npm run test:unit` (scripts/test.ts): the soak on a
    // control plane of its own, and every other file one at a time.
    projects: [
      {
        extends: true,
        test: {
          name: "krtt",
          include: ["{core,shell,spec,property-tests,sim,testenv,e2e,docs,examples}/**/*.test.ts"],
          exclude: ["e2e/soak/soak.test.ts", "**/node_modules/**"],
        },
      },
      { extends: true, test: { name: "soak", include: ["e2e/soak/soak.test.ts"] } },
    ],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    retry: 0,
    globalSetup: ["testenv/vitest-global-setup.ts"],
    setupFiles: ["property-tests/setup.ts"],
  },
})
