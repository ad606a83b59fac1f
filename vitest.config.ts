import { defineConfig } from "vitest/config"
import { sourceAliases } from "./vitest.aliases.ts"

/** The files of the `long` project (see scripts/test.ts). */
const LONG = ["e2e/soak/soak.test.ts", "e2e/chaos/apiserver-restart.test.ts"]

export default defineConfig({
  resolve: { alias: sourceAliases() },
  test: {
    // Two projects, run side by side by `npm run test:unit` (scripts/test.ts): `long`, the longest
    // e2e files whose damage stays on control planes of their own, and `krtt`, every other file
    // one at a time.
    projects: [
      {
        extends: true,
        test: {
          name: "krtt",
          include: ["{core,shell,spec,property-tests,sim,testenv,e2e,docs,examples}/**/*.test.ts"],
          exclude: [...LONG, "**/node_modules/**"],
        },
      },
      { extends: true, test: { name: "long", include: LONG } },
    ],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    retry: 0,
    globalSetup: ["testenv/vitest-global-setup.ts"],
    setupFiles: ["property-tests/setup.ts"],
  },
})
