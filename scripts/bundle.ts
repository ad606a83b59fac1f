/**
 * Bundles the `krtt` command into `dist/cli/`: one ES module for the command tree and one chunk
 * per part that a subcommand loads when it runs, with krtt's dependencies inside, tree-shaken.
 * The library entry points stay tsc's one-module-per-file build in `dist/` (a program that
 * installs krtt bundles or loads them itself); the command loads this bundle instead, because
 * loading a few large modules costs a fraction of the time and memory of loading thousands of
 * small ones (docs/benchmarks.md, "Start-up"). `sim/worker.ts` is an entry of its own: the
 * simulator starts it as a worker thread by its file name next to the code that starts it.
 *
 * The licences of the dependencies inside the bundle go beside it, in
 * `dist/cli/THIRD_PARTY_LICENSES.txt`, since a bundle carries no `node_modules` of its own.
 *
 * Run by `npm run build` after tsc; `node scripts/bundle.ts --metafile FILE` also writes
 * esbuild's account of what went into the bundle.
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { build } from "esbuild"

const root = fileURLToPath(new URL("..", import.meta.url))

/** `require` for the CommonJS dependencies inside an ES module bundle (client-node's, yaml's). */
const REQUIRE_SHIM =
  'import { createRequire as __krttRequire } from "node:module";const require = __krttRequire(import.meta.url);'

type Metafile = { readonly inputs: Readonly<Record<string, unknown>> }

/** The folders of the packages whose files are in the bundle, e.g. `node_modules/@kubernetes/client-node`. */
const bundledPackages = (metafile: Metafile): ReadonlyArray<string> => {
  const dirs = new Set<string>()
  for (const input of Object.keys(metafile.inputs)) {
    const m = input.match(/^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//)
    if (m?.[1] !== undefined) dirs.add(m[1])
  }
  return [...dirs].sort()
}

/** One package's notice: its name, version, licence and the text of its licence file. */
const notice = (dir: string): string => {
  const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as {
    name: string
    version: string
    license?: string
  }
  const file = readdirSync(join(root, dir)).find((f) => /^(licen[cs]e|copying)/i.test(f))
  const text =
    file === undefined ? "(no licence file in the package)" : readFileSync(join(root, dir, file), "utf8")
  return `${pkg.name} ${pkg.version} (${pkg.license ?? "see below"})\n\n${text.trim()}\n`
}

/** Writes the licences of every bundled package into `dist/cli/THIRD_PARTY_LICENSES.txt`. */
const writeNotices = (metafile: Metafile): void => {
  const packages = bundledPackages(metafile).filter((d) => existsSync(join(root, d, "package.json")))
  const header = "The krtt command bundles these packages; their licences follow.\n"
  const body = packages.map(notice).join(`\n${"-".repeat(78)}\n\n`)
  writeFileSync(join(root, "dist/cli/THIRD_PARTY_LICENSES.txt"), `${header}\n${body}`)
}

/** Builds the bundle and its licence notices; resolves to esbuild's metafile. */
export const bundle = async () => {
  // Chunk names carry a hash of their contents: an earlier build's chunks would stay behind.
  rmSync(join(root, "dist/cli"), { recursive: true, force: true })
  const result = await build({
    absWorkingDir: root,
    entryPoints: { main: "shell/cli/main.ts", worker: "sim/worker.ts" },
    outdir: "dist/cli",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    minifyWhitespace: true,
    minifySyntax: true,
    // Effect's spans and errors, and stack traces, read better with the original names.
    keepNames: true,
    sourcemap: "linked",
    legalComments: "linked",
    banner: { js: REQUIRE_SHIM },
    metafile: true,
    logLevel: "warning",
  })
  writeNotices(result.metafile)
  return result.metafile
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { metafile: { type: "string" } }, strict: true })
  const metafile = await bundle()
  if (values.metafile !== undefined) writeFileSync(values.metafile, JSON.stringify(metafile))
}
