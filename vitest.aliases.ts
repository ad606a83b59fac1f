/**
 * The package's entry points as source files, for tools that run the sources (vitest): each
 * `exports` subpath of package.json mapped to its `krtt-source` file, so that code in this
 * repository imports `krtt/...` exactly as users do and still runs the TypeScript it sees.
 *
 * @module
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

type Target = string | { readonly "krtt-source"?: string }

/** One alias per entry point, most specific first: `krtt/multicluster` → `<root>/api/multicluster.ts`. */
export const sourceAliases = (): Array<{ find: RegExp; replacement: string }> => {
  const root = fileURLToPath(new URL(".", import.meta.url))
  const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as {
    readonly name: string
    readonly exports: Readonly<Record<string, Target>>
  }
  return Object.entries(pkg.exports)
    .flatMap(([subpath, target]) => {
      const source = typeof target === "string" ? undefined : target["krtt-source"]
      if (source === undefined) return []
      const name = subpath === "." ? pkg.name : `${pkg.name}/${subpath.slice(2)}`
      return [{ find: new RegExp(`^${name}$`), replacement: `${root}${source.slice(2)}` }]
    })
    .sort((a, b) => b.find.source.length - a.find.source.length)
}
