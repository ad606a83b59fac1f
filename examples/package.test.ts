// krtt as its users get it: the package is packed, installed from the tarball into a fresh
// project outside the repository (with Node 22 beside it, the oldest line krtt supports), every
// program under examples/ is typechecked there with an ordinary strict nodenext tsconfig and
// compiled, and the compiled programs and the installed `krtt` command run on Node 22.
import { type SpawnSyncReturns, spawnSync } from "node:child_process"
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const repo = fileURLToPath(new URL("..", import.meta.url))
const examples = fileURLToPath(new URL(".", import.meta.url))
const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as {
  readonly version: string
  readonly exports: Record<string, string | Record<string, string>>
}

/** The environment of a nested npm: none of the calling npm's settings, so that it acts as a user's. */
const cleanEnv = (path?: string): NodeJS.ProcessEnv => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)))
  return path === undefined ? env : { ...env, PATH: `${path}${delimiter}${env.PATH ?? ""}` }
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string, env = cleanEnv()) => {
  const r: SpawnSyncReturns<string> = spawnSync(command, args, {
    cwd,
    env,
    encoding: "utf8",
    timeout: 300_000,
    maxBuffer: 64 * 1024 * 1024,
  })
  if (r.error !== undefined) throw r.error
  return r
}

const ok = (r: SpawnSyncReturns<string>, what: string): string => {
  if (r.status !== 0) throw new Error(`${what} exited ${r.status}:\n${r.stdout}\n${r.stderr}`)
  return r.stdout
}

/** The example programs: every .ts under examples/ that is not a test. */
const programs = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return programs(path)
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [relative(examples, path)] : []
  })

/** Runs the multi-cluster examples' in-memory demos and prints their logs as JSON, after the runtime's own log lines. */
const DEMOS = `import * as Effect from "effect/Effect"
import { demo as aggregating } from "./multicluster/aggregating.js"
import { demo as uniform } from "./multicluster/uniform.js"
const logs = await Effect.runPromise(Effect.all({ uniform, aggregating }))
console.log(JSON.stringify(logs))
`

/** An ordinary tsconfig of a Node.js program: strict, nodenext, libraries checked too. */
const TSCONFIG = {
  compilerOptions: {
    target: "es2022",
    module: "nodenext",
    moduleResolution: "nodenext",
    strict: true,
    skipLibCheck: false,
    types: ["node"],
    rootDir: "src",
    outDir: "out",
  },
  include: ["src"],
}

let work: string
let consumer: string
let node22: string
interface Packed {
  readonly filename: string
  readonly files: ReadonlyArray<{ readonly path: string }>
}
let packed: Packed

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "krtt-package-"))
  consumer = join(work, "consumer")
  const out = ok(run("npm", ["pack", "--json", "--pack-destination", work], repo), "npm pack")
  const [first] = JSON.parse(out) as Array<Packed>
  if (first === undefined) throw new Error(`npm pack printed no package: ${out}`)
  packed = first
  const tarball = join(work, packed.filename)
  for (const file of programs(examples)) cpSync(join(examples, file), join(consumer, "src", file))
  writeFileSync(join(consumer, "src", "demos.ts"), DEMOS)
  writeFileSync(join(consumer, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2))
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify({ name: "consumer", private: true, type: "module" }),
  )
  const typesNode = JSON.parse(
    readFileSync(join(repo, "node_modules/@types/node/package.json"), "utf8"),
  ).version
  const install = [
    "install",
    "--prefer-offline",
    "--no-audit",
    "--no-fund",
    tarball,
    `@types/node@${typesNode}`,
  ]
  ok(run("npm", [...install, "node@22"], consumer), "npm install")
  node22 = join(consumer, "node_modules", ".bin")
}, 600_000)

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true })
})

const onNode22 = (script: string, ...args: Array<string>) =>
  ok(run(join(node22, "node"), [join(consumer, "out", script), ...args], consumer), script)

describe("the packed package", () => {
  it("ships the build, the command and the licence; no tests, sources, e2e or benchmarks", () => {
    const files = packed.files.map((f) => f.path)
    expect(files).toContain("bin/krtt.js")
    expect(files).toContain("LICENSE")
    expect(files.filter((f) => /\.test\.|^(e2e|bench|testenv|property-tests|docs)\//.test(f))).toEqual([])
    expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([])
    for (const target of Object.values(pkg.exports)) {
      const paths = typeof target === "string" ? [target] : [target.types, target.default]
      for (const path of paths) expect(files, String(path)).toContain(String(path).slice(2))
    }
  })

  it("runs on Node 22 from the install", () => {
    expect(ok(run(join(node22, "node"), ["--version"], consumer), "node --version")).toMatch(/^v22\./)
  })

  it("typechecks every example with a consumer's strict nodenext tsconfig, libraries included", () => {
    const tsc = join(repo, "node_modules", ".bin", "tsc")
    ok(run(tsc, ["-p", "tsconfig.json"], consumer), "tsc")
  })

  it("runs the compiled examples with the results they have in the repository", () => {
    const tour = onNode22("tour.js").trim().split("\n")
    expect(tour[0]).toBe(`krtt ${pkg.version}`)
    expect(tour).toContain("get absent: NotFound")
    expect(tour).toContain("request cluster://east/default/hello")
    const demos = JSON.parse(onNode22("demos.js").trim().split("\n").at(-1) ?? "") as Record<
      string,
      ReadonlyArray<string>
    >
    expect(demos.uniform).toContain("west removed: ClusterNotFound")
    expect(demos.aggregating).toContain('west leaves: {"east":"2"}')
    expect(onNode22("scopedcache/tenant-operator.js")).toContain("back: a: settings; b: flags; c: limits")
    expect(onNode22("broken-core.js")).toMatch(/real core: 0 violations/)
    expect(onNode22("embed-clustercache.js")).toMatch(/beta: .*-> disconnected/)
    expect(onNode22("clustercache/addon-controller.js")).toContain("alpha: same connection, informers kept")
  })

  it("`npx krtt` runs the installed command: --help, --version and tables --json", () => {
    const env = cleanEnv(node22)
    expect(ok(run("npx", ["krtt", "--help"], consumer, env), "npx krtt --help")).toContain("tables")
    expect(ok(run("npx", ["krtt", "--version"], consumer, env), "npx krtt --version")).toContain(pkg.version)
    const tables = JSON.parse(ok(run("npx", ["krtt", "tables", "--json"], consumer, env), "krtt tables"))
    expect(tables.map((t: { id: string }) => t.id)).toContain("clustercache.reconciler")
    const bin = join(dirname(node22), "krtt", "bin", "krtt.js")
    expect(readFileSync(bin, "utf8").startsWith("#!/usr/bin/env node")).toBe(true)
  })
})
