// `krtt run`'s three servers under hostile clients, in the operator's own process: 10,000
// (KRTT_FUZZ=1; 2,000 in npm test) generated malformed, truncated, oversized and wrongly addressed requests to each of the webhook
// server (HTTPS), the diagnostics server (HTTPS, /metrics behind TokenReview and
// SubjectAccessReview) and the health-probe server (HTTP), while slow clients drip headers.
// Every answer is a well-formed refusal (or a review), never a server error or a dropped
// connection; the process's memory stays bounded; and the operator goes on reconciling Clusters.
import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import http from "node:http"
import https from "node:https"
import { tmpdir } from "node:os"
import { join } from "node:path"
import tls from "node:tls"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Cluster, type ControlPlane, startControlPlane } from "../../testenv/index.ts"
import { freePorts } from "../../testenv/processes.ts"
import {
  CLUSTER_FINALIZER,
  clusterObject,
  create,
  createNamespace,
  getCluster,
  installManagement,
  managerIdentity,
  type OperatorProcess,
  paths,
  startOperator,
  waitFor,
  writeServingCertificate,
} from "../fixtures/index.ts"

/** 10,000 per server with KRTT_FUZZ=1 (docs/reliability-e2e.md has its figures); 2,000 in npm test. */
const REQUESTS = process.env.KRTT_FUZZ === "1" ? 10_000 : 2_000
const CONCURRENCY = 16
const SEED = 20261126
const WEBHOOK_PATHS = [
  "/convert",
  "/mutate-cluster-x-k8s-io-v1beta2-cluster",
  "/validate-cluster-x-k8s-io-v1beta2-cluster",
]

interface Probe {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

interface Answer {
  readonly status: number
  readonly text: string
}

let dir: string
let controlPlane: ControlPlane
let mgmt: Cluster
let op: OperatorProcess
let webhookPort: number
let namespace: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "krtt-e2e-fuzz-"))
  controlPlane = await startControlPlane({ clusters: 1 })
  mgmt = controlPlane.clusters[0] as Cluster
  await installManagement(mgmt)
  const identity = await managerIdentity(mgmt, dir)
  const certDir = join(dir, "serving-certs")
  await writeServingCertificate(certDir, ["127.0.0.1", "localhost"])
  webhookPort = (await freePorts(1))[0] as number
  namespace = await createNamespace(mgmt, "e2e-fuzz")
  op = await startOperator({
    kubeconfigPath: identity.kubeconfigPath,
    dir,
    secureDiagnostics: true,
    args: [`--webhook-port=${webhookPort}`, `--webhook-cert-dir=${certDir}`],
  })
}, 300_000)

afterAll(async () => {
  await op?.kill()
  await controlPlane?.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

/** The operator's resident memory, in MiB. */
const rssMiB = (): number => {
  const line = readFileSync(`/proc/${op.pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"))
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? Number.NaN) / 1024
}

const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY, rejectUnauthorized: false })
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY })

/** One request; a connection that ends without an answer rejects. */
const send = (base: string, p: Probe): Promise<Answer> =>
  new Promise((resolve, reject) => {
    // The path goes as it is (a URL would read "//x" as a host).
    const { protocol, hostname, port } = new URL(base)
    const secure = protocol === "https:"
    const request = (secure ? https.request : http.request)(
      {
        host: hostname,
        port,
        path: p.path,
        method: p.method,
        // Node's client frames a body of GET, DELETE or OPTIONS by closing the connection unless a
        // length is given: the length keeps every request well framed on a kept-alive connection.
        headers:
          p.body === "" ? p.headers : { ...p.headers, "content-length": String(Buffer.byteLength(p.body)) },
        agent: secure ? httpsAgent : httpAgent,
        timeout: 30_000,
      },
      (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (d: string) => {
          text += d
        })
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }))
        res.on("error", reject)
      },
    )
    request.on("error", reject)
    request.on("timeout", () => request.destroy(new Error(`${p.method} ${p.path}: no answer in 30 s`)))
    request.end(p.body)
  })

/** Sends every probe, CONCURRENCY at a time; the answers in order, a rejected one as status 0. */
const sendAll = async (base: string, probes: ReadonlyArray<Probe>): Promise<ReadonlyArray<Answer>> => {
  const answers: Array<Answer> = new Array(probes.length)
  let next = 0
  const worker = async () => {
    while (next < probes.length) {
      const i = next++
      answers[i] = await send(base, probes[i] as Probe).catch((e: Error) => ({ status: 0, text: e.message }))
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  return answers
}

const conversionReview = (objects: number, uid: string) =>
  JSON.stringify({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "ConversionReview",
    request: {
      uid,
      desiredAPIVersion: "cluster.x-k8s.io/v1beta1",
      objects: Array.from({ length: objects }, (_, i) => ({
        apiVersion: "cluster.x-k8s.io/v1beta2",
        kind: "Cluster",
        metadata: { name: `c${i}`, namespace: "n" },
      })),
    },
  })

const admissionReview = fc
  .record(
    {
      uid: fc.string(),
      kind: fc.record({ group: fc.string(), version: fc.string(), kind: fc.string() }),
      operation: fc.constantFrom("CREATE", "UPDATE", "DELETE", "CONNECT", "", "NONSENSE"),
      object: fc.oneof(
        fc.jsonValue(),
        fc.constant({ apiVersion: "cluster.x-k8s.io/v1beta2", kind: "Cluster" }),
      ),
    },
    { requiredKeys: [] },
  )
  .map((request) => JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request }))

const webhookBody = fc.oneof(
  fc.string(),
  fc.json(),
  admissionReview,
  fc.jsonValue().map((v) => JSON.stringify({ kind: "ConversionReview", request: v })),
  fc.integer({ min: 0, max: 3_000 }).map((n) => conversionReview(n, "fuzz")),
  fc.tuple(admissionReview, fc.nat()).map(([s, n]) => s.slice(0, n % (s.length + 1))),
  fc.constant(conversionReview(2, "")),
)

const junkHeaders = fc.dictionary(
  fc.stringMatching(/^x-[a-z]{1,12}$/),
  fc.string({ maxLength: 64 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
  { maxKeys: 4 },
)

const webhookProbes = fc.record({
  method: fc.constantFrom("POST", "POST", "POST", "GET", "PUT", "DELETE", "PATCH"),
  path: fc.oneof(
    { arbitrary: fc.constantFrom(...WEBHOOK_PATHS), weight: 4 },
    { arbitrary: fc.webPath(), weight: 1 },
  ),
  headers: fc
    .tuple(junkHeaders, fc.constantFrom("application/json", "text/plain", "application/yaml", ""))
    .map(([h, type]) => (type === "" ? h : { ...h, "content-type": type })),
  body: webhookBody,
})

const diagnosticsProbes = fc.record({
  method: fc.constantFrom("GET", "GET", "GET", "POST", "HEAD", "DELETE"),
  path: fc.oneof({ arbitrary: fc.constant("/metrics"), weight: 3 }, { arbitrary: fc.webPath(), weight: 1 }),
  headers: fc
    .tuple(
      junkHeaders,
      fc.oneof(
        fc.constant(undefined),
        fc.constant("Bearer "),
        fc.string({ maxLength: 200 }).map((s) => `Bearer ${s.replace(/[^\x21-\x7e]/g, "a")}`),
        fc.string({ maxLength: 40 }).map((s) => `Basic ${Buffer.from(s).toString("base64")}`),
      ),
    )
    .map(([h, authorization]) => (authorization === undefined ? h : { ...h, authorization })),
  body: fc.oneof(fc.constant(""), fc.string()),
})

const probeProbes = fc.record({
  method: fc.constantFrom("GET", "GET", "POST", "HEAD", "OPTIONS", "DELETE"),
  path: fc.oneof(
    { arbitrary: fc.constantFrom("/healthz", "/readyz", "/livez", "/metrics"), weight: 3 },
    { arbitrary: fc.webPath(), weight: 1 },
  ),
  headers: junkHeaders,
  body: fc.oneof(fc.constant(""), fc.string()),
})

/**
 * Requests a generator cannot make: a body over the 7 MiB limit, 2 MiB of headers. The server
 * refuses the headers with 431 and closes the connection while the client may still be writing
 * them, which the client can see as a reset instead: either is a refusal.
 */
const BIG_HEADER = "a".repeat(2 * 1024 * 1024)
const refusedHeaders = (p: Probe, a: Answer) =>
  p.headers["x-big"] === BIG_HEADER && (a.status === 431 || /ECONNRESET|EPIPE/.test(a.text))

const oversized = (path: string): ReadonlyArray<Probe> => [
  {
    method: "POST",
    path,
    headers: { "content-type": "application/json" },
    body: conversionReview(1, "big").padEnd(8 * 1024 * 1024, " "),
  },
  { method: "GET", path, headers: { "x-big": BIG_HEADER }, body: "" },
]

/** Slow clients, `count` per port: each sends a request line and then one header a second, never the end. */
const slowClients = (ports: ReadonlyArray<number>, count: number) => {
  let closed = 0
  const sockets = ports.flatMap((port) =>
    Array.from({ length: count }, () => {
      const socket = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false }, () => {
        socket.write("POST /convert HTTP/1.1\r\nHost: x\r\n")
      })
      const drip = setInterval(() => socket.writable && socket.write("X-Slow: 1\r\n"), 1_000)
      socket.on("close", () => {
        clearInterval(drip)
        closed++
      })
      socket.on("error", () => undefined)
      return socket
    }),
  )
  return {
    closed: () => closed,
    destroy: () => {
      for (const s of sockets) s.destroy()
    },
  }
}

const statusCounts = (answers: ReadonlyArray<Answer>): Record<number, number> => {
  const counts: Record<number, number> = {}
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1
  return counts
}

/** Sends the probes and prints one line of figures for docs/reliability-e2e.md. */
const fuzz = async (server: string, base: string, probes: ReadonlyArray<Probe>) => {
  const started = performance.now()
  const answers = await sendAll(base, probes)
  const seconds = (performance.now() - started) / 1000
  console.info(
    `fuzz ${server}: ${probes.length} requests in ${seconds.toFixed(1)} s, statuses ${JSON.stringify(statusCounts(answers))}, operator RSS ${rssMiB().toFixed(0)} MiB`,
  )
  return answers
}

const portOf = (url: string): number => Number(new URL(url).port)

describe(`krtt run's servers under ${REQUESTS} hostile requests each`, () => {
  const peak = { rss: 0 }
  let baseline = 0
  let slow: ReturnType<typeof slowClients> | undefined
  const sample = setInterval(() => {
    if (op !== undefined) peak.rss = Math.max(peak.rss, rssMiB())
  }, 250)
  afterAll(() => clearInterval(sample))

  it("starts ready, with a baseline memory", async () => {
    await waitFor("/readyz", async () => ((await op.probe("/readyz")).status === 200 ? true : undefined), {
      context: op.tail,
    })
    baseline = rssMiB()
    expect(baseline).toBeGreaterThan(0)
    // Slow clients on both HTTPS servers for the whole fuzz.
    slow = slowClients([webhookPort, portOf(op.metricsUrl)], 32)
  })

  it("the webhook server answers every one with a review or a refusal", async () => {
    const base = `https://127.0.0.1:${webhookPort}`
    const probes = [
      ...fc.sample(webhookProbes, { numRuns: REQUESTS - 6, seed: SEED }),
      ...WEBHOOK_PATHS.flatMap((p) => oversized(p)),
    ]
    const answers = await fuzz("webhooks", base, probes)
    const counts = statusCounts(answers)
    for (const [i, a] of answers.entries()) {
      const p = probes[i] as Probe
      if (refusedHeaders(p, a)) continue
      const what = `${p.method} ${p.path} ${p.body.slice(0, 80)} → ${a.status} ${a.text.slice(0, 120)}`
      expect([200, 400, 404, 405, 413, 415], what).toContain(a.status)
      if (a.status === 200 || (a.status === 400 && WEBHOOK_PATHS.includes(p.path)))
        expect(() => JSON.parse(a.text), what).not.toThrow()
    }
    expect(counts[200] ?? 0, JSON.stringify(counts)).toBeGreaterThan(100)
    expect(counts[400] ?? 0, JSON.stringify(counts)).toBeGreaterThan(100)
    const good = await send(base, {
      method: "POST",
      path: "/convert",
      headers: { "content-type": "application/json" },
      body: conversionReview(1, "after"),
    })
    expect(good.status).toBe(200)
    expect(JSON.parse(good.text).response.uid).toBe("after")
  }, 300_000)

  it("the diagnostics server refuses every unauthenticated one (401) or wrong one (404, 405), never a 200 or a 500", async () => {
    const base = op.metricsUrl.replace(/\/metrics$/, "")
    const probes = [
      ...fc.sample(diagnosticsProbes, { numRuns: REQUESTS - 2, seed: SEED + 1 }),
      ...oversized("/metrics"),
    ]
    const answers = await fuzz("diagnostics", base, probes)
    for (const [i, a] of answers.entries()) {
      const p = probes[i] as Probe
      if (refusedHeaders(p, a)) continue
      expect(
        [401, 404, 405, 413],
        `${p.method} ${p.path} ${JSON.stringify(p.headers).slice(0, 120)} → ${a.status} ${a.text.slice(0, 120)}`,
      ).toContain(a.status)
    }
    expect(statusCounts(answers)[401] ?? 0).toBeGreaterThan(REQUESTS / 4)
    expect((await op.scrape(mgmt.info.admin.token)).status).toBe(200)
  }, 300_000)

  it("the health-probe server answers every one, /healthz and /readyz with 200 throughout", async () => {
    const probes = [
      ...fc.sample(probeProbes, { numRuns: REQUESTS - 2, seed: SEED + 2 }),
      ...oversized("/healthz"),
    ]
    const answers = await fuzz("health probes", op.healthUrl, probes)
    for (const [i, a] of answers.entries()) {
      const p = probes[i] as Probe
      if (refusedHeaders(p, a)) continue
      const what = `${p.method} ${p.path} → ${a.status} ${a.text.slice(0, 120)}`
      if (p.method === "GET" && (p.path === "/healthz" || p.path === "/readyz"))
        expect(a.status, what).toBe(200)
      else expect([200, 404, 405, 413], what).toContain(a.status)
    }
  }, 300_000)

  it("cuts off the slow clients, keeps its memory bounded and goes on reconciling Clusters", async () => {
    // Within the 32 s header timeout (controller-runtime's) of their first byte.
    await waitFor("the slow clients cut off", () => (slow?.closed() === 64 ? true : undefined), {
      timeoutMs: 45_000,
    })
    slow?.destroy()
    console.info(`fuzz: operator RSS ${baseline.toFixed(0)} MiB before, ${peak.rss.toFixed(0)} MiB at most`)
    expect(peak.rss - baseline, `baseline ${baseline} MiB, peak ${peak.rss} MiB`).toBeLessThan(256)
    await create(mgmt, paths.cluster(namespace), clusterObject(namespace, "after-fuzz"))
    await waitFor(
      "the Cluster reconciled after the fuzz",
      async () => {
        const c = await getCluster(mgmt, namespace, "after-fuzz")
        return c?.metadata.finalizers?.includes(CLUSTER_FINALIZER) && c.status?.phase !== undefined
          ? c
          : undefined
      },
      { context: op.tail },
    )
    expect(op.exit()).toBeUndefined()
  }, 120_000)
})
