#!/usr/bin/env node
// The krtt command. Runs the TypeScript sources directly (Node >= 22.19: type stripping, and what the dependencies need); an older
// Node gets one line naming the version it needs, not a stack trace.
import { tooOld, tooOldMessage } from "./node-version.js"

if (tooOld(process.versions.node)) {
  process.stderr.write(`${tooOldMessage(process.versions.node)}\n`)
  process.exit(1)
}
const { main } = await import("../shell/cli/main.ts")
main()
