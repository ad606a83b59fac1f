// A watch from a resourceVersion that etcd has compacted away ends with 410 Gone. This file starts
// a control plane of its own: compaction is shared by every cluster of an etcd, and the watch
// cache is off so that the watch reaches etcd (with the cache on, a watch from a version still
// inside the cache's window is served from memory, compacted or not).
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ControlPlane, startControlPlane } from "../../testenv/index.ts"
import { isAlive } from "../../testenv/processes.ts"

let controlPlane: ControlPlane

beforeAll(async () => {
  controlPlane = await startControlPlane({ clusters: 1, users: 0, apiserverArgs: ["--watch-cache=false"] })
})

afterAll(async () => {
  await controlPlane?.stop()
})

describe("a control plane started from code", () => {
  it("answers a watch from a compacted resourceVersion with 410 Gone", async () => {
    const [c] = controlPlane.clusters
    if (c === undefined) throw new Error("no cluster")
    const path = "/api/v1/namespaces/default/configmaps"
    const created = await c.request("POST", path, { body: { metadata: { name: "old" }, data: { n: "0" } } })
    expect(created.status, created.text).toBe(201)
    const oldVersion = (created.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion
    for (let n = 1; n <= 3; n++) {
      const patched = await c.request("PATCH", `${path}/old`, {
        body: { data: { n: String(n) } },
        headers: { "content-type": "application/merge-patch+json" },
      })
      expect(patched.status, patched.text).toBe(200)
    }

    // Before compaction the old version is still there to watch from.
    const before = await c.watch(`${path}?watch=1&resourceVersion=${oldVersion}`)
    try {
      expect(before.status).toBe(200)
      const first = await before.events.next()
      expect(first.value?.type).toBe("MODIFIED")
    } finally {
      before.close()
    }

    const revision = await controlPlane.compact()
    expect(revision).toBeGreaterThan(Number(oldVersion))

    // A reflector sees 410 either as the HTTP status or as the watch's first event.
    const after = await c.watch(`${path}?watch=1&resourceVersion=${oldVersion}`)
    try {
      const gone =
        after.status === 200
          ? (await after.events.next()).value
          : { type: "ERROR" as const, object: after.body }
      expect(gone?.type).toBe("ERROR")
      expect(gone?.object.code).toBe(410)
      expect(gone?.object.reason).toBe("Expired")
    } finally {
      after.close()
    }
  })

  it("stops every process and removes its directory", async () => {
    const dir = controlPlane.dir
    const pids = JSON.parse(readFileSync(join(dir, "pids.json"), "utf8")) as Array<number>
    expect(pids).toHaveLength(3) // etcd, one kube-apiserver and its kube-controller-manager
    await controlPlane.stop()
    expect(existsSync(dir)).toBe(false)
    expect(pids.filter(isAlive)).toEqual([])
    await expect(controlPlane.clusters[0]?.request("GET", "/readyz", { timeoutMs: 2_000 })).rejects.toThrow()
  })
})
