/**
 * The held-back bugs of docs/reliability.md ("Held-back bugs"): each patch of
 * `shell/chaos/planted/` is a small bug in the runtime's shell. For each one this script makes a
 * temporary worktree of HEAD, applies the patch there, runs `krtt chaos` from source (the fixed
 * fast campaign, seed 1; with `--budget S`, the full one) and prints whether the campaign caught
 * the bug, the first failure's oracle and replay command, and the wall seconds.
 *
 *   node scripts/planted-bugs.ts [--budget SECONDS] [name…]
 *
 * Names are the patches' file names without `.patch` (default: every patch). Exit code 0 when
 * every bug was caught but those argued equivalent ({@link EQUIVALENT}), 1 when another survived
 * (or its patch no longer applies, or its campaign timed out), 2 on an unknown name.
 *
 * @module
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"

const root = fileURLToPath(new URL("..", import.meta.url))
/** Where the patches are, one `<name>.patch` per bug. */
export const PLANTED_DIR = join(root, "shell", "chaos", "planted")
/**
 * Bugs argued to change nothing a user can see, with where the argument is: their survival is
 * reported, and does not fail the run.
 */
export const EQUIVALENT: ReadonlyMap<string, string> = new Map([
  ["engage-replacing-after-assign", 'argued equivalent in docs/reliability.md, "Held-back bugs"'],
])

/** A campaign that runs longer than this is stopped and counted as a survivor. */
const TIMEOUT_MS = 20 * 60 * 1000

/** The bugs' names, in file-name order. */
export const plantedNames = (): ReadonlyArray<string> =>
  readdirSync(PLANTED_DIR)
    .filter((f) => f.endsWith(".patch"))
    .map((f) => basename(f, ".patch"))
    .sort()

interface Failure {
  readonly scenario: string
  readonly oracle: string
  readonly message: string
  readonly replay: string
}

interface Verdict {
  readonly name: string
  readonly outcome: "caught" | "survived" | "does not apply" | "timed out"
  readonly runs?: number
  readonly first?: Failure
  readonly failures?: number
  readonly seconds: number
}

const git = (cwd: string, args: ReadonlyArray<string>): string =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })

/** Runs `krtt chaos --json` from source in `dir`; undefined when it timed out. */
const campaign = (dir: string, budget: number | undefined): Promise<string | undefined> =>
  new Promise((resolve, reject) => {
    const args = [
      "shell/cli/main.ts",
      "chaos",
      "--json",
      ...(budget === undefined ? [] : ["--budget", `${budget}`]),
    ]
    const child = spawn(process.execPath, args, { cwd: dir, stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
    })
    const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS)
    child.on("error", reject)
    child.on("close", (_code, signal) => {
      clearTimeout(timer)
      resolve(signal === "SIGKILL" ? undefined : out)
    })
  })

/** Plants one bug in a fresh worktree of HEAD and runs the campaign against it. */
const judge = async (name: string, budget: number | undefined): Promise<Verdict> => {
  const started = Date.now()
  const seconds = () => Math.round((Date.now() - started) / 100) / 10
  const dir = join(mkdtempSync(join(tmpdir(), "krtt-planted-")), "tree")
  git(root, ["worktree", "add", "--detach", "--quiet", dir, "HEAD"])
  try {
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"))
    try {
      git(dir, ["apply", join(PLANTED_DIR, `${name}.patch`)])
    } catch {
      return { name, outcome: "does not apply", seconds: seconds() }
    }
    const out = await campaign(dir, budget)
    if (out === undefined) return { name, outcome: "timed out", seconds: seconds() }
    const report = JSON.parse(out) as { runs: number; failures: ReadonlyArray<Failure> }
    const first = report.failures[0]
    return {
      name,
      outcome: first === undefined ? "survived" : "caught",
      runs: report.runs,
      ...(first === undefined ? {} : { first }),
      failures: report.failures.length,
      seconds: seconds(),
    }
  } finally {
    git(root, ["worktree", "remove", "--force", dir])
    rmSync(join(dir, ".."), { recursive: true, force: true })
  }
}

const render = (v: Verdict): string => {
  const head = `${v.name}: ${v.outcome} in ${v.seconds} s`
  if (v.first === undefined) return v.runs === undefined ? head : `${head} (${v.runs} runs, no failure)`
  const line = v.first.message.split("\n")[0] ?? ""
  const message = line.length > 200 ? `${line.slice(0, 200)}…` : line
  return `${head} (${v.failures} failures in ${v.runs} runs); first: ${v.first.oracle} in ${v.first.scenario}: ${message}\n  replay: ${v.first.replay}`
}

const main = async (): Promise<void> => {
  const { values, positionals } = parseArgs({
    options: { budget: { type: "string" } },
    allowPositionals: true,
  })
  const budget = values.budget === undefined ? undefined : Number(values.budget)
  const known = plantedNames()
  const unknown = positionals.filter((n) => !known.includes(n))
  if (unknown.length > 0 || (budget !== undefined && !(budget >= 1))) {
    process.stderr.write(
      unknown.length > 0
        ? `planted-bugs: unknown bug ${unknown.join(", ")} (known: ${known.join(", ")})\n`
        : "planted-bugs: --budget must be at least 1 second\n",
    )
    process.exitCode = 2
    return
  }
  let survivors = 0
  for (const name of positionals.length > 0 ? positionals : known) {
    const verdict = await judge(name, budget)
    const equivalent = verdict.outcome === "survived" ? EQUIVALENT.get(name) : undefined
    if (verdict.outcome !== "caught" && equivalent === undefined) survivors++
    process.stdout.write(`${render(verdict)}${equivalent === undefined ? "" : ` (${equivalent})`}\n`)
  }
  process.stdout.write(
    survivors === 0 ? "every planted bug was caught\n" : `${survivors} planted bug(s) not caught\n`,
  )
  if (survivors > 0) process.exitCode = 1
}

if (import.meta.main) await main()
