// The shared control plane of the run (testenv/vitest-global-setup.ts) behaves like a real
// Kubernetes API: CRDs, optimistic concurrency, watches with bookmarks, authentication, RBAC,
// and clusters that are separate from each other.
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { promisify } from "node:util"
import * as k8s from "@kubernetes/client-node"
import { describe, expect, it } from "vitest"
import { locateAssets } from "../../testenv/assets.ts"
import type { Cluster } from "../../testenv/controlplane.ts"
import type { WatchEvent } from "../../testenv/kube-http.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"

const controlPlane = sharedControlPlane()
const cluster = (i: number): Cluster => {
  const c = controlPlane.clusters[i]
  if (c === undefined) throw new Error(`the shared control plane has no cluster ${i}`)
  return c
}
const suffix = (): string => randomBytes(4).toString("hex")

/** Polls `probe` until it returns a value, failing after `timeoutMs`. */
const eventually = async <A>(
  what: string,
  probe: () => Promise<A | undefined>,
  timeoutMs = 30_000,
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const createNamespace = async (c: Cluster, prefix: string): Promise<string> => {
  const name = `${prefix}-${suffix()}`
  const r = await c.request("POST", "/api/v1/namespaces", { body: { metadata: { name } } })
  expect(r.status, r.text).toBe(201)
  return name
}

// biome-ignore lint/suspicious/noExplicitAny: reading fields of Kubernetes objects in tests
const meta = (body: unknown): any => (body as { metadata: unknown }).metadata

describe("shared control plane", () => {
  it("has separate clusters, each with an admin and a no-access kubeconfig", () => {
    expect(controlPlane.clusters.length).toBeGreaterThanOrEqual(2)
    expect(controlPlane.info.kubernetesVersion).toBe("v1.34.4")
    const servers = new Set(controlPlane.clusters.map((c) => c.server))
    expect(servers.size).toBe(controlPlane.clusters.length)
    for (const c of controlPlane.clusters) {
      expect(c.admin.kubeconfig).toContain(c.server)
      expect(c.noAccess.user).toBe("noaccess")
    }
  })

  it("serves @kubernetes/client-node and kubectl through the admin kubeconfig, verifying its certificate", async () => {
    const kc = new k8s.KubeConfig()
    kc.loadFromString(cluster(0).admin.kubeconfig)
    expect(kc.getCurrentCluster()?.skipTLSVerify).not.toBe(true)
    const list = await kc.makeApiClient(k8s.CoreV1Api).listNamespace()
    expect(list.items.map((n) => n.metadata?.name)).toContain("default")

    const { assets } = await locateAssets()
    const { stdout } = await promisify(execFile)(assets.kubectl, [
      "--kubeconfig",
      cluster(0).admin.kubeconfigPath,
      "get",
      "namespace",
      "default",
      "-o",
      "name",
    ])
    expect(stdout.trim()).toBe("namespace/default")
  })

  it("establishes a CRD, then serves its resources", async () => {
    const c = cluster(0)
    const group = `e2e${suffix()}.testenv.krtt.dev`
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: "Namespaced",
        names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
        versions: [
          {
            name: "v1",
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: "object",
                properties: { spec: { type: "object", properties: { size: { type: "integer" } } } },
              },
            },
          },
        ],
      },
    }
    const created = await c.request("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
      body: crd,
    })
    expect(created.status, created.text).toBe(201)
    const established = await eventually("the CRD to be Established", async () => {
      const r = await c.request(
        "GET",
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`,
      )
      const conditions = (r.body as { status?: { conditions?: Array<{ type: string; status: string }> } })
        .status?.conditions
      return conditions?.find((x) => x.type === "Established" && x.status === "True")
    })
    expect(established.status).toBe("True")

    const ns = await createNamespace(c, "crd")
    const widgets = `/apis/${group}/v1/namespaces/${ns}/widgets`
    // Discovery may lag the Established condition by a moment; the create is what proves serving.
    const widget = await eventually("the Widget resource to be served", async () => {
      const r = await c.request("POST", widgets, {
        body: { apiVersion: `${group}/v1`, kind: "Widget", metadata: { name: "w" }, spec: { size: 1 } },
      })
      return r.status === 201 ? r : undefined
    })
    expect((widget.body as { spec: { size: number } }).spec.size).toBe(1)
    const list = await c.request("GET", widgets)
    expect(list.status).toBe(200)
    expect((list.body as { items: Array<unknown> }).items).toHaveLength(1)
  })

  it("creates, refuses an update with a stale resourceVersion (409), updates and deletes", async () => {
    const c = cluster(0)
    const ns = await createNamespace(c, "crud")
    const path = `/api/v1/namespaces/${ns}/configmaps`
    const created = await c.request("POST", path, { body: { metadata: { name: "cm" }, data: { n: "1" } } })
    expect(created.status, created.text).toBe(201)
    const rv1: string = meta(created.body).resourceVersion

    const updated = await c.request("PUT", `${path}/cm`, {
      body: { metadata: { name: "cm", resourceVersion: rv1 }, data: { n: "2" } },
    })
    expect(updated.status, updated.text).toBe(200)
    expect(meta(updated.body).resourceVersion).not.toBe(rv1)

    const stale = await c.request("PUT", `${path}/cm`, {
      body: { metadata: { name: "cm", resourceVersion: rv1 }, data: { n: "3" } },
    })
    expect(stale.status).toBe(409)
    expect((stale.body as { reason: string }).reason).toBe("Conflict")
    const current = await c.request("GET", `${path}/cm`)
    expect((current.body as { data: { n: string } }).data.n).toBe("2")

    const deleted = await c.request("DELETE", `${path}/cm`)
    expect(deleted.status, deleted.text).toBe(200)
    expect((await c.request("GET", `${path}/cm`)).status).toBe(404)
  })

  it("ends the initial events of a watch with a bookmark when asked, then streams changes", async () => {
    const c = cluster(0)
    const ns = await createNamespace(c, "watch")
    const path = `/api/v1/namespaces/${ns}/configmaps`
    for (const name of ["a", "b", "c"]) {
      expect((await c.request("POST", path, { body: { metadata: { name } } })).status).toBe(201)
    }
    const watch = await c.watch(
      `${path}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
    )
    expect(watch.status).toBe(200)
    try {
      const initial: Array<WatchEvent> = []
      for (;;) {
        const next = await watch.events.next()
        if (next.done === true) throw new Error("the watch ended before its bookmark")
        initial.push(next.value)
        if (next.value.type === "BOOKMARK") break
      }
      const bookmark = initial.at(-1)
      expect(initial.slice(0, -1).map((e) => [e.type, e.object.metadata.name])).toEqual([
        ["ADDED", "a"],
        ["ADDED", "b"],
        ["ADDED", "c"],
      ])
      expect(bookmark?.object.metadata.annotations?.["k8s.io/initial-events-end"]).toBe("true")
      expect(Number(bookmark?.object.metadata.resourceVersion)).toBeGreaterThan(0)

      expect((await c.request("POST", path, { body: { metadata: { name: "d" } } })).status).toBe(201)
      let change = await watch.events.next()
      while (change.done !== true && change.value.type === "BOOKMARK") change = await watch.events.next()
      expect(change.done).not.toBe(true)
      expect(change.value?.type).toBe("ADDED")
      expect(change.value?.object.metadata.name).toBe("d")
    } finally {
      watch.close()
    }
  })

  it("answers 401 to a bad token and to no token on a protected path, 403 to a user without permissions", async () => {
    const c = cluster(0)
    expect((await c.request("GET", "/api/v1/namespaces", { as: { token: "not-a-token" } })).status).toBe(401)
    const forbidden = await c.request("GET", "/api/v1/namespaces", { as: c.noAccess })
    expect(forbidden.status).toBe(403)
    expect((forbidden.body as { reason: string }).reason).toBe("Forbidden")
    expect((forbidden.body as { message: string }).message).toContain('User "noaccess" cannot list')
    // anonymous requests are authenticated as system:anonymous, whom RBAC refuses
    expect((await c.request("GET", "/api/v1/namespaces", { as: { token: "" } })).status).toBe(403)
    expect((await c.request("GET", "/api/v1/namespaces")).status).toBe(200)
  })

  it("hands out users of the pool with exactly the rules asked for", async () => {
    const c = cluster(0)
    const ns = await createNamespace(c, "rbac")
    const bare = await c.newUser()
    const reader = await c.userWithRules(
      [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list"] }],
      {
        namespace: ns,
      },
    )
    expect(reader.user).not.toBe(bare.user)
    expect(reader.kubeconfig).toContain(reader.token)
    expect((await c.request("GET", `/api/v1/namespaces/${ns}/configmaps`, { as: bare })).status).toBe(403)
    expect((await c.request("GET", `/api/v1/namespaces/${ns}/configmaps`, { as: reader })).status).toBe(200)
    expect((await c.request("GET", `/api/v1/namespaces/${ns}/secrets`, { as: reader })).status).toBe(403)
    expect((await c.request("GET", "/api/v1/namespaces/default/configmaps", { as: reader })).status).toBe(403)
    const write = await c.request("POST", `/api/v1/namespaces/${ns}/configmaps`, {
      as: reader,
      body: { metadata: { name: "x" } },
    })
    expect(write.status).toBe(403)

    const lister = await c.userWithRules([{ apiGroups: [""], resources: ["namespaces"], verbs: ["list"] }])
    expect((await c.request("GET", "/api/v1/namespaces", { as: lister })).status).toBe(200)
  })

  it("keeps clusters apart: objects, and tokens", async () => {
    const [a, b] = [cluster(0), cluster(1)]
    const name = `apart-${suffix()}`
    expect((await a.request("POST", "/api/v1/namespaces", { body: { metadata: { name } } })).status).toBe(201)
    const cm = { metadata: { name: "only-here" }, data: { cluster: a.name } }
    expect((await a.request("POST", `/api/v1/namespaces/${name}/configmaps`, { body: cm })).status).toBe(201)

    expect((await b.request("GET", `/api/v1/namespaces/${name}`)).status).toBe(404)
    const names = (
      (await b.request("GET", "/api/v1/namespaces")).body as { items: Array<{ metadata: { name: string } }> }
    ).items
    expect(names.map((n) => n.metadata.name)).not.toContain(name)
    // the same name in the other cluster is another object
    expect((await b.request("POST", "/api/v1/namespaces", { body: { metadata: { name } } })).status).toBe(201)
    expect((await b.request("GET", `/api/v1/namespaces/${name}/configmaps/only-here`)).status).toBe(404)

    // each cluster has tokens of its own
    expect((await b.request("GET", "/api/v1/namespaces", { as: a.admin })).status).toBe(401)
  })
})
