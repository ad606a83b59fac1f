// krtt run on a management cluster that holds objects of Cluster API kinds krtt does not
// reconcile: one warning at start, with kinds and counts, read as the manager's restricted
// identity (config/rbac/role.yaml must let it list them); kinds without objects are not named.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Cluster, type ControlPlane, startControlPlane } from "../../testenv/index.ts"
import {
  apply,
  create,
  createNamespace,
  installManagement,
  type KubeObject,
  managerIdentity,
  type OperatorProcess,
  startOperator,
  waitFor,
  waitForCrd,
} from "../fixtures/index.ts"

let dir: string
let controlPlane: ControlPlane
let mgmt: Cluster
let op: OperatorProcess

/** A CRD of group cluster.x-k8s.io that keeps any field: only its kind matters here. */
const crd = (kind: string, plural: string): KubeObject => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${plural}.cluster.x-k8s.io` },
  spec: {
    group: "cluster.x-k8s.io",
    scope: "Namespaced",
    names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
    versions: [
      {
        name: "v1beta2",
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
      },
    ],
  },
})

const WARNING = /^krtt reconciles only Clusters: found /

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "krtt-e2e-unreconciled-"))
  controlPlane = await startControlPlane({ clusters: 1 })
  mgmt = controlPlane.clusters[0] as Cluster
  await installManagement(mgmt)
  for (const [kind, plural] of [
    ["Machine", "machines"],
    ["MachineSet", "machinesets"],
  ] as const) {
    await apply(mgmt, crd(kind, plural))
    await waitForCrd(mgmt, `${plural}.cluster.x-k8s.io`)
  }
  const ns = await createNamespace(mgmt, "e2e-unreconciled")
  for (const name of ["m-0", "m-1"]) {
    await create(mgmt, `/apis/cluster.x-k8s.io/v1beta2/namespaces/${ns}/machines`, {
      apiVersion: "cluster.x-k8s.io/v1beta2",
      kind: "Machine",
      metadata: { name, namespace: ns },
      spec: { clusterName: "elsewhere" },
    })
  }
  const identity = await managerIdentity(mgmt, dir)
  op = await startOperator({ kubeconfigPath: identity.kubeconfigPath, dir })
}, 300_000)

afterAll(async () => {
  await op?.kill()
  await controlPlane?.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

describe("krtt run beside objects of kinds it does not reconcile", () => {
  it("warns once, naming the kinds with objects and their counts", async () => {
    const warning = await waitFor(
      "the warning about unreconciled kinds in the log",
      () => op.logs().find((l) => WARNING.test(String(l.msg))),
      { context: () => op.tail(30) },
    )
    expect(warning.v).toBe(0)
    expect(warning.msg).toBe(
      "krtt reconciles only Clusters: found 2 Machines that it does not reconcile; keep upstream's manager for them (docs/operator.md#scope)",
    )
    expect(warning).toMatchObject({ unreconciled: "Machine=2", uncounted: "" })
    // The manager runs on: the Cluster controller starts, and the warning is not repeated.
    await waitFor("the manager started", () =>
      op.logs().some((l) => l.msg === "manager started") ? true : undefined,
    )
    expect(op.logs().filter((l) => WARNING.test(String(l.msg)))).toHaveLength(1)
  }, 120_000)
})
