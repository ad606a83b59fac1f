// The simulator's tests only, for mutation testing the simulator's checks: `npm run mutation:sim`
// (stryker.sim.json). Every mutant runs every test of sim/ (coverageAnalysis "off"): Stryker's
// per-test coverage missed tests of the long simulations, so mutants that three broken-core tests
// kill were reported as surviving.
import { defineConfig } from "vitest/config"
import { sourceAliases } from "./vitest.aliases.ts"

export default defineConfig({
  resolve: { alias: sourceAliases() },
  test: {
    include: ["sim/**/*.test.ts"],
    exclude: ["**/node_modules/**"],
    testTimeout: 60_000,
    retry: 0,
    setupFiles: ["property-tests/setup.ts"],
    env: { KRTT_MUTATION: "1" },
  },
})
