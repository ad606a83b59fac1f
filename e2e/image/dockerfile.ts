/**
 * The Dockerfile read and carried out without a container engine, for the image's layout
 * test: the Dockerfile's stages are laid out as folders of a work folder, one per stage, each
 * holding what the stage's COPY lines put there (from the build context, with `.dockerignore`
 * applied, or from another stage) and what its RUN lines make, run by `sh` in the folder that
 * stands for the stage's WORKDIR. The last stage's WORKDIR is then exactly the files the image
 * holds beside its base image's.
 *
 * What this does not have: the base image's files (the stages run the host's `node`, `npm`, `sh`,
 * `tar` and `find` instead of the base image's, so a stage is laid out only where these stand in for
 * the base image's: the test checks that the host's Node has the base image's major version). An
 * instruction or a flag it does not know is an error rather than skipped, and so is a RUN line
 * that names an absolute path, which here would be the host's.
 *
 * @module
 */
import { execFile } from "node:child_process"
import { cp, lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from "node:fs/promises"
import { delimiter, dirname, join, posix } from "node:path"

export interface Instruction {
  /** Upper case: FROM, COPY, RUN, ... */
  readonly keyword: string
  /** The rest of the line, continuation lines joined. */
  readonly rest: string
  /** 1-based line of the Dockerfile where the instruction starts. */
  readonly line: number
}

export interface Stage {
  readonly index: number
  readonly name: string | undefined
  readonly base: string
  readonly instructions: ReadonlyArray<Instruction>
}

export interface Dockerfile {
  /** ARGs before the first FROM. */
  readonly globalArgs: ReadonlyArray<Instruction>
  readonly stages: ReadonlyArray<Stage>
}

/** The instructions of a Dockerfile, by stage. */
export const parseDockerfile = (text: string): Dockerfile => {
  const instructions: Array<Instruction> = []
  let pending: { rest: string; keyword: string; line: number } | undefined
  const lines = text.split("\n")
  for (const [i, raw] of lines.entries()) {
    const line = raw.replace(/\s+$/, "")
    const trimmed = line.trim()
    // Comments and blank lines, also between continuation lines, are not part of an instruction.
    if (trimmed === "" || trimmed.startsWith("#")) continue
    const continues = line.endsWith("\\")
    const body = continues ? line.slice(0, -1) : line
    if (pending === undefined) {
      const m = /^\s*([A-Za-z]+)(?:\s+(.*))?$/s.exec(body)
      if (m === null) throw new Error(`Dockerfile line ${i + 1}: not an instruction: ${raw}`)
      pending = { keyword: (m[1] as string).toUpperCase(), rest: m[2] ?? "", line: i + 1 }
    } else {
      pending.rest += body
    }
    if (!continues) {
      instructions.push({ keyword: pending.keyword, rest: pending.rest.trim(), line: pending.line })
      pending = undefined
    }
  }
  if (pending !== undefined) throw new Error(`Dockerfile line ${pending.line}: unfinished continuation`)
  const globalArgs: Array<Instruction> = []
  const stages: Array<{
    index: number
    name: string | undefined
    base: string
    instructions: Array<Instruction>
  }> = []
  for (const ins of instructions) {
    if (ins.keyword === "FROM") {
      const words = ins.rest.split(/\s+/).filter((w) => !w.startsWith("--platform="))
      const [base, as, name] = words
      if (base === undefined || (as !== undefined && (as.toUpperCase() !== "AS" || name === undefined)))
        throw new Error(`Dockerfile line ${ins.line}: FROM ${ins.rest}`)
      stages.push({ index: stages.length, name, base, instructions: [] })
    } else if (stages.length === 0) {
      if (ins.keyword !== "ARG") throw new Error(`Dockerfile line ${ins.line}: ${ins.keyword} before FROM`)
      globalArgs.push(ins)
    } else {
      ;(stages[stages.length - 1] as { instructions: Array<Instruction> }).instructions.push(ins)
    }
  }
  return { globalArgs, stages }
}

/** `key=value` pairs of LABEL, ENV and ARG, values unquoted and `$VAR`/`${VAR}` substituted. */
export const keyValues = (
  rest: string,
  vars: Readonly<Record<string, string>>,
  line: number,
): ReadonlyArray<readonly [string, string]> => {
  const pairs: Array<readonly [string, string]> = []
  const re = /\s*([A-Za-z0-9_.-]+)=("(?:[^"\\]|\\.)*"|'[^']*'|[^\s"']*)/y
  let at = 0
  while (at < rest.length) {
    re.lastIndex = at
    const m = re.exec(rest)
    if (m === null) {
      if (rest.slice(at).trim() === "") break
      throw new Error(`Dockerfile line ${line}: not key=value pairs: ${rest.slice(at)}`)
    }
    const raw = m[2] as string
    const value = raw.startsWith("'")
      ? raw.slice(1, -1)
      : substitute(raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, "$1") : raw, vars, line)
    pairs.push([m[1] as string, value])
    at = re.lastIndex
  }
  return pairs
}

/** `$VAR` and `${VAR}` replaced by the build's variables (an unknown one is an error). */
export const substitute = (text: string, vars: Readonly<Record<string, string>>, line: number): string =>
  text.replace(/\$(?:\{([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_, braced: string | undefined, bare) => {
    const name = (braced ?? bare) as string
    const value = vars[name]
    if (value === undefined || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new Error(`Dockerfile line ${line}: $${name} is not a variable this reader knows`)
    return value
  })

/** The words of an exec-form (JSON) or shell-form argument list. */
const execForm = (rest: string): ReadonlyArray<string> | undefined =>
  rest.startsWith("[") ? (JSON.parse(rest) as ReadonlyArray<string>) : undefined

/**
 * `.dockerignore` as Docker reads it: one pattern a line (`#` comments), matched against a path
 * relative to the context's root and against each of its parent folders; `*` and `?` stop at
 * `/`, `**` spans folders; the last pattern that matches decides, and `!` makes it an exception.
 * Returns whether `path` is kept out of the context.
 */
export const dockerignore = (text: string): ((path: string) => boolean) => {
  const rules = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => {
      const exception = l.startsWith("!")
      const pattern = posix.normalize((exception ? l.slice(1) : l).trim()).replace(/^\/+|\/+$/g, "")
      let re = ""
      for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i] as string
        if (c === "*" && pattern[i + 1] === "*") {
          // `**/` matches no folder too; `**` alone anything.
          if (pattern[i + 2] === "/") {
            re += "(?:.*/)?"
            i += 2
          } else {
            re += ".*"
            i += 1
          }
        } else if (c === "*") re += "[^/]*"
        else if (c === "?") re += "[^/]"
        else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&")
      }
      return { exception, re: new RegExp(`^${re}$`) }
    })
  return (path) => {
    const parts = path.split("/")
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join("/"))
    let excluded = false
    for (const rule of rules) if (candidates.some((c) => rule.re.test(c))) excluded = !rule.exception
    return excluded
  }
}

/** What a stage's instructions say besides its files: the image's configuration for the last. */
export interface StageConfig {
  readonly index: number
  readonly name: string | undefined
  readonly base: string
  /** The stage's WORKDIR (a path inside the stage). */
  readonly workdir: string
  readonly args: Readonly<Record<string, string>>
  readonly env: Readonly<Record<string, string>>
  readonly labels: Readonly<Record<string, string>>
  readonly user: string | undefined
  readonly entrypoint: ReadonlyArray<string> | undefined
  readonly cmd: ReadonlyArray<string> | undefined
  readonly expose: ReadonlyArray<string>
}

export interface BuiltStage extends StageConfig {
  /** The folder that stands for the stage's `/`. */
  readonly root: string
}

/** The value of an ARG line: `--build-arg` wins over the default. */
const argOf = (
  ins: Instruction,
  vars: Readonly<Record<string, string>>,
  buildArgs: Readonly<Record<string, string>>,
): readonly [string, string | undefined] => {
  const eq = ins.rest.indexOf("=")
  const name = eq < 0 ? ins.rest.trim() : ins.rest.slice(0, eq).trim()
  const fallback = eq < 0 ? undefined : (keyValues(ins.rest, vars, ins.line)[0]?.[1] ?? "")
  return [name, buildArgs[name] ?? fallback]
}

/** The values of the ARGs before the first FROM (which FROM lines may use). */
const globalArgs = (dockerfile: Dockerfile, buildArgs: Readonly<Record<string, string>>) => {
  const globals: Record<string, string> = {}
  for (const ins of dockerfile.globalArgs) {
    const [name, value] = argOf(ins, globals, buildArgs)
    if (value !== undefined) globals[name] = value
  }
  return globals
}

/**
 * Reads a stage's instructions in order, calling `files` for COPY and RUN (the ones that change
 * files), with the stage's configuration as it stands at that line. Returns the configuration.
 */
const walkStage = async (
  dockerfile: Dockerfile,
  stage: Stage,
  buildArgs: Readonly<Record<string, string>>,
  files: (ins: Instruction, config: StageConfig) => Promise<void>,
): Promise<StageConfig> => {
  const globals = globalArgs(dockerfile, buildArgs)
  const config = {
    index: stage.index,
    name: stage.name,
    base: substitute(stage.base, globals, 0),
    workdir: "/",
    args: {} as Record<string, string>,
    env: {} as Record<string, string>,
    labels: {} as Record<string, string>,
    user: undefined as string | undefined,
    entrypoint: undefined as ReadonlyArray<string> | undefined,
    cmd: undefined as ReadonlyArray<string> | undefined,
    expose: [] as Array<string>,
  }
  const vars = () => ({ ...config.args, ...config.env })
  for (const ins of stage.instructions) {
    const where = `Dockerfile line ${ins.line}`
    switch (ins.keyword) {
      case "ARG": {
        const [name, value] = argOf(ins, { ...globals, ...vars() }, buildArgs)
        const v = value ?? globals[name]
        if (v !== undefined) config.args[name] = v
        break
      }
      case "ENV":
        for (const [k, v] of keyValues(ins.rest, vars(), ins.line)) config.env[k] = v
        break
      case "LABEL":
        for (const [k, v] of keyValues(ins.rest, vars(), ins.line)) config.labels[k] = v
        break
      case "WORKDIR":
        config.workdir = posix.resolve(config.workdir, substitute(ins.rest, vars(), ins.line))
        await files(ins, config)
        break
      case "USER":
        config.user = substitute(ins.rest, vars(), ins.line)
        break
      case "EXPOSE":
        config.expose.push(...ins.rest.split(/\s+/))
        break
      case "ENTRYPOINT":
      case "CMD": {
        const words = execForm(ins.rest)
        if (words === undefined) throw new Error(`${where}: ${ins.keyword} in shell form`)
        if (ins.keyword === "CMD") config.cmd = words
        else config.entrypoint = words
        break
      }
      case "COPY":
      case "RUN":
        await files(ins, config)
        break
      default:
        throw new Error(`${where}: ${ins.keyword} is not an instruction this reader carries out`)
    }
  }
  return config
}

/** A stage's configuration without laying out its files (the last stage's: the image's). */
export const stageConfig = (
  dockerfile: Dockerfile,
  index = dockerfile.stages.length - 1,
  buildArgs: Readonly<Record<string, string>> = {},
): Promise<StageConfig> => {
  const stage = dockerfile.stages[index]
  if (stage === undefined) throw new Error(`the Dockerfile has no stage ${index}`)
  return walkStage(dockerfile, stage, buildArgs, async () => {})
}

export interface BuildOptions {
  readonly dockerfile: string
  /** The build context: the repository's root. */
  readonly context: string
  /** An empty folder for the stages. */
  readonly work: string
  /** `--build-arg`s. */
  readonly buildArgs?: Readonly<Record<string, string>>
  /** The environment of RUN lines besides the stage's ARGs and ENVs (PATH, HOME, npm's settings). */
  readonly runEnv: Readonly<Record<string, string>>
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string>) =>
  new Promise<string>((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd, env, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`
        if (error === null) resolve(output)
        else
          reject(
            new Error(`${args.join(" ")} failed (${error.message.split("\n")[0]}):\n${output.slice(-4000)}`),
          )
      },
    )
  })

/** Copies `from` (a file, a folder, a symbolic link) to `to`, `keep` deciding for each path. */
const copyTree = async (
  from: string,
  to: string,
  keep: (rel: string) => boolean = () => true,
  rel = "",
): Promise<number> => {
  const st = await lstat(from)
  if (st.isSymbolicLink()) {
    if (!keep(rel)) return 0
    await mkdir(dirname(to), { recursive: true })
    await symlink(await readlink(from), to)
    return 1
  }
  if (st.isFile()) {
    if (!keep(rel)) return 0
    await mkdir(dirname(to), { recursive: true })
    await cp(from, to, { preserveTimestamps: false })
    return 1
  }
  let n = 0
  for (const entry of await readdir(from)) {
    n += await copyTree(join(from, entry), join(to, entry), keep, rel === "" ? entry : `${rel}/${entry}`)
  }
  if (keep(rel)) await mkdir(to, { recursive: true })
  return n
}

/**
 * Lays out every stage of the Dockerfile under `work` (stages run at the same time, a
 * `COPY --from` waiting for its stage, as BuildKit builds them) and returns them, the image's last.
 */
export const buildStages = async (options: BuildOptions): Promise<ReadonlyArray<BuiltStage>> => {
  const dockerfile = parseDockerfile(await readFile(options.dockerfile, "utf8"))
  const ignoreText = await readFile(join(options.context, ".dockerignore"), "utf8").catch(() => "")
  const ignored = dockerignore(ignoreText)
  const buildArgs = options.buildArgs ?? {}
  const built: Array<Promise<BuiltStage>> = []

  const buildStage = async (stage: Stage): Promise<BuiltStage> => {
    const root = join(options.work, `stage-${stage.index}${stage.name === undefined ? "" : `-${stage.name}`}`)
    await mkdir(root, { recursive: true })
    const host = (path: string) => join(root, posix.resolve("/", path))
    const stageRef = (ref: string, line: number): Promise<BuiltStage> => {
      const s = dockerfile.stages.find((st) => st.name === ref) ?? dockerfile.stages[Number(ref)]
      const b = s === undefined || s.index >= stage.index ? undefined : built[s.index]
      if (b === undefined) throw new Error(`Dockerfile line ${line}: no stage ${ref} before this one`)
      return b
    }
    const files = async (ins: Instruction, config: StageConfig): Promise<void> => {
      const where = `Dockerfile line ${ins.line}`
      const vars = { ...config.args, ...config.env }
      if (ins.keyword === "WORKDIR") {
        await mkdir(host(config.workdir), { recursive: true })
      } else if (ins.keyword === "COPY") {
        const words = execForm(ins.rest) ?? ins.rest.split(/\s+/)
        const flags = words.filter((w) => w.startsWith("--"))
        const paths = words.filter((w) => !w.startsWith("--")).map((w) => substitute(w, vars, ins.line))
        let from: string | undefined
        for (const flag of flags) {
          if (flag.startsWith("--from=")) from = flag.slice("--from=".length)
          else if (flag !== "--link") throw new Error(`${where}: COPY ${flag} is not known here`)
        }
        const dest = paths.pop()
        if (dest === undefined || paths.length === 0)
          throw new Error(`${where}: COPY needs a source and a destination`)
        const intoDir = paths.length > 1 || dest.endsWith("/")
        const target = posix.resolve(config.workdir, dest)
        for (const src of paths) {
          if (/[*?[]/.test(src)) throw new Error(`${where}: wildcards in COPY are not read here`)
          let source: string
          let keep: (rel: string) => boolean
          if (from !== undefined) {
            // Paths of another stage are that stage's, from its root.
            const other = await stageRef(from, ins.line)
            source = join(other.root, posix.resolve("/", src))
            keep = () => true
          } else {
            const rel = posix.normalize(src).replace(/^\/+|\/+$/g, "")
            if (rel.startsWith("..")) throw new Error(`${where}: ${src} is outside the build context`)
            const whole = rel === "." || rel === ""
            source = whole ? options.context : join(options.context, rel)
            keep = (r) => !ignored(whole ? r : r === "" ? rel : `${rel}/${r}`)
          }
          const st = await lstat(source).catch(() => undefined)
          if (st === undefined) throw new Error(`${where}: ${src} does not exist`)
          // A folder's contents go into the destination; a file into it or to it.
          const to =
            st.isDirectory() || !intoDir ? host(target) : host(posix.join(target, posix.basename(src)))
          const n = await copyTree(source, to, keep)
          if (n === 0) throw new Error(`${where}: COPY ${src}: nothing to copy (.dockerignore keeps it out?)`)
        }
      } else {
        const words = execForm(ins.rest)
        const text = words === undefined ? ins.rest : words.join(" ")
        if (/^--/.test(text)) throw new Error(`${where}: RUN flags are not read here`)
        if (/(^|[\s=:'"(])\//.test(text))
          throw new Error(`${where}: RUN names an absolute path, which this reader would run on the host`)
        const cwd = host(config.workdir)
        await mkdir(cwd, { recursive: true })
        const env = { ...options.runEnv, ...vars }
        const [command, ...args] = words ?? ["sh", "-c", text]
        const output = await run(command as string, args, cwd, env)
        await writeFile(`${root}.log`, `$ ${text}\n${output}\n`, { flag: "a" })
      }
    }
    const config = await walkStage(dockerfile, stage, buildArgs, files)
    return { ...config, root }
  }

  for (const stage of dockerfile.stages) built.push(Promise.resolve().then(() => buildStage(stage)))
  return Promise.all(built)
}

/** PATH for RUN lines: the Node that runs the tests first, no project's node_modules/.bin. */
export const runPath = (execPath: string, path = process.env.PATH ?? ""): string =>
  [dirname(execPath), ...path.split(delimiter).filter((p) => p !== "" && !p.includes("node_modules"))].join(
    delimiter,
  )
