// The chaos campaign's mutation test only (`npm run mutation:chaos`, stryker.chaos.json): the
// fixed fast campaign, one test per scenario (a covered mutant runs the scenarios that execute it).
import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"
import { sourceAliases } from "../../vitest.aliases.ts"

export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  resolve: { alias: sourceAliases() },
  test: {
    include: ["shell/chaos/campaign.mutation.ts"],
    exclude: ["**/node_modules/**"],
    testTimeout: 300_000,
    retry: 0,
    bail: 1,
    env: { KRTT_MUTATION: "1" },
  },
})
