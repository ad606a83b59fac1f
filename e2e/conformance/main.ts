/**
 * `npm run conformance:upstream`: builds upstream Cluster API's core manager when it is not
 * cached yet (about 10 minutes), runs the differential suite and prints its report on stdout:
 * `{"scenarios":n,"fields":n,"divergences":[{"scenario","field","upstream","krtt"}]}`.
 * Progress goes to stderr, and last how many divergences are not documented with a reason in
 * divergences.ts (or documented and gone): then the exit code is 1. With CONFORMANCE_DUMP=<file>,
 * everything read is written there. The npm script builds krtt first (`krtt why` and `krtt run`
 * run from dist/).
 *
 * @module
 */
import { ensureUpstreamManagerOf } from "../../bench/compare-upstream.ts"
import { DOCUMENTED, UPSTREAM_VERSION } from "./divergences.ts"
import { unexplained } from "./match.ts"
import { runSuite } from "./run.ts"
import { SCENARIOS } from "./scenarios.ts"

const started = Date.now()
const log = (line: string) =>
  void process.stderr.write(`conformance: [${Math.round((Date.now() - started) / 1000)} s] ${line}\n`)

const binary = await ensureUpstreamManagerOf(log, UPSTREAM_VERSION)
const dump = process.env.CONFORMANCE_DUMP
const report = await runSuite({
  binary,
  version: UPSTREAM_VERSION,
  scenarios: SCENARIOS,
  log,
  ...(dump === undefined ? {} : { dump }),
})
const { unexpected, missing } = unexplained(report.divergences, DOCUMENTED)
log(
  `done in ${Math.round((Date.now() - started) / 1000)} s: ${report.divergences.length} divergences, ` +
    `${unexpected.length} not documented, ${missing.length} documented and not found`,
)
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
if (unexpected.length > 0 || missing.length > 0) process.exitCode = 1
