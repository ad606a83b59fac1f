// The fast suites only (no control plane), for mutation testing: `npm run mutation`.
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["{core,shell,spec,property-tests,sim,docs}/**/*.test.ts"],
    exclude: ["**/node_modules/**", "e2e/**", "testenv/**", "**/*.e2e.test.ts"],
    testTimeout: 60_000,
    retry: 0,
    setupFiles: ["property-tests/setup.ts"],
  },
})
