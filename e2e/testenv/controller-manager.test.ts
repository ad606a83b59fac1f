// testenv's kube-controller-manager: owner references cascade, deleted namespaces go away and
// aggregated ClusterRoles are filled, as on a real cluster; and a control plane
// started without it has none of that.
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Cluster } from "../../testenv/controlplane.ts"
import { type ControlPlane, startControlPlane } from "../../testenv/index.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"

const shared = sharedControlPlane()
const suffix = (): string => randomBytes(4).toString("hex")
const RBAC = "/apis/rbac.authorization.k8s.io/v1/clusterroles"

/** Polls `probe` until it returns a value, failing after `timeoutMs`. */
const eventually = async <A>(
  what: string,
  probe: () => Promise<A | undefined>,
  timeoutMs = 60_000,
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

const expectCreated = async (
  c: Cluster,
  path: string,
  body: unknown,
): Promise<{ metadata: { uid: string } }> => {
  const r = await c.request("POST", path, { body })
  expect(r.status, r.text).toBe(201)
  return r.body as { metadata: { uid: string } }
}

const gone = (c: Cluster, path: string) => async (): Promise<true | undefined> =>
  (await c.request("GET", path)).status === 404 ? true : undefined

describe("the shared control plane's kube-controller-manager", () => {
  const cluster = (): Cluster => {
    const c = shared.clusters[0]
    if (c === undefined) throw new Error("no cluster")
    return c
  }

  it("is on", () => {
    expect(shared.info.controllerManager).toBe(true)
  })

  it("garbage-collects an object whose owner was deleted (background propagation)", async () => {
    const c = cluster()
    const ns = `gc-${suffix()}`
    await expectCreated(c, "/api/v1/namespaces", { metadata: { name: ns } })
    const cms = `/api/v1/namespaces/${ns}/configmaps`
    const owner = await expectCreated(c, cms, { metadata: { name: "owner" } })
    await expectCreated(c, cms, {
      metadata: {
        name: "dependent",
        ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid }],
      },
    })
    expect((await c.request("DELETE", `${cms}/owner`)).status).toBe(200)
    await eventually("the dependent to be garbage-collected", gone(c, `${cms}/dependent`))
  })

  it("holds a dependent with a finalizer in deletion until the finalizer is removed", async () => {
    const c = cluster()
    const ns = `gc-${suffix()}`
    await expectCreated(c, "/api/v1/namespaces", { metadata: { name: ns } })
    const cms = `/api/v1/namespaces/${ns}/configmaps`
    const owner = await expectCreated(c, cms, { metadata: { name: "owner" } })
    await expectCreated(c, cms, {
      metadata: {
        name: "dependent",
        finalizers: ["krtt.dev/test"],
        ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata.uid }],
      },
    })
    await c.request("DELETE", `${cms}/owner`)
    await eventually("the dependent to get a deletion timestamp", async () => {
      const r = await c.request("GET", `${cms}/dependent`)
      return (r.body as { metadata?: { deletionTimestamp?: string } }).metadata?.deletionTimestamp
    })
    const patched = await c.request("PATCH", `${cms}/dependent`, {
      body: { metadata: { finalizers: null } },
      headers: { "content-type": "application/merge-patch+json" },
    })
    expect(patched.status, patched.text).toBe(200)
    await eventually("the dependent to be gone", gone(c, `${cms}/dependent`))
  })

  it("removes a deleted namespace and what it held", async () => {
    const c = cluster()
    const ns = `ns-${suffix()}`
    await expectCreated(c, "/api/v1/namespaces", { metadata: { name: ns } })
    await expectCreated(c, `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: "inside" } })
    expect((await c.request("DELETE", `/api/v1/namespaces/${ns}`)).status).toBe(200)
    await eventually("the namespace to be finalized", gone(c, `/api/v1/namespaces/${ns}`))
  })

  it("aggregates ClusterRoles by matchLabels and matchExpressions, and follows a new labelled role", async () => {
    const c = cluster()
    const s = suffix()
    const label = `krtt.dev/aggregate-${s}`
    await expectCreated(c, RBAC, {
      metadata: { name: `agg-${s}` },
      aggregationRule: {
        clusterRoleSelectors: [
          { matchLabels: { [label]: "a" } },
          { matchExpressions: [{ key: label, operator: "In", values: ["b"] }] },
        ],
      },
    })
    const rule = (resource: string) => ({ apiGroups: [""], resources: [resource], verbs: ["get"] })
    await expectCreated(c, RBAC, {
      metadata: { name: `part-a-${s}`, labels: { [label]: "a" } },
      rules: [rule("pods")],
    })
    await expectCreated(c, RBAC, {
      metadata: { name: `part-b-${s}`, labels: { [label]: "b" } },
      rules: [rule("secrets")],
    })
    await expectCreated(c, RBAC, {
      metadata: { name: `part-c-${s}`, labels: { [label]: "c" } },
      rules: [rule("nodes")],
    })
    const resources = async (): Promise<ReadonlyArray<string>> => {
      const r = await c.request("GET", `${RBAC}/agg-${s}`)
      return ((r.body as { rules?: ReadonlyArray<{ resources: ReadonlyArray<string> }> }).rules ?? [])
        .flatMap((x) => x.resources)
        .sort()
    }
    expect(
      await eventually("both roles to be aggregated", async () => {
        const now = await resources()
        return now.length === 2 ? now : undefined
      }),
    ).toEqual(["pods", "secrets"])
    await expectCreated(c, RBAC, {
      metadata: { name: `part-d-${s}`, labels: { [label]: "a" } },
      rules: [rule("services")],
    })
    await eventually("the new role to be aggregated", async () =>
      (await resources()).includes("services") ? true : undefined,
    )
    expect(await resources()).not.toContain("nodes")
  })
})

describe("a control plane started without kube-controller-manager", () => {
  let controlPlane: ControlPlane
  beforeAll(async () => {
    controlPlane = await startControlPlane({ clusters: 1, users: 0, controllerManager: false })
  }, 180_000)
  afterAll(async () => {
    await controlPlane?.stop()
  })

  it("runs etcd and kube-apiserver only, and says so", () => {
    expect(controlPlane.info.controllerManager).toBe(false)
    const pids = JSON.parse(readFileSync(join(controlPlane.dir, "pids.json"), "utf8")) as Array<number>
    expect(pids).toHaveLength(2)
  })
})
