/**
 * What `krtt tables` and `krtt explain` print, as plain functions over the table registry.
 *
 * @module
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import { ClusterCacheDefaults, ReconcileRunInputSchema, runReconcile } from "../../core/clustercache/index.ts"
import { explain, findRow, idOf, type RowId } from "../../core/krtt/index.ts"
import { closestKey } from "../../core/krtt/suggest.ts"

export { closestKey }

import { bindingOf, bindings } from "../krtt/registry.ts"
import { UsageError } from "./usageError.ts"

export { UsageError }

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

/** The known keys of the objects a schema allows at `path` (through unions, arrays, suspends). */
export const knownKeysAt = (ast: SchemaAST.AST, path: ReadonlyArray<PropertyKey>): ReadonlySet<string> => {
  const keys = new Set<string>()
  const visit = (node: SchemaAST.AST, rest: ReadonlyArray<PropertyKey>, depth: number): void => {
    if (depth > 64) return
    // A transformed value (an array decoded to a set, say) is written in its encoded form.
    if (node.encoding !== undefined) {
      visit(SchemaAST.toEncoded(node), rest, depth + 1)
      return
    }
    switch (node._tag) {
      case "Suspend":
        visit(node.thunk(), rest, depth + 1)
        return
      case "Union":
        for (const t of node.types) visit(t, rest, depth + 1)
        return
      case "Arrays":
        if (rest.length === 0) return
        for (const t of [...node.elements, ...node.rest]) visit(t, rest.slice(1), depth + 1)
        return
      case "Objects": {
        if (rest.length === 0) {
          for (const ps of node.propertySignatures) keys.add(String(ps.name))
          return
        }
        const [head, ...tail] = rest
        for (const ps of node.propertySignatures) if (ps.name === head) visit(ps.type, tail, depth + 1)
        for (const ix of node.indexSignatures) visit(ix.type, tail, depth + 1)
        return
      }
      default:
        return
    }
  }
  visit(ast, path, 0)
  return keys
}

/** Times after `now` in the input: a clock that has not happened yet (listed by path). */
const futureTimes = (json: unknown): ReadonlyArray<string> => {
  if (typeof json !== "object" || json === null) return []
  const now = (json as { readonly now?: unknown }).now
  if (typeof now !== "number") return []
  const out: Array<string> = []
  const walk = (v: unknown, path: ReadonlyArray<PropertyKey>) => {
    if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) walk(x, [...path, i])
    } else if (typeof v === "object" && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        if (typeof x === "number" && /Time$/.test(k) && x > now) out.push(pathText([...path, k]))
        else walk(x, [...path, k])
      }
    }
  }
  walk((json as { readonly observed?: unknown }).observed, ["observed"])
  return out
}

/** Decodes JSON text strictly against a schema; the error names every field that is wrong. */
const decodeStrict = (schema: Schema.Codec<unknown>, text: string, what: string, docs: string): unknown => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    throw new UsageError(`the input is not valid JSON: ${(e as Error).message}`)
  }
  const decoded = Schema.decodeUnknownResult(schema)(json, { errors: "all", onExcessProperty: "error" })
  if (Result.isSuccess(decoded)) {
    const future = futureTimes(json)
    if (future.length > 0) {
      throw new UsageError(
        `the input of ${what} has times later than its now (${future.join(", ")}): a clock cannot have seen them yet`,
      )
    }
    return decoded.success
  }
  const issues = SchemaIssue.makeFormatterStandardSchemaV1()(decoded.failure.issue).issues
  const lines = issues.map((i) => {
    const path = (i.path ?? []).map((p) => (typeof p === "object" ? p.key : p))
    if (i.message !== "Expected no excess property" || path.length === 0)
      return `  ${pathText(path)}: ${i.message}`
    const key = String(path[path.length - 1])
    const known = knownKeysAt(schema.ast, path.slice(0, -1))
    const closest = closestKey(key, known)
    return `  ${pathText(path)}: unknown key "${key}"${closest === undefined ? "" : `; did you mean "${closest}"?`}${
      known.size > 0 ? ` (known keys: ${[...known].join(", ")})` : ""
    }`
  })
  throw new UsageError(
    `the input does not fit ${what} (its shape is documented in ${docs}):\n${lines.join("\n")}`,
  )
}

/** Decodes a hand-written input for a table; the error names every field that is wrong. */
export const decodeInput = (tableId: string, text: string): unknown => {
  const binding = bindingOf(tableId)
  if (binding === undefined) {
    throw new UsageError(
      `unknown table "${tableId}"; known tables: ${bindings.map((b) => b.spec.id).join(", ")}`,
    )
  }
  return decodeStrict(binding.input as Schema.Codec<unknown>, text, `table ${tableId}`, binding.inputDocs)
}

/** One step of a whole reconcile: the row that decided and its documented text. */
export interface ReconcileStep {
  readonly row: RowId
  readonly derived: boolean
  readonly text: Readonly<Record<string, string>>
}

/** `krtt explain clustercache.reconciler --reconcile`: a whole reconcile, every step's row. */
export const explainReconcile = (tableId: string, text: string) => {
  if (tableId !== "clustercache.reconciler") {
    throw new UsageError(
      `--reconcile runs a whole ClusterCache reconcile: use it with the table clustercache.reconciler, not ${tableId}`,
    )
  }
  const input = decodeStrict(
    ReconcileRunInputSchema as unknown as Schema.Codec<unknown>,
    text,
    "a whole reconcile (--reconcile)",
    "docs/krtt/clustercache-inputs.md",
  ) as typeof ReconcileRunInputSchema.Type
  const config = ClusterCacheDefaults
  const run = runReconcile(
    input.observed.accessor,
    input.desired,
    input.now,
    {
      connect: () => {
        if (input.world.connect === undefined)
          throw new UsageError("this reconcile connects: give the answer of Connect() as input.world.connect")
        return input.world.connect
      },
      probe: () => {
        if (input.world.probe === undefined)
          throw new UsageError("this reconcile probes: give the probe's outcome as input.world.probe")
        return input.world.probe
      },
    },
    config,
  )
  const steps: ReadonlyArray<ReconcileStep> = run.rows.map((row) => {
    const table = row.slice(0, row.lastIndexOf("#"))
    const spec = bindingOf(table)?.spec
    const r = spec === undefined ? undefined : findRow(spec, row)
    return { row, derived: r?.derived ?? false, text: r?.cells ?? {} }
  })
  return {
    steps,
    requeueAfter: run.requeueAfter,
    accessor: run.accessor,
    connected: run.connected,
    disconnected: run.disconnected,
    connectAttempt: run.connectAttempt,
    probe: run.probe,
    events: run.events,
  }
}

/** The human-readable rendering of a whole reconcile. */
export const renderReconcile = (r: ReturnType<typeof explainReconcile>): string =>
  [
    `${r.steps.length} steps:`,
    ...r.steps.flatMap((s, i) => [
      `${i + 1}. ${s.row}${s.derived ? " (derived)" : ""}`,
      ...Object.entries(s.text).map(([c, t]) => `     ${c}: ${t}`),
    ]),
    `Requeue: ${r.requeueAfter === undefined ? "none" : `after ${r.requeueAfter} ms`}`,
    `Connected afterwards: ${r.connected}${r.disconnected ? " (disconnected in this reconcile)" : ""}`,
    ...(r.events.length === 0
      ? []
      : ["Events:", ...r.events.map((e) => `  ${e.source}: ${e.reasons.join(", ")}`)]),
    "Accessor:",
    `  ${r.accessor === undefined ? "(none)" : JSON.stringify(r.accessor)}`,
  ].join("\n")

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
