// The multi-cluster runtime as users run it, in processes of their own, on the run's shared
// control plane: `krtt clusters` prints reachable clusters at once and an unreachable one after
// it failed its probes; two replicas of examples/multicluster/uniform.ts started with the same
// --shard-lease-prefix split six clusters, and when one is killed (SIGKILL: no goodbye, its Lease
// just stops being renewed) the other takes its clusters over.
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import { afterAll, assert, describe, it } from "vitest"
import type { KubeClientShape } from "../../shell/kube/client.ts"
import { Resources } from "../../shell/kube/resource.ts"
import { ownerOf } from "../../shell/multicluster/rendezvous.ts"
import type { Cluster } from "../../testenv/index.ts"
import { freePorts, type Managed, startProcess, stopProcess } from "../../testenv/processes.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import { repoRoot } from "../fixtures/index.ts"
import { clientOf, createNamespace, suffix } from "../shell/support.ts"

const plane = sharedControlPlane()
const [hub, w1, w2] = plane.clusters as unknown as [Cluster, Cluster, Cluster]
const dir = mkdtempSync(join(tmpdir(), "krtt-e2e-mc-proc-"))
const started: Array<Managed> = []
afterAll(async () => {
  for (const p of started) await stopProcess(p)
})

const run = <A>(effect: Effect.Effect<A, unknown>) => Effect.runPromise(effect)
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64")
const secretOf = (ns: string, name: string, kubeconfig: string) => ({
  metadata: { namespace: ns, name, labels: { "sigs.k8s.io/multicluster-runtime-kubeconfig": "true" } },
  data: { kubeconfig: b64(kubeconfig) },
})
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const until = async (
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  detail = () => "",
) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await sleep(200)
  }
  assert.fail(`timed out after ${timeoutMs} ms: ${what}\n${detail()}`)
}
const env = () => {
  const e = { ...process.env }
  delete e.KUBECONFIG
  return e
}

/** Secrets naming clusters on the hub, in a namespace of our own. */
const fleet = async (prefix: string, entries: ReadonlyArray<readonly [string, string]>) => {
  const hubClient: KubeClientShape = await run(clientOf(hub))
  const ns = await run(createNamespace(hubClient, prefix))
  for (const [name, kubeconfig] of entries)
    await run(hubClient.create(Resources.secrets, secretOf(ns, name, kubeconfig)))
  return { hubClient, ns }
}

describe("multi-cluster programs on a real control plane", () => {
  it("krtt clusters prints the reachable clusters at once and the unreachable one after its failed probes", async () => {
    const unreachable = w1.admin.kubeconfig.replace(w1.server, "https://127.0.0.1:9")
    const { ns } = await fleet("mc-clusters", [
      ["east", w1.admin.kubeconfig],
      ["west", w2.admin.kubeconfig],
      ["gone", unreachable],
    ])
    const args = [
      "bin/krtt.js",
      "clusters",
      "--kubeconfig",
      hub.admin.kubeconfigPath,
      "--provider",
      "kubeconfig-secrets",
    ]
    const lines: Array<{ readonly at: number; readonly line: string }> = []
    const t0 = Date.now()
    const text = await new Promise<string>((resolve, reject) => {
      const child = execFile(
        process.execPath,
        [...args, "--provider-namespace", ns],
        { cwd: repoRoot, env: env(), timeout: 150_000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      )
      child.stdout?.on("data", (chunk: Buffer) => {
        for (const line of chunk.toString("utf8").split("\n"))
          if (line !== "") lines.push({ at: Date.now() - t0, line })
      })
    })
    const rows = text.trimEnd().split("\n")
    assert.match(rows[0] ?? "", /^NAME\s+ENGAGED\s+HEALTHY\s+REASON$/)
    const east = lines.find((l) => l.line.startsWith("east "))
    const gone = lines.find((l) => l.line.startsWith("gone "))
    assert.match(east?.line ?? "", /^east\s+true\s+true/)
    assert.match(lines.find((l) => l.line.startsWith("west "))?.line ?? "", /^west\s+true\s+true/)
    assert.match(gone?.line ?? "", /^gone\s+false\s+false\s+.*probe failed 5 times/)
    assert.isBelow(
      east?.at ?? Number.POSITIVE_INFINITY,
      gone?.at ?? 0,
      "the unreachable cluster delays no other line",
    )
    // --json: one document
    const json = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [...args, "--provider-namespace", ns, "--json", "--timeout", "5s"],
        { cwd: repoRoot, env: env(), timeout: 60_000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      ),
    )
    const doc = JSON.parse(json) as {
      clusters: Array<{ name: string; engaged: boolean; healthy: boolean; reason: string }>
    }
    assert.deepStrictEqual(
      doc.clusters.map((c) => [c.name, c.engaged]),
      [
        ["east", true],
        ["gone", false],
        ["west", true],
      ],
    )
    // a bad flag: exit 2 naming it
    const bad = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [
          "bin/krtt.js",
          "clusters",
          "--kubeconfig",
          hub.admin.kubeconfigPath,
          "--provider",
          "kubeconfig-secret",
        ],
        { cwd: repoRoot, env: env() },
        (error, _stdout, stderr) => resolve({ code: (error as { code?: number } | null)?.code ?? 0, stderr }),
      ),
    )
    assert.strictEqual(bad.code, 2)
    assert.include(bad.stderr, "--provider")
  }, 180_000)

  it("two sharded replicas of the uniform example split six clusters; a killed replica's clusters move to the other", async () => {
    const names = ["s1", "s2", "s3", "s4", "s5", "s6"]
    const { ns } = await fleet(
      "mc-procs",
      names.map((n, i) => [n, (i % 2 === 0 ? w1 : w2).admin.kubeconfig] as const),
    )
    const prefix = `stamp-${suffix()}`
    const [metricsPort] = await freePorts(1)
    const replica = async (identity: string, extra: ReadonlyArray<string> = []) => {
      const logPath = join(dir, `${identity}.log`)
      const p = await startProcess(
        identity,
        process.execPath,
        [
          "examples/multicluster/uniform.ts",
          "--kubeconfig",
          hub.admin.kubeconfigPath,
          "--provider",
          "kubeconfig-secrets",
          "--provider-namespace",
          ns,
          "--shard-lease-prefix",
          prefix,
          "--shard-lease-namespace",
          ns,
          "--shard-identity",
          identity,
          ...extra,
        ],
        { cwd: repoRoot, logPath, env: env() },
      )
      started.push(p)
      /** The clusters this replica holds now, from its log ("took cluster" / "released cluster"). */
      const held = () => {
        const set = new Set<string>()
        for (const line of readFileSync(logPath, "utf8").split("\n")) {
          if (!line.startsWith("{")) continue
          const entry = JSON.parse(line) as { msg?: unknown; cluster?: unknown }
          const message = String(entry.msg)
          const cluster = String(entry.cluster ?? "")
          if (message.includes("took cluster")) set.add(cluster)
          if (message.includes("released cluster")) set.delete(cluster)
        }
        return [...set].sort()
      }
      return { p, held, log: () => readFileSync(logPath, "utf8").split("\n").slice(-30).join("\n") }
    }
    const a = await replica("replica-a")
    const b = await replica("replica-b", ["--metrics-bind-address", `127.0.0.1:${metricsPort}`])
    const expectedA = names.filter((n) => ownerOf(n, ["replica-a", "replica-b"]) === "replica-a")
    await until(
      "the six clusters split by rendezvous hashing",
      () =>
        a.held().join() === expectedA.join() &&
        b.held().join() === names.filter((n) => !expectedA.includes(n)).join(),
      90_000,
      () => `a: ${a.held()} b: ${b.held()}\n${a.log()}\n${b.log()}`,
    )
    // SIGKILL a: its Lease stops being renewed; b takes a's clusters after the lease duration (15 s).
    await stopProcess(a.p)
    await until("b holds all six", () => b.held().join() === names.join(), 60_000, b.log)
    // and b really works them: a ConfigMap in one of a's former clusters gets stamped
    const former = expectedA[0]
    if (former !== undefined) {
      const target = names.indexOf(former) % 2 === 0 ? w1 : w2
      const client = await run(clientOf(target))
      await run(client.create(Resources.namespaces, { metadata: { name: ns } })).catch(() => undefined)
      const cmName = `after-kill-${suffix()}`
      await run(
        client.create(Resources.configMaps, {
          metadata: { namespace: ns, name: cmName, labels: { "krtt.dev/stamp": "true" } },
          data: {},
        }),
      )
      await until(
        "stamped after the takeover",
        async () => {
          const o = await run(client.get(Resources.configMaps, { namespace: ns, name: cmName }))
          return o.metadata.annotations?.["krtt.dev/stamped-by"] !== undefined
        },
        30_000,
        b.log,
      )
    }
    // b's /metrics has the per-cluster series of the stamp controller and its queue
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()
    const series = metrics.split("\n").filter((l) => l.includes(`cluster="${expectedA[0]}"`))
    assert.isTrue(
      series.some((l) => l.startsWith("workqueue_adds_total{") && l.includes('name="stamp"')),
      metrics.slice(0, 2_000),
    )
    assert.isTrue(
      series.some(
        (l) => l.startsWith("controller_runtime_reconcile_total{") && l.includes('controller="stamp"'),
      ),
      metrics.slice(0, 2_000),
    )
  }, 240_000)
})
