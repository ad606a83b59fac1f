// The fast suites only (no control plane), for mutation testing: `npm run mutation`.
// MUTATION_TESTS narrows the suites (comma-separated folders), e.g. for one area's run:
//   MUTATION_TESTS=core/clustercache,spec/clustercache,property-tests/clustercache npm run mutation -- --mutate 'core/clustercache/**/*.ts'
import { defineConfig } from "vitest/config"
import { sourceAliases } from "./vitest.aliases.ts"

const folders = (process.env.MUTATION_TESTS ?? "core,shell,spec,property-tests,sim,docs")
  .split(",")
  .map((f) => f.trim().replace(/\/$/, ""))
  .filter((f) => f !== "")

export default defineConfig({
  resolve: { alias: sourceAliases() },
  test: {
    include: folders.map((f) => `${f}/**/*.test.ts`),
    exclude: ["**/node_modules/**", "e2e/**", "testenv/**"],
    testTimeout: 60_000,
    retry: 0,
    setupFiles: ["property-tests/setup.ts"],
    env: { KRTT_MUTATION: "1" },
  },
})
