// `krtt run`'s logs as Cluster API's log pipelines read them, from real runs on the test control
// plane: `--logging-format=json` writes component-base's zap JSON (ts, msg, v, the controller's
// keys, the object under its kind's name, err on errors), `--logging-format=text` (the default)
// klog's text format; every line of both parses.
import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Cluster, type ControlPlane, startControlPlane } from "../../testenv/index.ts"
import {
  createCluster,
  createNamespace,
  endpointOf,
  installManagement,
  managerIdentity,
  type OperatorProcess,
  startOperator,
  waitFor,
} from "../fixtures/index.ts"

let dir: string
let controlPlane: ControlPlane
let mgmt: Cluster
let workload: Cluster
let kubeconfigPath: string

/** klog's header: severity, MMDD, time with microseconds, process id, source, `] `. */
const KLOG_HEADER = /^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ [^ \]]+:\d+\] /

/** Runs the operator in `format` until a reconcile of `name` is logged; returns its log's lines. */
const runUntilReconciled = async (
  format: "json" | "text",
  ns: string,
  done: (lines: ReadonlyArray<string>) => boolean,
): Promise<ReadonlyArray<string>> => {
  let op: OperatorProcess | undefined
  try {
    op = await startOperator({ kubeconfigPath, dir, loggingFormat: format, args: ["-v=4"] })
    await createCluster(mgmt, {
      namespace: ns,
      name: "c1",
      kubeconfig: workload.admin.kubeconfig,
      endpoint: endpointOf(workload.server),
    })
    const path = op.logPath
    const lines = () =>
      readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l !== "")
    await waitFor(`a reconcile of ${ns}/c1 in the ${format} log`, () => (done(lines()) ? true : undefined), {
      timeoutMs: 60_000,
      context: () => op?.tail(20) ?? "",
    })
    await op.terminate()
    return lines()
  } finally {
    await op?.kill()
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "krtt-e2e-logging-"))
  controlPlane = await startControlPlane({ clusters: 2 })
  ;[mgmt, workload] = controlPlane.clusters as [Cluster, Cluster]
  await installManagement(mgmt)
  kubeconfigPath = (await managerIdentity(mgmt, dir)).kubeconfigPath
}, 300_000)

afterAll(async () => {
  await controlPlane?.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

describe("krtt run's log formats", () => {
  it("json: every line is one object in zap's shape, a reconcile with controller-runtime's keys", async () => {
    const ns = await createNamespace(mgmt, "e2e-logging-json")
    const isReconcile = (e: Record<string, unknown>) =>
      e.msg === "Reconcile done" && e.controller === "cluster" && e.namespace === ns
    const lines = await runUntilReconciled("json", ns, (ls) =>
      ls.some((l) => l.startsWith("{") && isReconcile(JSON.parse(l))),
    )
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    for (const e of entries) {
      expect(typeof e.ts, JSON.stringify(e)).toBe("number")
      expect(typeof e.msg, JSON.stringify(e)).toBe("string")
      expect(e.v === undefined ? "err" in e : typeof e.v === "number", JSON.stringify(e)).toBe(true)
      expect(e).not.toHaveProperty("message")
      expect(e).not.toHaveProperty("annotations")
    }
    const reconcile = entries.find(isReconcile)
    expect(reconcile).toMatchObject({
      v: 4,
      controller: "cluster",
      controllerGroup: "cluster.x-k8s.io",
      controllerKind: "Cluster",
      Cluster: { name: "c1", namespace: ns },
      namespace: ns,
      name: "c1",
    })
    expect(String(reconcile?.reconcileID)).not.toBe("")
  }, 180_000)

  it("text: every entry has klog's header; a reconcile names the Cluster as namespace/name", async () => {
    const ns = await createNamespace(mgmt, "e2e-logging-text")
    const reconcile = new RegExp(
      `^I.*\\] "Reconcile done" controller="cluster" controllerGroup="cluster.x-k8s.io" controllerKind="Cluster" Cluster="${ns}/c1" .*reconcileID="`,
    )
    const lines = await runUntilReconciled("text", ns, (ls) => ls.some((l) => reconcile.test(l)))
    // A multi-line value continues on lines that start with a tab, and ends with " >".
    const entries = lines.filter((l) => !l.startsWith("\t") && l !== " >")
    for (const l of entries) expect(l).toMatch(KLOG_HEADER)
    expect(entries.some((l) => reconcile.test(l))).toBe(true)
  }, 180_000)
})
