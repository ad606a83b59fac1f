// One etcd and N kube-apiservers, each apiserver its own cluster (its own --etcd-prefix), on free
// loopback ports, in a temporary directory, with RBAC and static-token authentication.
import { generateKeyPairSync, randomBytes } from "node:crypto"
import { mkdir, mkdtemp, open, readdir, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Assets, ensureAssets } from "./assets.ts"
import {
  type Endpoint,
  type KubeResponse,
  kubeRequest,
  kubeWatch,
  type RequestOptions,
  type Watch,
} from "./kube-http.ts"
import { renderKubeconfig, renderTokenFile, type StaticUser } from "./kubeconfig.ts"
import {
  addressInUse,
  freePorts,
  killAndRemoveSync,
  type Managed,
  onEmergency,
  startProcess,
  startReaper,
  stopProcess,
  tail,
} from "./processes.ts"

// ---------------------------------------------------------------------------------------------
// What a control plane hands out: plain data, serialisable (vitest's provide/inject, `up`)

export interface Credentials {
  readonly user: string
  readonly token: string
  /** A kubeconfig for this user, as YAML text. */
  readonly kubeconfig: string
  /** The same kubeconfig, as a file. */
  readonly kubeconfigPath: string
}

export interface ClusterInfo {
  readonly index: number
  /** `cluster-<index>`: the name of the cluster and of the admin context in its kubeconfigs. */
  readonly name: string
  /** `https://127.0.0.1:<port>` */
  readonly server: string
  /** PEM of the apiserver's self-signed serving certificate and its CA. */
  readonly ca: string
  readonly etcdPrefix: string
  /** This cluster's folder in the control plane's directory. */
  readonly dir: string
  /** In group system:masters. */
  readonly admin: Credentials
  /** Authenticated, with no RBAC permissions at all. */
  readonly noAccess: Credentials
  /** Users without permissions, handed out by `Cluster.newUser` and `Cluster.userWithRules`. */
  readonly pool: ReadonlyArray<{ readonly user: string; readonly token: string }>
}

export interface ControlPlaneInfo {
  readonly dir: string
  readonly kubernetesVersion: string
  /**
   * Whether each cluster runs a kube-controller-manager (garbage collector, namespace controller,
   * ClusterRole aggregation). Absent in info written before it existed: read as false.
   */
  readonly controllerManager?: boolean
  readonly etcd: { readonly url: string }
  readonly clusters: ReadonlyArray<ClusterInfo>
}

export interface PolicyRule {
  readonly apiGroups?: ReadonlyArray<string>
  readonly resources?: ReadonlyArray<string>
  readonly verbs: ReadonlyArray<string>
  readonly resourceNames?: ReadonlyArray<string>
  readonly nonResourceURLs?: ReadonlyArray<string>
}

// ---------------------------------------------------------------------------------------------
// A cluster: its info plus the means to use it

const RBAC = "/apis/rbac.authorization.k8s.io/v1"
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export class Cluster {
  readonly info: ClusterInfo

  constructor(info: ClusterInfo) {
    this.info = info
  }

  get name(): string {
    return this.info.name
  }
  get server(): string {
    return this.info.server
  }
  get admin(): Credentials {
    return this.info.admin
  }
  get noAccess(): Credentials {
    return this.info.noAccess
  }

  /** Where to send requests as `as` (the admin by default); `token: ""` sends no token at all. */
  endpoint(as: { readonly token: string } = this.info.admin): Endpoint {
    return as.token === ""
      ? { server: this.info.server, ca: this.info.ca }
      : { server: this.info.server, ca: this.info.ca, token: as.token }
  }

  /** An HTTPS request to this cluster, as the admin unless `as` says otherwise. */
  request(
    method: string,
    path: string,
    options: RequestOptions & { readonly as?: { readonly token: string } } = {},
  ): Promise<KubeResponse> {
    return kubeRequest(this.endpoint(options.as), method, path, options)
  }

  /** A watch (`path` carries `?watch=1&...`), as the admin unless `as` says otherwise. */
  watch(path: string, options: { readonly as?: { readonly token: string } } = {}): Promise<Watch> {
    return kubeWatch(this.endpoint(options.as), path)
  }

  kubeconfigFor(user: string, token: string): string {
    return renderKubeconfig({
      cluster: this.info.name,
      server: this.info.server,
      ca: this.info.ca,
      user,
      token,
    })
  }

  /**
   * A user of the pool that nobody has had yet, with no permissions. Claims are files created
   * exclusively, so test files running in different processes never get the same user.
   */
  async newUser(): Promise<Credentials> {
    const claims = join(this.info.dir, "claims")
    await mkdir(claims, { recursive: true })
    for (const { user, token } of this.info.pool) {
      try {
        await (await open(join(claims, user), "wx")).close()
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "EEXIST") continue
        throw e
      }
      const kubeconfig = this.kubeconfigFor(user, token)
      const kubeconfigPath = join(this.info.dir, "users", `${user}.kubeconfig`)
      await mkdir(join(this.info.dir, "users"), { recursive: true })
      await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 })
      return { user, token, kubeconfig, kubeconfigPath }
    }
    throw new Error(
      `all ${this.info.pool.length} users of ${this.info.name} are taken; start the control plane with more (users option)`,
    )
  }

  /**
   * A fresh user allowed exactly `rules`: a ClusterRole and ClusterRoleBinding, or with
   * `namespace` a Role and RoleBinding there, created by the admin. Returns once the apiserver
   * grants the first verb of every rule (RBAC reaches the authorizer through a watch).
   */
  async userWithRules(
    rules: ReadonlyArray<PolicyRule>,
    options: { readonly namespace?: string; readonly timeoutMs?: number } = {},
  ): Promise<Credentials> {
    const credentials = await this.newUser()
    const name = `krtt-testenv-${credentials.user}`
    const ns = options.namespace
    const role =
      ns === undefined
        ? { kind: "ClusterRole", path: `${RBAC}/clusterroles` }
        : { kind: "Role", path: `${RBAC}/namespaces/${ns}/roles` }
    const binding =
      ns === undefined
        ? { kind: "ClusterRoleBinding", path: `${RBAC}/clusterrolebindings` }
        : { kind: "RoleBinding", path: `${RBAC}/namespaces/${ns}/rolebindings` }
    const metadata = ns === undefined ? { name } : { name, namespace: ns }
    await this.expect(
      201,
      this.request("POST", role.path, {
        body: { apiVersion: "rbac.authorization.k8s.io/v1", kind: role.kind, metadata, rules },
      }),
    )
    await this.expect(
      201,
      this.request("POST", binding.path, {
        body: {
          apiVersion: "rbac.authorization.k8s.io/v1",
          kind: binding.kind,
          metadata,
          roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: role.kind, name },
          subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: credentials.user }],
        },
      }),
    )
    const deadline = Date.now() + (options.timeoutMs ?? 30_000)
    for (const rule of rules) {
      const verb = rule.verbs[0] ?? "get"
      const nonResource = rule.nonResourceURLs?.[0]
      const spec =
        nonResource !== undefined
          ? { user: credentials.user, nonResourceAttributes: { path: nonResource, verb } }
          : {
              user: credentials.user,
              resourceAttributes: {
                verb,
                group: rule.apiGroups?.[0] ?? "",
                resource: rule.resources?.[0] ?? "*",
                ...(rule.resourceNames?.[0] === undefined ? {} : { name: rule.resourceNames[0] }),
                ...(ns === undefined ? {} : { namespace: ns }),
              },
            }
      for (;;) {
        const review = await this.expect(
          201,
          this.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
            body: { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec },
          }),
        )
        if ((review.body as { status?: { allowed?: boolean } }).status?.allowed === true) break
        if (Date.now() > deadline)
          throw new Error(`${credentials.user} was not granted ${JSON.stringify(rule)} in time`)
        await sleep(100)
      }
    }
    return credentials
  }

  private async expect(status: number, response: Promise<KubeResponse>): Promise<KubeResponse> {
    const r = await response
    if (r.status !== status)
      throw new Error(`${this.info.name}: expected ${status}, got ${r.status}: ${r.text}`)
    return r
  }
}

// ---------------------------------------------------------------------------------------------
// etcd

/** Compacts etcd at its current revision (every cluster shares it); returns that revision. */
export const compactEtcd = async (etcdUrl: string): Promise<number> => {
  const post = async (path: string, body: unknown): Promise<unknown> => {
    const response = await fetch(new URL(path, etcdUrl), { method: "POST", body: JSON.stringify(body) })
    const json: unknown = await response.json()
    if (!response.ok) throw new Error(`etcd ${path}: ${response.status} ${JSON.stringify(json)}`)
    return json
  }
  // a range over one key returns the store's current revision in its header
  const range = (await post("/v3/kv/range", { key: Buffer.from("\0").toString("base64") })) as {
    header: { revision: string }
  }
  const revision = Number(range.header.revision)
  await post("/v3/kv/compaction", { revision: String(revision), physical: true })
  return revision
}

// ---------------------------------------------------------------------------------------------
// Starting and stopping

export interface ControlPlaneOptions {
  /** How many clusters (kube-apiservers); 1 by default. */
  readonly clusters?: number
  /** Users per cluster in the pool for `newUser`/`userWithRules`; 20 by default. */
  readonly users?: number
  /** The directory to run in (created, must be empty, removed at stop); a fresh temporary one by default. */
  readonly dir?: string
  /** The binaries; `ensureAssets()` (KUBEBUILDER_ASSETS or the cache, built if needed) by default. */
  readonly assets?: Pick<Assets, "kubeApiserver" | "etcd"> & {
    readonly kubeControllerManager?: string | undefined
  }
  /**
   * A kube-controller-manager per cluster running the controllers a test may rely on: the
   * garbage collector (owner references cascade), the namespace controller (deleted namespaces
   * go away) and ClusterRole aggregation; true by default.
   */
  readonly controllerManager?: boolean
  /**
   * Which of {@link CONTROLLER_MANAGER_CONTROLLERS} the kube-controller-manager runs; all by
   * default. A test that counts the API server's watches runs only ClusterRole aggregation, whose
   * one watch (ClusterRoles) it can leave out of the count.
   */
  readonly controllerManagerControllers?: ReadonlyArray<(typeof CONTROLLER_MANAGER_CONTROLLERS)[number]>
  /** How long each process may take to become ready; 120 s by default. */
  readonly startTimeoutMs?: number
  /** Extra kube-apiserver flags, e.g. `--watch-cache=false`. */
  readonly apiserverArgs?: ReadonlyArray<string>
  readonly log?: (line: string) => void
}

export interface ControlPlaneHandle {
  readonly info: ControlPlaneInfo
  readonly clusters: ReadonlyArray<Cluster>
  /** Compacts the shared etcd at its current revision; returns the revision. */
  readonly compact: () => Promise<number>
}

export interface ControlPlane extends ControlPlaneHandle, AsyncDisposable {
  readonly dir: string
  /** Milliseconds from the call to every cluster being ready (binaries excluded). */
  readonly startupMs: number
  /** Kills every process and removes the directory. Safe to call more than once. */
  readonly stop: () => Promise<void>
  /**
   * Kills cluster `index`'s kube-apiserver at once (SIGKILL, as a crashed node would lose it);
   * its data stays in etcd. Returns the pid that was killed. `startApiserver` brings it back.
   */
  readonly killApiserver: (index: number) => Promise<number>
  /**
   * Starts cluster `index`'s kube-apiserver again after `killApiserver`, with the same flags: the
   * same port, certificates (its `--cert-dir` keeps the serving certificate, so the kubeconfigs'
   * CA still verifies), tokens and etcd prefix. Returns once `/readyz` answers: the new pid and
   * the milliseconds it took.
   */
  readonly startApiserver: (index: number) => Promise<{ readonly pid: number; readonly ms: number }>
  /** `killApiserver` then `startApiserver`. */
  readonly restartApiserver: (index: number) => Promise<{ readonly pid: number; readonly ms: number }>
}

/** Handles over a control plane started elsewhere (another process, a vitest global setup). */
export const attachControlPlane = (info: ControlPlaneInfo): ControlPlaneHandle => ({
  info,
  clusters: info.clusters.map((c) => new Cluster(c)),
  compact: () => compactEtcd(info.etcd.url),
})

export const readControlPlaneInfo = async (dir: string): Promise<ControlPlaneInfo> =>
  JSON.parse(await readFile(join(dir, "controlplane.json"), "utf8")) as ControlPlaneInfo

const MAX_BIND_ATTEMPTS = 5

/** The static user kube-controller-manager authenticates as; bootstrap RBAC binds its ClusterRole. */
export const CONTROLLER_MANAGER_USER = "system:kube-controller-manager"
/** The controllers testenv's kube-controller-manager runs (names as in Kubernetes 1.34's --controllers). */
export const CONTROLLER_MANAGER_CONTROLLERS = [
  "garbage-collector-controller",
  "namespace-controller",
  "clusterrole-aggregation-controller",
] as const

class StartError extends Error {
  override readonly name = "StartError"
  readonly retry: boolean
  constructor(message: string, retry: boolean) {
    super(message)
    this.retry = retry
  }
}

const token = (): string => randomBytes(24).toString("base64url")

export const startControlPlane = async (options: ControlPlaneOptions = {}): Promise<ControlPlane> => {
  const started = Date.now()
  const clusterCount = options.clusters ?? 1
  const userCount = options.users ?? 20
  const timeoutMs = options.startTimeoutMs ?? 120_000
  const log = options.log ?? (() => {})
  if (!Number.isInteger(clusterCount) || clusterCount < 1)
    throw new Error(`clusters must be ≥ 1, got ${clusterCount}`)
  const withControllerManager = options.controllerManager ?? true
  const assets = options.assets ?? (await ensureAssets({ controllerManager: withControllerManager }))
  const kubeControllerManager = withControllerManager ? assets.kubeControllerManager : undefined
  if (withControllerManager && kubeControllerManager === undefined)
    throw new Error(
      "assets.kubeControllerManager is missing: give the kube-controller-manager binary, or controllerManager: false",
    )
  const readyFrom = Date.now()

  let dir: string
  if (options.dir === undefined) {
    dir = await mkdtemp(join(tmpdir(), "krtt-testenv-"))
  } else {
    dir = options.dir
    await mkdir(dir, { recursive: true })
    if ((await readdir(dir)).length > 0)
      throw new Error(`${dir} is not empty: a control plane needs a directory of its own`)
  }

  const processes: Array<Managed> = []
  const writePids = (): Promise<void> =>
    writeFile(join(dir, "pids.json"), JSON.stringify(processes.map((p) => p.pid)))
  const unregister = onEmergency(() =>
    killAndRemoveSync(
      processes.map((p) => p.pid),
      dir,
    ),
  )
  const reaper = startReaper(dir)
  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      // Killed, not terminated: the data dies with the directory, and a graceful apiserver
      // shutdown costs seconds that prove nothing here.
      await Promise.all(processes.map((p) => stopProcess(p)))
      killAndRemoveSync(
        processes.map((p) => p.pid),
        dir,
      )
      unregister()
      if (reaper.pid !== undefined) {
        try {
          process.kill(reaper.pid, "SIGKILL")
        } catch {
          // gone already
        }
      }
    })()
    return stopping
  }

  /** Starts a process and waits until `ready` says so; retries with new ports on bind failures. */
  const startReady = async (
    name: string,
    logPath: string,
    portCount: number,
    command: string,
    args: (ports: ReadonlyArray<number>) => ReadonlyArray<string>,
    ready: (ports: ReadonlyArray<number>) => Promise<boolean>,
  ): Promise<ReadonlyArray<number>> => {
    for (let attempt = 1; ; attempt++) {
      const ports = await freePorts(portCount)
      const p = await startProcess(name, command, args(ports), { cwd: dir, logPath })
      processes.push(p)
      await writePids()
      log(`started ${name} (pid ${p.pid}) on port ${ports.join(", ")}`)
      const deadline = Date.now() + timeoutMs
      try {
        for (;;) {
          if (p.exit() !== undefined) {
            const text = tail(logPath, 30)
            throw new StartError(
              `${name} exited (${JSON.stringify(p.exit())}) before it was ready; ${logPath}:\n${text}`,
              addressInUse(text),
            )
          }
          if (await ready(ports).catch(() => false)) return ports
          if (Date.now() > deadline) {
            throw new StartError(
              `${name} was not ready within ${timeoutMs} ms; ${logPath}:\n${tail(logPath, 30)}`,
              false,
            )
          }
          await sleep(200)
        }
      } catch (e) {
        await stopProcess(p)
        if (e instanceof StartError && e.retry && attempt < MAX_BIND_ATTEMPTS) {
          log(`${name}: port taken, retrying with other ports`)
          continue
        }
        throw e
      }
    }
  }

  try {
    // Service-account signing key, shared by every apiserver.
    const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
    await writeFile(join(dir, "sa.key"), privateKey.export({ type: "pkcs1", format: "pem" }), { mode: 0o600 })
    await writeFile(join(dir, "sa.pub"), publicKey.export({ type: "spki", format: "pem" }))

    const [etcdPort] = await startReady(
      "etcd",
      join(dir, "etcd.log"),
      2,
      assets.etcd,
      ([client, peer]) => [
        "--name=krtt-testenv",
        `--data-dir=${join(dir, "etcd")}`,
        `--listen-client-urls=http://127.0.0.1:${client}`,
        `--advertise-client-urls=http://127.0.0.1:${client}`,
        `--listen-peer-urls=http://127.0.0.1:${peer}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
        `--initial-cluster=krtt-testenv=http://127.0.0.1:${peer}`,
        "--unsafe-no-fsync",
        "--log-level=warn",
      ],
      async ([client]) => {
        const response = await fetch(`http://127.0.0.1:${client}/health`)
        return response.ok && ((await response.json()) as { health?: string }).health === "true"
      },
    )
    const etcdUrl = `http://127.0.0.1:${etcdPort}`
    let kubernetesVersion = "unknown"
    /** How to start each cluster's kube-apiserver again on its port (killApiserver, startApiserver). */
    const apiservers = new Map<
      number,
      {
        readonly name: string
        readonly logPath: string
        readonly args: ReadonlyArray<string>
        readonly ready: () => Promise<boolean>
      }
    >()

    const startCluster = async (index: number): Promise<ClusterInfo> => {
      const name = `cluster-${index}`
      const clusterDir = join(dir, name)
      await mkdir(join(clusterDir, "certs"), { recursive: true })
      const admin: StaticUser = { name: "admin", token: token(), groups: ["system:masters"] }
      const noAccess: StaticUser = { name: "noaccess", token: token(), groups: [] }
      const pool = Array.from(
        { length: userCount },
        (_, i): StaticUser => ({ name: `user-${i}`, token: token(), groups: [] }),
      )
      // The bootstrap RBAC policy grants this user what kube-controller-manager needs, including
      // creating the service accounts and tokens its controllers then run as.
      const controllerManagerUser: StaticUser = { name: CONTROLLER_MANAGER_USER, token: token(), groups: [] }
      const tokenFile = join(clusterDir, "tokens.csv")
      await writeFile(tokenFile, renderTokenFile([admin, noAccess, controllerManagerUser, ...pool]), {
        mode: 0o600,
      })
      const etcdPrefix = `/krtt/${name}`
      const certDir = join(clusterDir, "certs")
      const apiserverArgs = (p: number | undefined) => [
        `--etcd-servers=${etcdUrl}`,
        `--etcd-prefix=${etcdPrefix}`,
        `--cert-dir=${certDir}`,
        `--secure-port=${p}`,
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        "--authorization-mode=RBAC",
        `--token-auth-file=${tokenFile}`,
        "--service-cluster-ip-range=10.0.0.0/24",
        "--allow-privileged=true",
        "--disable-admission-plugins=ServiceAccount",
        `--service-account-issuer=https://127.0.0.1:${p}/`,
        `--service-account-key-file=${join(dir, "sa.pub")}`,
        `--service-account-signing-key-file=${join(dir, "sa.key")}`,
        ...(options.apiserverArgs ?? []),
      ]
      const apiserverReady = async (p: number | undefined) => {
        // The serving certificate is self-signed and written at start; until then, no CA to check.
        const endpoint = { server: `https://127.0.0.1:${p}`, token: admin.token }
        if ((await kubeRequest(endpoint, "GET", "/readyz", { timeoutMs: 5_000 })).status !== 200) return false
        // Ready also means the bootstrap controller has created the default namespace.
        return (
          (await kubeRequest(endpoint, "GET", "/api/v1/namespaces/default", { timeoutMs: 5_000 })).status ===
          200
        )
      }
      const [port] = await startReady(
        `kube-apiserver ${name}`,
        join(clusterDir, "kube-apiserver.log"),
        1,
        assets.kubeApiserver,
        ([p]) => apiserverArgs(p),
        ([p]) => apiserverReady(p),
      )
      apiservers.set(index, {
        name: `kube-apiserver ${name}`,
        logPath: join(clusterDir, "kube-apiserver.log"),
        args: apiserverArgs(port),
        ready: () => apiserverReady(port),
      })
      const server = `https://127.0.0.1:${port}`
      const ca = await readFile(join(certDir, "apiserver.crt"), "utf8")
      // The certificate must verify for the kubeconfigs to work: check it once.
      const check = await kubeRequest({ server, ca, token: admin.token }, "GET", "/version")
      if (check.status !== 200)
        throw new Error(`${name}: /version with the serving certificate gave ${check.status}`)
      kubernetesVersion = (check.body as { gitVersion?: string }).gitVersion ?? "unknown"
      if (kubeControllerManager !== undefined) {
        await startControllerManager(
          name,
          clusterDir,
          kubeControllerManager,
          renderKubeconfig({
            cluster: name,
            server,
            ca,
            user: controllerManagerUser.name,
            token: controllerManagerUser.token,
          }),
        )
      }
      const credentials = async (user: StaticUser, file: string): Promise<Credentials> => {
        const kubeconfig = renderKubeconfig({ cluster: name, server, ca, user: user.name, token: user.token })
        const kubeconfigPath = join(clusterDir, file)
        await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 })
        return { user: user.name, token: user.token, kubeconfig, kubeconfigPath }
      }
      return {
        index,
        name,
        server,
        ca,
        etcdPrefix,
        dir: clusterDir,
        admin: await credentials(admin, "admin.kubeconfig"),
        noAccess: await credentials(noAccess, "noaccess.kubeconfig"),
        pool: pool.map((u) => ({ user: u.name, token: u.token })),
      }
    }

    /**
     * kube-controller-manager for one cluster, with only the controllers tests rely on, each
     * running as its own service account (`--use-service-account-credentials`, as kubeadm does):
     * the tokens come from the apiserver's TokenRequest, signed with the control plane's
     * service-account key, and the bootstrap RBAC roles (system:controller:*) grant what each
     * controller does. Ready when its /healthz answers.
     */
    const startControllerManager = async (
      name: string,
      clusterDir: string,
      binary: string,
      kubeconfig: string,
    ): Promise<void> => {
      const kubeconfigPath = join(clusterDir, "controller-manager.kubeconfig")
      await writeFile(kubeconfigPath, kubeconfig, { mode: 0o600 })
      const certDir = join(clusterDir, "controller-manager-certs")
      await mkdir(certDir, { recursive: true })
      await startReady(
        `kube-controller-manager ${name}`,
        join(clusterDir, "kube-controller-manager.log"),
        1,
        binary,
        ([p]) => [
          `--kubeconfig=${kubeconfigPath}`,
          `--authentication-kubeconfig=${kubeconfigPath}`,
          `--authorization-kubeconfig=${kubeconfigPath}`,
          `--controllers=${(options.controllerManagerControllers ?? CONTROLLER_MANAGER_CONTROLLERS).join(",")}`,
          "--use-service-account-credentials=true",
          `--service-account-private-key-file=${join(dir, "sa.key")}`,
          "--leader-elect=false",
          `--secure-port=${p}`,
          "--bind-address=127.0.0.1",
          `--cert-dir=${certDir}`,
          `--cluster-name=${name}`,
        ],
        async ([p]) =>
          (await kubeRequest({ server: `https://127.0.0.1:${p}` }, "GET", "/healthz", { timeoutMs: 5_000 }))
            .status === 200,
      )
    }

    const clusters = await Promise.all(Array.from({ length: clusterCount }, (_, i) => startCluster(i)))
    const info: ControlPlaneInfo = {
      dir,
      kubernetesVersion,
      controllerManager: kubeControllerManager !== undefined,
      etcd: { url: etcdUrl },
      clusters,
    }
    await writeFile(join(dir, "controlplane.json"), JSON.stringify(info, null, 2), { mode: 0o600 })
    const startupMs = Date.now() - readyFrom
    log(
      `${clusterCount} cluster(s) ready in ${(startupMs / 1000).toFixed(1)} s (${Date.now() - started} ms with binaries)`,
    )
    const apiserverOf = (index: number) => {
      const a = apiservers.get(index)
      if (a === undefined) throw new Error(`no cluster ${index}: the control plane has ${clusterCount}`)
      return a
    }
    const killApiserver = async (index: number): Promise<number> => {
      const a = apiserverOf(index)
      const running = processes.findLast((p) => p.name === a.name && p.exit() === undefined)
      if (running === undefined) throw new Error(`${a.name} is not running`)
      await stopProcess(running)
      return running.pid
    }
    const startApiserver = async (index: number): Promise<{ readonly pid: number; readonly ms: number }> => {
      const a = apiserverOf(index)
      if (processes.some((p) => p.name === a.name && p.exit() === undefined))
        throw new Error(`${a.name} is running already: kill it first`)
      const from = Date.now()
      const p = await startProcess(a.name, assets.kubeApiserver, a.args, { cwd: dir, logPath: a.logPath })
      processes.push(p)
      await writePids()
      log(`restarted ${a.name} (pid ${p.pid})`)
      const deadline = from + timeoutMs
      while (!(await a.ready().catch(() => false))) {
        if (p.exit() !== undefined)
          throw new Error(
            `${a.name} exited (${JSON.stringify(p.exit())}) before it was ready again; ${a.logPath}:\n${tail(a.logPath, 30)}`,
          )
        if (Date.now() > deadline)
          throw new Error(
            `${a.name} was not ready again within ${timeoutMs} ms; ${a.logPath}:\n${tail(a.logPath, 30)}`,
          )
        await sleep(100)
      }
      return { pid: p.pid, ms: Date.now() - from }
    }
    return {
      ...attachControlPlane(info),
      dir,
      startupMs,
      stop,
      killApiserver,
      startApiserver,
      restartApiserver: async (index) => {
        await killApiserver(index)
        return startApiserver(index)
      },
      [Symbol.asyncDispose]: stop,
    }
  } catch (e) {
    await stop()
    throw e
  }
}
