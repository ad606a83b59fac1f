/**
 * Generates `docs/api.md`, the page of krtt's public API, from the entry points in `api/`: each
 * entry point's module comment, then every export with the first sentence of its doc comment and
 * a link to the file that declares it. Re-exports are followed to the declaration; an export
 * without a doc comment is an error, so the page cannot fall behind the code.
 *
 * @module
 */
import { readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

/** The entry points in the order the page lists them: the subpath and its module under `api/`. */
export const ENTRY_POINTS: ReadonlyArray<{ readonly subpath: string; readonly file: string }> = [
  { subpath: "krtt/core", file: "core" },
  { subpath: "krtt/kube", file: "kube" },
  { subpath: "krtt/multicluster", file: "multicluster" },
  { subpath: "krtt/scopedcache", file: "scopedcache" },
  { subpath: "krtt/clustercache", file: "clustercache" },
  { subpath: "krtt/cluster", file: "cluster" },
  { subpath: "krtt/ipam", file: "ipam" },
  { subpath: "krtt/sim", file: "sim" },
  { subpath: "krtt/testing", file: "testing" },
]

/** Effect's own modules that an entry point re-exports, described here since their docs are Effect's. */
const EXTERNAL: Readonly<Record<string, string>> = {
  "effect/testing#TestClock":
    "Effect's test clock: `TestClock.adjust` moves the virtual time that the fake API server, the runtimes and their timers run on.",
}

/** One export of an entry point. */
export interface ApiExport {
  readonly name: string
  readonly kind: "value" | "type" | "namespace"
  /** The declaring file, relative to the repository, or the external module. */
  readonly source: string
  readonly summary: string
}

const text = (file: string): string => readFileSync(file, "utf8")

/** The first sentence of a doc comment's text. */
const firstSentence = (comment: string): string => {
  const body = comment
    .split("\n")
    .map((l) => l.replace(/^\s*\/?\*+\/?\s?/, "").trimEnd())
    .filter((l) => !l.startsWith("@"))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim()
  // A full stop ends the sentence; the one of "e.g." or "i.e." does not.
  const end = body.replace(/\b(e\.g|i\.e)\./g, "$1_").search(/\.(\s|$)/)
  return end === -1 ? body : body.slice(0, end + 1)
}

/** The doc comment right before `export … <name>` in `src`, if any. */
const declaredDoc = (src: string, name: string): string | undefined => {
  const decl = new RegExp(
    `(/\\*\\*(?:(?!\\*/)[\\s\\S])*\\*/)\\s*(?://[^\\n]*\\n\\s*)*export (?:declare )?(?:const|function|class|interface|type|abstract class|enum) ${name}\\b`,
  )
  const m = src.match(decl)
  return m?.[1] === undefined ? undefined : firstSentence(m[1])
}

/** Where `name` comes from when `src` only re-exports it: the target module and its name there. */
const reExportOf = (
  src: string,
  name: string,
): { readonly from: string; readonly as: string } | undefined => {
  for (const m of src.matchAll(/export (?:type )?\{([^}]*)\} from "([^"]+)"/g)) {
    for (const part of (m[1] ?? "").split(",")) {
      const [original, alias] = part
        .replace(/^\s*type\s+/, "")
        .trim()
        .split(/\s+as\s+/)
      if ((alias ?? original) === name && original !== undefined) return { from: m[2] ?? "", as: original }
    }
  }
  for (const m of src.matchAll(/export \* from "([^"]+)"/g)) {
    const from = m[1] ?? ""
    return { from, as: name }
  }
  return undefined
}

/** Follows `name` from `file` to the file that declares it, with its summary. */
const resolveDoc = (file: string, name: string, seen = 0): { source: string; summary: string } => {
  if (seen > 8) throw new Error(`${name}: re-exports nest too deep from ${file}`)
  const src = text(file)
  const doc = declaredDoc(src, name)
  if (doc !== undefined) return { source: relative(root, file), summary: doc }
  const local = new RegExp(`^export \\{[^}]*\\b${name}\\b[^}]*\\}\\s*$`, "m").test(src)
  const target = reExportOf(src, name)
  if (target !== undefined && !local)
    return resolveDoc(resolve(dirname(file), target.from), target.as, seen + 1)
  if (local) {
    const imported = src.match(new RegExp(`import \\{[^}]*\\b${name}\\b[^}]*\\} from "([^"]+)"`))
    if (imported?.[1] !== undefined) return resolveDoc(resolve(dirname(file), imported[1]), name, seen + 1)
  }
  throw new Error(`${relative(root, file)}: ${name} has no doc comment`)
}

/** The module comment's text of a file, as paragraphs of markdown. */
const moduleDoc = (file: string): string => {
  const m = text(file).match(/^\/\*\*([\s\S]*?)\*\//)
  if (m?.[1] === undefined) throw new Error(`${relative(root, file)}: no module comment`)
  return m[1]
    .split("\n")
    .map((l) => l.replace(/^\s*\*\s?/, "").trimEnd())
    .filter((l) => !l.startsWith("@"))
    .join("\n")
    .trim()
}

/** Every export of one entry point, in the order of its module. */
export const exportsOf = (entry: string): ReadonlyArray<ApiExport> => {
  const file = join(root, "api", `${entry}.ts`)
  const src = text(file)
  const out: Array<ApiExport> = []
  const statement = /export (type )?\{([^}]*)\} from "([^"]+)"|export \* as (\w+) from "([^"]+)"/g
  for (const m of src.matchAll(statement)) {
    if (m[4] !== undefined) {
      const target = resolve(dirname(file), m[5] ?? "")
      const summary = firstSentence(moduleDoc(target))
      out.push({ name: m[4], kind: "namespace", source: relative(root, target), summary })
      continue
    }
    const from = m[3] ?? ""
    for (const part of (m[2] ?? "").split(",").map((p) => p.trim())) {
      if (part === "") continue
      const typeOnly = m[1] !== undefined || part.startsWith("type ")
      const [original = "", alias] = part.replace(/^type\s+/, "").split(/\s+as\s+/)
      const name = alias ?? original
      const kind = typeOnly ? "type" : "value"
      const external = EXTERNAL[`${from}#${original}`]
      if (!from.startsWith(".")) {
        if (external === undefined)
          throw new Error(`api/${entry}.ts: describe ${from}#${original} in EXTERNAL`)
        out.push({ name, kind, source: from, summary: external })
        continue
      }
      out.push({ name, kind, ...resolveDoc(resolve(dirname(file), from), original) })
    }
  }
  return out
}

const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1)

const row = (e: ApiExport): string => {
  const label = e.kind === "namespace" ? `\`${e.name}\` (namespace)` : `\`${e.name}\``
  const link = e.source.startsWith("effect/") ? e.source : `[${e.source}](../${e.source})`
  return `| ${label}${e.kind === "type" ? " (type)" : ""} | ${e.summary.replaceAll("|", "\\|")} | ${link} |`
}

/** The whole page. */
export const renderApi = (): string =>
  [
    "<!-- Generated by `npm run docs:generate` from api/; do not edit. -->",
    "# The public API",
    "",
    "What `npm install krtt` gives a program: the entry points below, each a subpath of the",
    "package with its own types. Everything else in the package is internal and may change",
    "without notice. Import an entry point by its subpath (`import { makeManager } from",
    '"krtt/multicluster"`); `krtt` alone is `krtt/core`. The programs under',
    "[examples/](../examples/) import nothing else, and `npm test` typechecks and runs them",
    "from an installed tarball (`examples/package.test.ts`).",
    "",
    "The runtimes are built on Effect 4 (`effect`, a dependency of krtt): their functions return",
    "`Effect`s with typed errors. Import Effect's modules by path (`effect/Effect`), as krtt",
    "does, and keep `effect` at the version krtt depends on so npm installs it once.",
    "",
    ...ENTRY_POINTS.flatMap(({ subpath, file }) => [
      `## \`${subpath}\`${file === "core" ? " (also `krtt`)" : ""}`,
      "",
      capitalized(
        moduleDoc(join(root, "api", `${file}.ts`)).replace(/^`krtt\/\w+`(?: \(also `krtt`\))?: /, ""),
      ),
      "",
      "| export | what it is | declared in |",
      "|:---|:---|:---|",
      ...exportsOf(file).map(row),
      "",
    ]),
  ].join("\n")
