/**
 * What `krtt tables` and `krtt explain` print, as plain functions over the table registry.
 *
 * @module
 */
import { Result, Schema, SchemaIssue } from "effect"
import { explain, idOf } from "../../core/krtt/index.ts"
import { bindingOf, bindings } from "../krtt/registry.ts"

/** A mistake of the user's: the message says what to fix; no stack trace is shown. */
export class UsageError extends Error {
  override readonly name = "UsageError"
}

/** `krtt tables`: every table, every row, with its documented text. */
export const renderTables = (): string => {
  const out: Array<string> = []
  for (const { spec } of bindings) {
    out.push(`${spec.id}  ${spec.title}  (seed ${spec.source})`)
    for (const row of spec.rows) {
      const text = spec.columns.map((c) => `${c}: ${row.cells[c] ?? ""}`).join(" | ")
      out.push(`  ${idOf(spec, row)}${row.derived ? " (derived)" : ""}  ${text}`)
    }
    out.push("")
  }
  return out.join("\n")
}

/** The tables as data, for `krtt tables --json`. */
export const tablesJson = () =>
  bindings.map(({ spec, inputDocs }) => ({
    id: spec.id,
    title: spec.title,
    source: spec.source,
    columns: spec.columns,
    inputDocs,
    rows: spec.rows.map((r) => ({ id: idOf(spec, r), derived: r.derived, cells: r.cells, reason: r.reason })),
    resolutions: spec.resolutions,
  }))

const pathText = (path: ReadonlyArray<PropertyKey>) =>
  path.length === 0
    ? "input"
    : `input.${path
        .map((p) => (typeof p === "number" ? `[${p}]` : String(p)))
        .join(".")
        .replaceAll(".[", "[")}`

/** Decodes a hand-written input for a table; the error names every field that is wrong. */
export const decodeInput = (tableId: string, text: string): unknown => {
  const binding = bindingOf(tableId)
  if (binding === undefined) {
    throw new UsageError(
      `unknown table "${tableId}"; known tables: ${bindings.map((b) => b.spec.id).join(", ")}`,
    )
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    throw new UsageError(`the input is not valid JSON: ${(e as Error).message}`)
  }
  const decoded = Schema.decodeUnknownResult(binding.input as Schema.Codec<unknown>)(json, { errors: "all" })
  if (Result.isSuccess(decoded)) return decoded.success
  const issues = SchemaIssue.makeFormatterStandardSchemaV1()(decoded.failure.issue).issues
  const lines = issues.map(
    (i) => `  ${pathText((i.path ?? []).map((p) => (typeof p === "object" ? p.key : p)))}: ${i.message}`,
  )
  throw new UsageError(
    `the input does not fit table ${tableId} (its shape is documented in ${binding.inputDocs}):\n${lines.join("\n")}`,
  )
}

/** `krtt explain`: which row decides the input, its documented text, the actions and the status. */
export const explainInput = (tableId: string, text: string) => {
  const input = decodeInput(tableId, text)
  const binding = bindingOf(tableId)
  if (binding === undefined) throw new UsageError(`unknown table "${tableId}"`)
  const result = binding.transition(input, binding.config)
  return explain(binding.spec, input, result, binding.config)
}

/** The human-readable rendering of an explanation. */
export const renderExplanation = (e: ReturnType<typeof explainInput>): string =>
  [
    `${e.row}${e.derived ? " (derived)" : ""} decides.`,
    ...Object.entries(e.text).map(([c, t]) => `  ${c}: ${t}`),
    ...(e.reason === undefined ? [] : [`  Note: ${e.reason}`]),
    "Actions:",
    ...(e.actions.length === 0 ? ["  (none)"] : e.actions.map((a) => `  ${JSON.stringify(a)}`)),
    "Status:",
    `  ${JSON.stringify(e.status)}`,
    e.conforms
      ? "The documented table agrees."
      : "WARNING: the documented table disagrees with this decision.",
  ].join("\n")
