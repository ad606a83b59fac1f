#!/usr/bin/env node
// The krtt command: runs the CLI built into dist/. An installed package ships the build; a
// checkout makes it with `npm run build` (npm start, npm test and `npm run krtt` do). An older
// Node gets one line naming the version it needs, and a checkout without a build one line
// saying how to make it, not a stack trace.
import { existsSync } from "node:fs"
import { tooOld, tooOldMessage } from "./node-version.js"

if (tooOld(process.versions.node)) {
  process.stderr.write(`${tooOldMessage(process.versions.node)}\n`)
  process.exit(1)
}
const cli = new URL("../dist/cli/main.js", import.meta.url)
if (!existsSync(cli)) {
  process.stderr.write("krtt: dist/ is missing: run `npm run build` in the checkout first\n")
  process.exit(1)
}
const { main } = await import(cli.href)
main()
