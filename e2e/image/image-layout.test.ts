// The image of the Dockerfile without a container engine: its files laid out in a temporary
// folder as the Dockerfile's COPY and RUN lines say (e2e/image/dockerfile.ts carries them out:
// the build stage's `npm ci` and bundle, the runtime stage's copies, with .dockerignore applied
// to the build context), then the checks of what the image holds, and the image's command run from there (cwd = its WORKDIR, its ENV, its
// USER when the tests run as root) with config/manager/manager.yaml's args against the shared
// control plane: it reconciles a Cluster and ends with exit code 0 on SIGTERM.
//
// What stands in for the base image: the Node that runs the tests (same major version, checked)
// and the host's npm, sh and find.
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { chmodSync, chownSync, closeSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join, posix } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Cluster } from "../../testenv/index.ts"
import { freePorts, killGroup, onEmergency, tail } from "../../testenv/processes.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import {
  CLUSTER_FINALIZER,
  create,
  createNamespace,
  getObject,
  installManagement,
  type KubeObject,
  MANAGER_NAMESPACE,
  managerIdentity,
  paths,
  readManifests,
  repoRoot,
  waitFor,
} from "../fixtures/index.ts"
import {
  type BuiltStage,
  buildStages,
  dockerignore,
  parseDockerfile,
  runPath,
  type StageConfig,
  stageConfig,
} from "./dockerfile.ts"

const DOCKERFILE = join(repoRoot, "Dockerfile")
const IMAGE = "ghcr.io/krtt/krtt"
const dockerfile = parseDockerfile(readFileSync(DOCKERFILE, "utf8"))
const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
  readonly name: string
  readonly version: string
  readonly license: string
  readonly repository: { readonly url: string }
}
/** The Deployments' containers of config/ that run this image, by file. */
const imageContainers = (): ReadonlyArray<{
  readonly file: string
  readonly pod: Record<string, unknown>
  readonly container: { image: string; command?: unknown; args?: Array<string>; ports?: Array<unknown> }
}> => {
  const files: Array<string> = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
      const rel = posix.join(dir, entry.name)
      if (entry.isDirectory()) walk(rel)
      else if (/\.ya?ml$/.test(entry.name)) files.push(rel)
    }
  }
  walk("config")
  return files.sort().flatMap((file) =>
    readManifests(join(repoRoot, file)).flatMap((o: KubeObject) => {
      const pod = (o.spec?.template as { spec?: Record<string, unknown> } | undefined)?.spec
      const containers = (pod?.containers ?? []) as Array<{ image: string }>
      return containers
        .filter((c) => c.image.startsWith(`${IMAGE}:`))
        .map((container) => ({ file, pod: pod as Record<string, unknown>, container }))
    }),
  )
}

/** `uid:gid` of a USER line, numbers only (a name would need /etc/passwd, and runAsNonRoot needs a number). */
const userIds = (user: string | undefined): { readonly uid: number; readonly gid: number } => {
  const m = /^(\d+)(?::(\d+))?$/.exec(user ?? "")
  if (m === null) throw new Error(`USER ${user}: not numeric`)
  return { uid: Number(m[1]), gid: Number(m[2] ?? m[1]) }
}

describe("the Dockerfile's image configuration", () => {
  let image: StageConfig
  beforeAll(async () => {
    image = await stageConfig(dockerfile)
  })

  it("has the OCI labels, from package.json: title, description, source, licenses, version (the VERSION build arg, package.json's version by default)", async () => {
    const repository = pkg.repository.url.replace(/^git\+/, "").replace(/\.git$/, "")
    expect(image.args.VERSION).toBe(pkg.version)
    expect(image.labels).toEqual({
      "org.opencontainers.image.title": pkg.name,
      "org.opencontainers.image.description": expect.stringMatching(/\S/),
      "org.opencontainers.image.source": repository,
      "org.opencontainers.image.licenses": pkg.license,
      "org.opencontainers.image.version": pkg.version,
    })
    const release = await stageConfig(dockerfile, undefined, { VERSION: "1.2.3" })
    expect(release.labels["org.opencontainers.image.version"]).toBe("1.2.3")
  })

  it("runs `node bin/krtt.js run` as user 65532, in /app, with NODE_ENV=production, from a Node 24 base like every stage", () => {
    expect(image.entrypoint).toEqual(["node", "bin/krtt.js"])
    expect(image.cmd).toEqual(["run"])
    expect(userIds(image.user)).toEqual({ uid: 65532, gid: 65532 })
    expect(image.workdir).toBe("/app")
    expect(image.env).toEqual({ NODE_ENV: "production" })
    for (const stage of dockerfile.stages) expect(stage.base).toMatch(/^node:24-/)
    // The Node that runs the laid-out image below stands for the base image's.
    expect(process.versions.node.split(".")[0]).toBe("24")
  })

  it("is what the manifests' Deployments run: this version's tag, its user, args for its entrypoint", () => {
    const containers = imageContainers()
    expect(containers.map((c) => c.file)).toEqual(
      expect.arrayContaining([
        "config/inventory/hub.yaml",
        "config/ipam/deployment.yaml",
        "config/manager/manager.yaml",
        "config/propagate/hub.yaml",
      ]),
    )
    const { uid, gid } = userIds(image.user)
    for (const { file, pod, container } of containers) {
      expect(container.image, file).toBe(`${IMAGE}:${pkg.version}`)
      // A command would replace the entrypoint; the args name the krtt command and its flags.
      expect(container.command, file).toBeUndefined()
      expect(container.args?.[0], file).toMatch(/^(run|ipam|propagate|inventory)$/)
      expect(pod.securityContext, file).toMatchObject({ runAsNonRoot: true, runAsUser: uid, runAsGroup: gid })
    }
    const manager = containers.find((c) => c.file === "config/manager/manager.yaml")
    const ports = (manager?.container.ports ?? []) as Array<{ containerPort: number }>
    expect(image.expose).toEqual(ports.map((p) => String(p.containerPort)))
  })

  it(".dockerignore keeps out of the build context every file that no COPY of the build names, and the tests", async () => {
    const ignored = dockerignore(readFileSync(join(repoRoot, ".dockerignore"), "utf8"))
    // The sources that COPY lines take from the context (no --from), by stage.
    const sources = dockerfile.stages.flatMap((s) =>
      s.instructions
        .filter((i) => i.keyword === "COPY" && !i.rest.includes("--from="))
        .flatMap((i) =>
          i.rest
            .split(/\s+/)
            .filter((w) => !w.startsWith("--"))
            .slice(0, -1),
        ),
    )
    const named = (path: string) => sources.some((s) => path === s || path.startsWith(`${s}/`))
    const tracked = (
      await promisify(execFile)("git", ["ls-files"], { cwd: repoRoot, maxBuffer: 1 << 26 })
    ).stdout
      .split("\n")
      .filter((f) => f !== "")
    expect(tracked.length).toBeGreaterThan(100)
    const test = (f: string) => /\.test\.ts$/.test(f)
    expect(tracked.filter((f) => ignored(f) !== (!named(f) || test(f)))).toEqual([])
    // And what is not tracked but lies in a checkout.
    for (const f of [
      "node_modules/effect/package.json",
      ".git/HEAD",
      "dist/shell/cli/main.js",
      "coverage/index.html",
      "reports/mutation/index.html",
      ".stryker-tmp/sandbox/x.ts",
      ".stryker-tmp-2/x.ts",
      ".testenv/bin/kube-apiserver",
      "krtt-0.1.0.tgz",
    ])
      expect(ignored(f), f).toBe(true)
  })
})

/** Every file under `dir`, relative, `/`-separated (folders as `name/` when empty or packages). */
const filesUnder = (dir: string, rel = ""): ReadonlyArray<string> =>
  readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const path = rel === "" ? e.name : `${rel}/${e.name}`
    return e.isDirectory() ? filesUnder(dir, path) : [path]
  })

describe("the Dockerfile's image, laid out as its COPY and RUN lines say", () => {
  let work: string
  let image: BuiltStage
  /** The image's WORKDIR: the files the image adds to its base. */
  let app: string

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "krtt-image-"))
    // The image's user must reach its files, as in the image (mkdtemp makes the folder 0700).
    await chmod(work, 0o755)
    const runEnv: Record<string, string> = {
      PATH: runPath(process.execPath),
      HOME: process.env.HOME ?? work,
      // The registry is reached only for what the npm cache lacks.
      npm_config_prefer_offline: "true",
      npm_config_update_notifier: "false",
    }
    if (process.env.TMPDIR !== undefined) runEnv.TMPDIR = process.env.TMPDIR
    // How the builder reaches the registry (a proxy, its CA), as a builder passes them to RUN.
    for (const name of [
      "NODE_EXTRA_CA_CERTS",
      "HTTPS_PROXY",
      "HTTP_PROXY",
      "NO_PROXY",
      "https_proxy",
      "http_proxy",
      "no_proxy",
    ]) {
      const value = process.env[name]
      if (value !== undefined) runEnv[name] = value
    }
    const stages = await buildStages({ dockerfile: DOCKERFILE, context: repoRoot, work, runEnv })
    image = stages[stages.length - 1] as BuiltStage
    app = join(image.root, image.workdir)
  }, 600_000)

  afterAll(async () => {
    if (work !== undefined) await rm(work, { recursive: true, force: true })
  })

  it("holds package.json, LICENSE, bin/krtt.js, bin/node-version.js and the command's bundle with its licence notices: no node_modules, no test, no TypeScript, no declaration, no source map", () => {
    // The runtime stage writes nowhere but its WORKDIR.
    expect(filesUnder(image.root).every((f) => `/${f}`.startsWith(`${image.workdir}/`))).toBe(true)
    expect(readdirSync(app).sort()).toEqual(["LICENSE", "bin", "dist", "package.json"])
    expect(readdirSync(join(app, "bin")).sort()).toEqual(["krtt.js", "node-version.js"])
    expect(readdirSync(join(app, "dist"))).toEqual(["cli"])
    expect(JSON.parse(readFileSync(join(app, "package.json"), "utf8"))).toEqual(pkg)
    const own = filesUnder(app)
    // Source maps only where the process loads them: with --enable-source-maps or
    // process.setSourceMapsEnabled, which neither bin/krtt.js nor the image's command uses now.
    const loadsMaps = /--enable-source-maps|setSourceMapsEnabled/.test(
      [
        readFileSync(join(app, "bin", "krtt.js"), "utf8"),
        image.env.NODE_OPTIONS,
        ...(image.entrypoint ?? []),
      ].join("\n"),
    )
    const kept = loadsMaps ? /\.js(\.map)?$|\.LEGAL\.txt$/ : /\.js$|\.LEGAL\.txt$/
    const others = ["package.json", "LICENSE", "dist/cli/THIRD_PARTY_LICENSES.txt"]
    expect(own.filter((f) => !kept.test(f) && !others.includes(f))).toEqual([])
    expect(own).toContain("dist/cli/main.js")
    expect(own).toContain("dist/cli/worker.js")
    expect(readFileSync(join(app, "dist/cli/THIRD_PARTY_LICENSES.txt"), "utf8")).toContain(
      "@kubernetes/client-node",
    )
    // The bundle carries its dependencies: nothing in or above the layout could lend it a module.
    for (let d = app; d !== dirname(d); d = dirname(d))
      expect(readdirSync(d), d).not.toContain("node_modules")
  })

  describe("run from there as the image runs it, with config/manager/manager.yaml's args", () => {
    let mgmt: Cluster
    let child: ChildProcess | undefined
    let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
    let logPath: string
    let unregister: (() => void) | undefined

    afterAll(() => {
      if (child?.exitCode === null && child.signalCode === null && child.pid !== undefined)
        killGroup(child.pid, "SIGKILL")
      unregister?.()
    })

    it("reconciles a Cluster, then SIGTERM ends it with exit code 0", async () => {
      mgmt = sharedControlPlane().clusters[1] as Cluster
      await installManagement(mgmt)
      const identity = await managerIdentity(mgmt, work)
      const namespace = await createNamespace(mgmt, `e2e-image-${Date.now().toString(36)}`)
      const ids = userIds(image.user)
      const asImageUser = process.getuid?.() === 0
      const kubeconfigPath = join(work, "image-user.kubeconfig")
      writeFileSync(kubeconfigPath, identity.kubeconfig, { mode: 0o600 })
      if (asImageUser) chownSync(kubeconfigPath, ids.uid, ids.gid)
      const noCerts = join(work, "no-serving-certs")
      await mkdir(noCerts)
      chmodSync(noCerts, 0o755)

      // The Deployment's args, with this machine's addresses and this test's namespace instead of
      // the Pod's; everything else as the Pod runs it.
      const manager = imageContainers().find((c) => c.file === "config/manager/manager.yaml")
      const [metricsPort, healthPort] = await freePorts(2)
      const overrides: Record<string, string> = {
        "diagnostics-address": `127.0.0.1:${metricsPort}`,
        "health-addr": `127.0.0.1:${healthPort}`,
        kubeconfig: kubeconfigPath,
        namespace,
        "webhook-cert-dir": noCerts,
      }
      const podArgs = manager?.container.args ?? []
      const args = [
        ...podArgs.filter(
          (a) => !Object.keys(overrides).some((f) => a === `--${f}` || a.startsWith(`--${f}=`)),
        ),
        ...Object.entries(overrides).map(([f, v]) => `--${f}=${v}`),
      ]
      const [node, ...entrypointArgs] = image.entrypoint ?? []
      expect(node).toBe("node")
      logPath = join(work, "krtt-run.log")
      const fd = openSync(logPath, "a")
      try {
        child = spawn(process.execPath, [...entrypointArgs, ...args], {
          cwd: app,
          // The image's environment: its ENV, PATH with its node, HOME of a user without a passwd
          // entry, and the Pod's POD_NAMESPACE.
          env: {
            PATH: `${dirname(process.execPath)}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
            HOME: "/",
            ...image.env,
            POD_NAMESPACE: MANAGER_NAMESPACE,
          },
          detached: true,
          stdio: ["ignore", fd, fd],
          ...(asImageUser ? { uid: ids.uid, gid: ids.gid } : {}),
        })
      } finally {
        closeSync(fd)
      }
      const started = child
      exited = new Promise((resolve) => started.once("exit", (code, signal) => resolve({ code, signal })))
      const pid = started.pid
      if (pid === undefined) throw new Error(`cannot start node bin/krtt.js in ${app}`)
      unregister = onEmergency(() => killGroup(pid, "SIGKILL"))
      const context = () => `last lines of ${logPath}:\n${tail(logPath, 30)}`

      await create(mgmt, paths.cluster(namespace), {
        apiVersion: "cluster.x-k8s.io/v1beta2",
        kind: "Cluster",
        metadata: { name: "from-the-image", namespace },
        spec: { controlPlaneEndpoint: { host: "10.0.0.1", port: 6443 } },
      })
      const reconciled = await waitFor(
        "the Cluster reconciled by krtt run from the image's files",
        async () => {
          if (started.exitCode !== null || started.signalCode !== null)
            throw new Error(`krtt run exited (${started.exitCode ?? started.signalCode})`)
          const c = await getObject(mgmt, paths.cluster(namespace, "from-the-image"))
          return c?.metadata.finalizers?.includes(CLUSTER_FINALIZER) && c.status?.phase !== undefined
            ? c
            : undefined
        },
        { timeoutMs: 90_000, context },
      )
      expect(reconciled.metadata.finalizers).toContain(CLUSTER_FINALIZER)
      const health = await fetch(`http://127.0.0.1:${healthPort}/healthz`, {
        signal: AbortSignal.timeout(10_000),
      })
      expect(health.status, context()).toBe(200)
      if (asImageUser) {
        const uids = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
        expect(Number(uids), "the process runs as the image's USER").toBe(ids.uid)
      }

      const before = Date.now()
      process.kill(pid, "SIGTERM")
      let timer: NodeJS.Timeout | undefined
      const ended = await Promise.race([
        exited,
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), 30_000)
        }),
      ])
      clearTimeout(timer)
      expect(ended, `no exit within 30 s of SIGTERM; ${context()}`).toEqual({ code: 0, signal: null })
      expect(Date.now() - before).toBeLessThan(30_000)
    }, 240_000)
  })
})
