/**
 * `npm run conformance:upstream`: builds upstream Cluster API's core manager when it is not
 * cached yet (about 10 minutes), runs the differential suite and prints its report on stdout:
 * `{"scenarios":n,"fields":n,"divergences":[{"scenario","field","upstream","krtt"}]}`.
 * Progress goes to stderr; with CONFORMANCE_DUMP=<file>, everything read is written there. The npm script builds krtt first (`krtt why` and `krtt run` run
 * from dist/).
 *
 * @module
 */
import { ensureUpstreamManagerOf } from "../../bench/compare-upstream.ts"
import { UPSTREAM_VERSION } from "./divergences.ts"
import { runSuite } from "./run.ts"
import { SCENARIOS } from "./scenarios.ts"

const log = (line: string) => void process.stderr.write(`conformance: ${line}\n`)

const started = Date.now()
const binary = await ensureUpstreamManagerOf(log, UPSTREAM_VERSION)
const dump = process.env.CONFORMANCE_DUMP
const report = await runSuite({
  binary,
  version: UPSTREAM_VERSION,
  scenarios: SCENARIOS,
  log,
  ...(dump === undefined ? {} : { dump }),
})
log(`done in ${Math.round((Date.now() - started) / 1000)} s`)
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
