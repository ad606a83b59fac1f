// `npm run test:unit`: every test file, in two vitest processes side by side. The `long` project
// runs the two longest e2e files whose damage stays on control planes of their own (the soak,
// e2e/soak/soak.test.ts, and the management apiserver restarts, e2e/chaos/apiserver-restart.test.ts)
// while the `krtt` project runs every other file one at a time (its e2e files share one control
// plane, so they must not overlap). Each process starts its own shared control plane; the long
// files mostly wait for API servers and controllers. The `long` lines are prefixed `long │`; the
// exit code is the first failure's, or 0.
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const vitest = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url))

/** Runs `vitest run` over one project; each output line prefixed with `prefix`. */
const run = (project: string, prefix: string): Promise<number> =>
  new Promise((resolve) => {
    const args = [vitest, "run", "--project", project, "--passWithNoTests", ...process.argv.slice(2)]
    const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
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

const codes = await Promise.all([run("krtt", ""), run("long", "long │ ")])
process.exitCode = codes.find((c) => c !== 0) ?? 0
