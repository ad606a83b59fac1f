// `npm run test:unit`: every test file, in two vitest processes side by side. The soak
// (e2e/soak/soak.test.ts, five minutes of damage to a control plane of its own) runs in the
// `soak` project while the `krtt` project runs everything else one file at a time: the soak spends
// most of its time waiting for API servers and controllers, and on a control plane nobody else
// uses it cannot disturb another file (the files of one project share the run's control plane,
// which is why they run one at a time). The soak's lines are prefixed `soak │`; the exit code is
// the first failure's, or 0.
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const vitest = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url))

/** Runs `vitest run` over one project; each output line prefixed with `prefix`. */
const run = (project: string, prefix: string, env: NodeJS.ProcessEnv): Promise<number> =>
  new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [vitest, "run", "--project", project, "--passWithNoTests", ...process.argv.slice(2)],
      {
        cwd: root,
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      },
    )
    const relay = (to: NodeJS.WriteStream) => {
      let rest = ""
      return (chunk: Buffer) => {
        const lines = (rest + chunk.toString("utf8")).split("\n")
        rest = lines.pop() ?? ""
        for (const line of lines) to.write(`${prefix}${line}\n`)
      }
    }
    child.stdout.on("data", relay(process.stdout))
    child.stderr.on("data", relay(process.stderr))
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => child.kill(signal))
    child.on("close", (code, signal) => resolve(code ?? (signal === null ? 1 : 128)))
  })

// The soak starts its own control plane: the shared one of the run's global setup is not needed.
const codes = await Promise.all([run("krtt", "", {}), run("soak", "soak │ ", { KRTT_TESTENV: "never" })])
process.exitCode = codes.find((c) => c !== 0) ?? 0
