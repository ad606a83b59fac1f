/**
 * A command line `krtt` refuses, through the built binary: one line per mistake and a pointer
 * to the help, on standard error, nothing on standard output, exit code 2; a typo gets a "did
 * you mean". The global flags are `--help` and `--version`, which work after any subcommand.
 */
import { spawnSync } from "node:child_process"
import { describe, expect, it } from "vitest"

const krtt = (...args: ReadonlyArray<string>) => {
  const r = spawnSync(process.execPath, ["bin/krtt.js", ...args], { encoding: "utf8", timeout: 30_000 })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe("krtt's refused command lines", () => {
  it("an unknown flag: one line naming it with the closest flag, the help's pointer, exit 2", () => {
    expect(krtt("tables", "--jsn")).toEqual({
      status: 2,
      stdout: "",
      stderr:
        "krtt tables: Unrecognized flag: --jsn in command krtt tables; did you mean --json?\nRun 'krtt tables --help' for usage.\n",
    })
  })

  it("an unknown subcommand: the closest one", () => {
    expect(krtt("tabels")).toEqual({
      status: 2,
      stdout: "",
      stderr:
        'krtt: Unknown subcommand "tabels" for "krtt"; did you mean tables?\nRun \'krtt --help\' for usage.\n',
    })
  })

  it("effect/cli's other global flags are not offered: --log-level is refused like any unknown flag", () => {
    const r = krtt("--log-level", "debug", "tables")
    expect(r.status).toBe(2)
    expect(r.stdout).toBe("")
    expect(r.stderr).toMatch(/^krtt: Unrecognized flag: --log-level/)
    expect(krtt("--help").stdout).not.toMatch(/--log-level|--wizard|--completions/)
  })

  it("--help and --version after a subcommand", () => {
    const help = krtt("tables", "--help")
    expect(help.status).toBe(0)
    expect(help.stdout).toContain("List the documented tables")
    const version = krtt("why", "--version")
    expect(version.status).toBe(0)
    expect(version.stdout).toMatch(/^krtt v\d+\.\d+\.\d+/)
  })
})
