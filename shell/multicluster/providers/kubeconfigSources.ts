/**
 * Where the `kubeconfig-file` provider finds its kubeconfig files: paths that are files,
 * directories (their files matching the provider's globs) or globs (`dir/*.kubeconfig`), as
 * upstream's file provider takes `KubeconfigFiles`, `KubeconfigDirs` and `KubeconfigGlobs`.
 *
 * # Guarantees
 * - A glob may have wildcards (`*`, `?`, `[...]`) in its last segment only; one in a directory
 *   segment is refused, naming the path. `*` and `?` do not match `/` nor a leading `.`.
 * - Listing never fails: a directory or a glob's folder that is missing lists nothing; a file
 *   named explicitly is always listed (missing or not: its reader decides).
 * - Each file is listed once, in a stable order (sources in order, names sorted).
 *
 * @module
 */
import { readdir, stat } from "node:fs/promises"
import { basename, dirname, join, resolve } from "node:path"
import * as Effect from "effect/Effect"
import { ProviderUsageError } from "./errors.ts"

/** Upstream's `DefaultKubeconfigGlobs`: the files of a directory that are kubeconfigs. */
export const DefaultKubeconfigGlobs: ReadonlyArray<string> = [
  "kubeconfig.yaml",
  "kubeconfig.yml",
  "*.kubeconfig",
  "*.kubeconfig.yaml",
  "*.kubeconfig.yml",
]

/** One source of kubeconfig files. */
export type KubeconfigSource =
  /** A path that is not a directory when the provider starts: one file. */
  | { readonly _tag: "File"; readonly path: string }
  /** A directory: its files matching `globs`. */
  | { readonly _tag: "Dir"; readonly path: string; readonly globs: ReadonlyArray<string> }
  /** The files of `dir` whose names match `pattern`. */
  | { readonly _tag: "Glob"; readonly dir: string; readonly pattern: string }

/** A file to read, and whether it was named explicitly (a missing one keeps its clusters). */
export interface ListedFile {
  readonly path: string
  readonly explicit: boolean
}

const WILDCARD = /[*?[]/

/** The regular expression of one glob segment. */
export const globRegExp = (pattern: string): RegExp => {
  let re = ""
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string
    if (ch === "*") re += "[^/]*"
    else if (ch === "?") re += "[^/]"
    else if (ch === "[") {
      const end = pattern.indexOf("]", i + 1)
      if (end < 0) re += "\\["
      else {
        const body = pattern.slice(i + 1, end).replace(/\\/g, "\\\\")
        re += `[${body.startsWith("!") ? `^${body.slice(1)}` : body}]`
        i = end
      }
    } else re += ch.replace(/[.+^${}()|\\]/g, "\\$&")
  }
  return new RegExp(`^${re}$`)
}

/** Whether a file name matches a glob segment (a leading `.` only matches a literal `.`). */
export const matchesGlob = (name: string, pattern: string): boolean =>
  (!name.startsWith(".") || pattern.startsWith(".")) && globRegExp(pattern).test(name)

/** Sorts the given paths into sources; a wildcard outside the last segment is a usage error. */
export const parseSources = (
  paths: ReadonlyArray<string>,
  globs: ReadonlyArray<string>,
): Effect.Effect<ReadonlyArray<KubeconfigSource>, ProviderUsageError> =>
  Effect.gen(function* () {
    const sources: Array<KubeconfigSource> = []
    for (const given of paths) {
      const path = resolve(given)
      if (WILDCARD.test(dirname(path)))
        return yield* new ProviderUsageError({
          flag: "--provider-kubeconfig",
          message: `--provider-kubeconfig ${given}: wildcards are allowed in the file name only, not in its folders`,
        })
      if (WILDCARD.test(basename(path))) {
        sources.push({ _tag: "Glob", dir: dirname(path), pattern: basename(path) })
        continue
      }
      const isDir = yield* Effect.promise(() =>
        stat(path).then(
          (s) => s.isDirectory(),
          () => false,
        ),
      )
      sources.push(isDir ? { _tag: "Dir", path, globs } : { _tag: "File", path })
    }
    return sources
  })

const filesOf = (dir: string, patterns: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>> =>
  Effect.promise(() =>
    readdir(dir, { withFileTypes: true }).then(
      (entries) =>
        entries
          .filter((e) => !e.isDirectory() && patterns.some((p) => matchesGlob(e.name, p)))
          .map((e) => join(dir, e.name))
          .sort(),
      () => [],
    ),
  )

/** The files of every source now, each once. */
export const listFiles = (
  sources: ReadonlyArray<KubeconfigSource>,
): Effect.Effect<ReadonlyArray<ListedFile>> =>
  Effect.gen(function* () {
    const out = new Map<string, ListedFile>()
    for (const s of sources) {
      if (s._tag === "File") {
        out.set(s.path, { path: s.path, explicit: true })
        continue
      }
      const found = s._tag === "Dir" ? yield* filesOf(s.path, s.globs) : yield* filesOf(s.dir, [s.pattern])
      for (const path of found) if (!out.has(path)) out.set(path, { path, explicit: false })
    }
    return [...out.values()]
  })

/** The folders to watch for changes: a file's folder, a directory itself, a glob's folder. */
export const watchedFolders = (sources: ReadonlyArray<KubeconfigSource>): ReadonlyArray<string> => [
  ...new Set(sources.map((s) => (s._tag === "File" ? dirname(s.path) : s._tag === "Dir" ? s.path : s.dir))),
]
