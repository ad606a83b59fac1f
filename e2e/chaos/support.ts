/**
 * What the chaos e2e tests share: a management control plane of their own (so that killing its
 * kube-apiserver or compacting its etcd touches no other test), the operator installed there with
 * the project's RBAC and test providers, requests that ride out an API server that is down, the
 * API server's count of open watches, and a scan of logs for credentials.
 *
 * @module
 */
import { copyFile, mkdtemp, rm } from "node:fs/promises"
import { Agent, request as httpsRequest } from "node:https"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  type Cluster,
  type ControlPlane,
  type ControlPlaneOptions,
  type KubeResponse,
  startControlPlane,
} from "../../testenv/index.ts"
import {
  clusterObject,
  controlPlaneObject,
  type Identity,
  infraClusterObject,
  installManagement,
  type KubeObject,
  kubeconfigSecret,
  managerIdentity,
  parseMetrics,
  paths,
  sleep,
} from "../fixtures/index.ts"

/**
 * The long runs' figures (docs/reliability-e2e.md) and the ones the fast runs in `npm test` use
 * instead. `KRTT_CHAOS_LONG=1` runs the long figures (several minutes per file).
 */
export const CHAOS_DEFAULTS = {
  /** kube-apiserver killed and restarted every 30 s. */
  restartEveryMs: 30_000,
  /** "for several minutes": restarts in a long run (30 s apart: 5 minutes). */
  restarts: 10,
  /** 50 Clusters created and deleted while the API server restarts. */
  clusters: 50,
  /** Fuzzed inputs through the API server. */
  fuzzInputs: 10_000,
} as const

/** What `npm test` runs: the same shapes, shorter (docs/reliability-e2e.md gives the figures). */
export const CHAOS_FAST = {
  ...CHAOS_DEFAULTS,
  restartEveryMs: 12_000,
  restarts: 5,
  fuzzInputs: 4_000,
} as const

export const chaosSettings = (): typeof CHAOS_DEFAULTS | typeof CHAOS_FAST =>
  process.env.KRTT_CHAOS_LONG === "1" ? CHAOS_DEFAULTS : CHAOS_FAST

/**
 * Keeps an operator's log past the test (its folder goes with the control plane): in the system's
 * temporary folder as `krtt-e2e-chaos-<name>.log`, for a failure to be looked into.
 */
export const keepLog = async (logPath: string | undefined, name: string): Promise<void> => {
  if (logPath !== undefined)
    await copyFile(logPath, join(tmpdir(), `krtt-e2e-chaos-${name}.log`)).catch(() => {})
}

export interface Management {
  readonly plane: ControlPlane
  readonly mgmt: Cluster
  readonly dir: string
  readonly identity: Identity
  readonly stop: () => Promise<void>
}

/**
 * A control plane of one cluster with what the operator needs installed (the repository's CRDs
 * and RBAC, the test providers) and the manager's restricted identity.
 */
export const startManagement = async (
  name: string,
  options: {
    readonly apiserverArgs?: ReadonlyArray<string>
    readonly controllerManagerControllers?: ControlPlaneOptions["controllerManagerControllers"]
  } = {},
): Promise<Management> => {
  const dir = await mkdtemp(join(tmpdir(), `krtt-e2e-chaos-${name}-`))
  const plane = await startControlPlane({
    clusters: 1,
    users: 2,
    ...(options.controllerManagerControllers === undefined
      ? {}
      : { controllerManagerControllers: options.controllerManagerControllers }),
    ...(options.apiserverArgs === undefined ? {} : { apiserverArgs: options.apiserverArgs }),
  })
  const mgmt = plane.clusters[0] as Cluster
  await installManagement(mgmt)
  const identity = await managerIdentity(mgmt, dir)
  return {
    plane,
    mgmt,
    dir,
    identity,
    stop: async () => {
      await plane.stop()
      await rm(dir, { recursive: true, force: true })
    },
  }
}

/** One keep-alive agent per API server: thousands of requests without a TLS handshake each. */
const agents = new Map<string, Agent>()

/**
 * A request as the admin over a kept-alive connection (testenv's `Cluster.request` opens a new
 * connection each time, which costs a TLS handshake per request: too slow for 10,000 inputs).
 */
const keptAliveRequest = (
  cluster: Cluster,
  method: string,
  path: string,
  body: unknown,
  contentType: string | undefined,
  fresh: boolean,
): Promise<KubeResponse> => {
  let agent = agents.get(cluster.server)
  if (agent === undefined) {
    agent = new Agent({ keepAlive: true, ca: cluster.info.ca })
    agents.set(cluster.server, agent)
  }
  const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body)
  const headers: Record<string, string> = {
    accept: "application/json",
    authorization: `Bearer ${cluster.admin.token}`,
  }
  if (payload !== undefined) {
    headers["content-type"] = contentType ?? "application/json"
    headers["content-length"] = String(Buffer.byteLength(payload))
  }
  return new Promise((resolve, reject) => {
    // A retry after a timeout goes over a connection of its own, in case a kept one is stuck.
    const via = fresh ? { agent: false as const, ca: cluster.info.ca } : { agent }
    const req = httpsRequest(new URL(path, cluster.server), { method, headers, ...via }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("error", reject)
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        let parsed: unknown
        try {
          parsed = JSON.parse(text)
        } catch {
          parsed = undefined
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed })
      })
    })
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path} timed out`)))
    req.on("error", reject)
    req.end(payload)
  })
}

/** Statuses that say "not now" rather than "no": the request is sent again. */
const TRANSIENT = new Set([0, 429, 500, 502, 503, 504])

/**
 * A NotFound Status naming the object of `path`: the object is not there. The API server also
 * answers 404 with a NotFound Status without a name ("the server could not find the requested
 * resource") for a kind it does not serve (yet), which says nothing about the object.
 */
const isObjectNotFound = (body: unknown, path: string): boolean => {
  const status = body as { kind?: string; reason?: string; details?: { name?: string } } | undefined
  const name = path.split("?")[0]?.split("/").at(-1)
  return status?.kind === "Status" && status.reason === "NotFound" && status.details?.name === name
}

/**
 * A request that rides out an API server that is down or starting: connection errors and
 * transient statuses are retried (every 250 ms, up to `timeoutMs`); any status in `ok` is
 * returned; any other status is an error naming the request.
 */
export const steady = async (
  cluster: Cluster,
  method: string,
  path: string,
  options: {
    readonly body?: unknown
    readonly ok: ReadonlyArray<number>
    readonly contentType?: string
    readonly timeoutMs?: number
  },
): Promise<KubeResponse> => {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000)
  let last = ""
  let timedOut = false
  for (;;) {
    try {
      const r = await keptAliveRequest(cluster, method, path, options.body, options.contentType, timedOut)
      // Right after a restart the API server may answer 404 for a kind it does not serve yet
      // (a CRD's handler comes up after /readyz): only a NotFound naming the object counts.
      if (r.status === 404 && !isObjectNotFound(r.body, path))
        last = `HTTP 404 without a NotFound Status (kind not served yet): ${r.text.slice(0, 100)}`
      else if (options.ok.includes(r.status)) return r
      else if (!TRANSIENT.has(r.status))
        throw new Error(`${method} ${path}: HTTP ${r.status}: ${r.text.slice(0, 500)}`)
      else last = `HTTP ${r.status}`
    } catch (e) {
      if (e instanceof Error && e.message.startsWith(`${method} ${path}: HTTP`)) throw e
      last = e instanceof Error ? e.message : String(e)
      timedOut ||= last.endsWith("timed out")
    }
    if (Date.now() > deadline) throw new Error(`${method} ${path}: no answer in time; last: ${last}`)
    await sleep(250)
  }
}

/** GET that rides out restarts; undefined on 404. */
export const steadyGet = async (cluster: Cluster, path: string): Promise<KubeObject | undefined> => {
  const r = await steady(cluster, "GET", path, { ok: [200, 404] })
  return r.status === 404 ? undefined : (r.body as KubeObject)
}

/** The items of a list, riding out restarts. */
export const steadyList = async (cluster: Cluster, path: string): Promise<ReadonlyArray<KubeObject>> =>
  ((await steady(cluster, "GET", path, { ok: [200] })).body as { items: ReadonlyArray<KubeObject> }).items

export const MERGE_PATCH = "application/merge-patch+json"

/** The providers' side: the E2EInfraCluster provisioned and the E2EControlPlane initialized. */
export const steadyProvision = async (mgmt: Cluster, ns: string, name: string): Promise<void> => {
  await steady(mgmt, "PATCH", paths.infra(ns, name, "status"), {
    body: { status: { initialization: { provisioned: true } } },
    contentType: MERGE_PATCH,
    ok: [200],
  })
  await steady(mgmt, "PATCH", paths.controlPlane(ns, name, "status"), {
    body: {
      status: { initialization: { controlPlaneInitialized: true }, replicas: 1, readyReplicas: 1 },
    },
    contentType: MERGE_PATCH,
    ok: [200],
  })
}

/**
 * A Cluster of the test providers (provisioned unless `provisioned` is false), created so that a
 * retry after an ambiguous failure (the API server killed mid-request) is harmless: 409
 * AlreadyExists counts as created.
 */
export const steadyCluster = async (
  mgmt: Cluster,
  ns: string,
  name: string,
  kubeconfig: string,
  endpoint: { readonly host: string; readonly port: number },
  options: { readonly provisioned?: boolean } = {},
): Promise<void> => {
  const created = [200, 201, 409]
  await steady(mgmt, "POST", paths.infra(ns), { body: infraClusterObject(ns, name, endpoint), ok: created })
  await steady(mgmt, "POST", paths.controlPlane(ns), {
    body: controlPlaneObject(ns, name, endpoint),
    ok: created,
  })
  if (options.provisioned ?? true) await steadyProvision(mgmt, ns, name)
  await steady(mgmt, "POST", paths.secret(ns), { body: kubeconfigSecret(ns, name, kubeconfig), ok: created })
  await steady(mgmt, "POST", paths.cluster(ns), {
    body: clusterObject(ns, name, { infrastructure: name, controlPlane: name }),
    ok: created,
  })
}

/**
 * The watches open on an API server right now, by `group/resource` (core group: `/resource`),
 * from its `apiserver_longrunning_requests{verb="WATCH"}` gauge. A restarted API server starts
 * from zero, so after a restart it counts exactly the watches its clients opened again.
 */
export const openWatches = async (cluster: Cluster): Promise<ReadonlyMap<string, number>> => {
  const r = await steady(cluster, "GET", "/metrics", { ok: [200], timeoutMs: 30_000 })
  const counts = new Map<string, number>()
  for (const s of parseMetrics(r.text)) {
    if (s.name !== "apiserver_longrunning_requests" || s.labels.verb !== "WATCH" || s.value === 0) continue
    const key = `${s.labels.group ?? ""}/${s.labels.resource ?? ""}`
    counts.set(key, (counts.get(key) ?? 0) + s.value)
  }
  return counts
}

/** The counts of `keys` (0 when absent), for comparing watch counts on the same resources. */
export const countsOf = (
  counts: ReadonlyMap<string, number>,
  keys: ReadonlyArray<string>,
): Readonly<Record<string, number>> => Object.fromEntries(keys.map((k) => [k, counts.get(k) ?? 0]))

/** The secrets among `secrets` that occur in `text` (each at least 8 characters long). */
export const leakedSecrets = (text: string, secrets: ReadonlyArray<string>): ReadonlyArray<string> =>
  secrets.filter((s) => s.length >= 8 && text.includes(s))

/** The message of one of the operator's JSON log lines (`msg`, zap's key). */
export const messageOf = (line: Record<string, unknown>): string => String(line.msg)

/** A condition of an object's `status.conditions`. */
export const conditionOf = (o: KubeObject | undefined, type: string) =>
  (
    o?.status?.conditions as
      | ReadonlyArray<{ type: string; status: string; reason?: string; message?: string }>
      | undefined
  )?.find((c) => c.type === type)

/** Runs `work` over `items` with at most `concurrency` at a time; returns the results in order. */
export const pool = async <A, B>(
  items: ReadonlyArray<A>,
  concurrency: number,
  work: (item: A, index: number) => Promise<B>,
): Promise<ReadonlyArray<B>> => {
  const results: Array<B> = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await work(items[i] as A, i)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
  return results
}

/** min / median / max of some figures, for the report. */
export const spread = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return {
    n: sorted.length,
    min: sorted[0] ?? Number.NaN,
    median: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  }
}

export interface HangingServer {
  /** `https://127.0.0.1:<port>`: what a kubeconfig points at. */
  readonly url: string
  /** Connections accepted so far. */
  readonly accepted: () => number
  /** Connections still open (the client has not closed them). */
  readonly open: () => number
  readonly close: () => Promise<void>
}

/**
 * A TCP server that accepts every connection and never sends a byte: a workload API server that
 * hangs on connect (the TLS handshake never completes).
 */
export const startHangingServer = async (): Promise<HangingServer> => {
  const sockets = new Set<net.Socket>()
  let accepted = 0
  const server = net.createServer((socket) => {
    accepted++
    sockets.add(socket)
    const drop = () => sockets.delete(socket)
    socket.on("close", drop).on("error", drop)
    // Read (and ignore) what the client sends: a socket never read never sees the client's FIN,
    // so it would look open after the client closed it.
    socket.resume()
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", resolve)
  })
  const { port } = server.address() as net.AddressInfo
  return {
    url: `https://127.0.0.1:${port}`,
    accepted: () => accepted,
    open: () => sockets.size,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}
