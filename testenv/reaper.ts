// node testenv/reaper.ts <parent-pid> <dir>
// Watches the process that started a control plane. If it vanishes while `dir` still exists
// (killed with SIGKILL, so its exit handlers never ran), kills the process groups listed in
// `dir/pids.json` and removes `dir`. Exits as soon as `dir` is gone, whoever removed it.
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"

const [parentArg, dir] = process.argv.slice(2)
const parent = Number(parentArg)
if (!Number.isInteger(parent) || parent <= 0 || dir === undefined) {
  process.stderr.write("usage: reaper.ts <parent-pid> <dir>\n")
  process.exit(2)
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

setInterval(() => {
  if (!existsSync(dir)) process.exit(0)
  if (alive(parent)) return
  let pids: Array<number> = []
  try {
    pids = JSON.parse(readFileSync(join(dir, "pids.json"), "utf8")) as Array<number>
  } catch {
    // nothing started yet
  }
  for (const pid of pids) {
    try {
      process.kill(-pid, "SIGKILL")
    } catch {
      // gone already
    }
  }
  rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  process.exit(0)
}, 500)
