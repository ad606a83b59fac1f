/**
 * The loggers of krtt's commands, in the two formats Cluster API's managers write (Kubernetes
 * component-base): klog's text (`--logging-format=text`, the default) and zap's JSON
 * (`--logging-format=json`), one entry per line on standard error.
 *
 * @module
 */
import * as Logger from "effect/Logger"
import { formatKlogText } from "./klogText.ts"
import { recordOf } from "./record.ts"
import { formatZapJson } from "./zapJson.ts"

/** The formats `--logging-format` takes. */
export type LoggingFormat = "text" | "json"

/** Where a logger writes its lines; standard error by default. */
export type LineSink = (line: string) => void

const stderrSink: LineSink = (line) => {
  process.stderr.write(`${line}\n`)
}

/** The logger of a format, writing each entry as one line to `sink`. */
export const loggerOf = (format: LoggingFormat, sink: LineSink = stderrSink): Logger.Logger<unknown, void> =>
  Logger.make((options) => {
    const record = recordOf(options)
    sink(format === "json" ? formatZapJson(record) : formatKlogText(record))
  })

export { formatKlogText } from "./klogText.ts"
export { type LogRecord, recordOf } from "./record.ts"
export { formatZapJson } from "./zapJson.ts"
