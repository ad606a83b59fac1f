#!/usr/bin/env node
// The krtt command: the CLI built into dist/ (`npm run build`, which `npm ci` and `npm pack` run).
// An older Node gets one line naming the version it needs, not a stack trace.
import { tooOld, tooOldMessage } from "./node-version.js"

if (tooOld(process.versions.node)) {
  process.stderr.write(`${tooOldMessage(process.versions.node)}\n`)
  process.exit(1)
}
const { main } = await import("../dist/shell/cli/main.js")
main()
