// The harness's parts that need no control plane: files it writes, where binaries come from,
// the install lock, ports.
import { spawnSync } from "node:child_process"
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { parse } from "yaml"
import {
  AssetsError,
  CONTROLLER_MANAGER,
  cacheDir,
  ensureAssets,
  etcdGoMod,
  KUBERNETES_VERSION,
  kubernetesGoMod,
  locateAssets,
  STAGING_MODULES,
  withLock,
} from "./assets.ts"
import { renderKubeconfig, renderTokenFile } from "./kubeconfig.ts"
import { freePorts, isAlive } from "./processes.ts"

let scratch: string
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "krtt-testenv-unit-"))
})
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true })
})

const fakeBinaries = async (dir: string, names: ReadonlyArray<string>): Promise<void> => {
  await mkdir(dir, { recursive: true })
  for (const name of names) {
    await writeFile(join(dir, name), "#!/bin/sh\n")
    await chmod(join(dir, name), 0o755)
  }
}

describe("kubeconfig", () => {
  it("names one cluster, one token user and the selected context joining them", () => {
    const ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    const text = renderKubeconfig({
      cluster: "cluster-1",
      server: "https://127.0.0.1:6443",
      ca,
      user: "user-3",
      token: "t0k",
    })
    const config = parse(text)
    expect(config.kind).toBe("Config")
    expect(config.clusters).toEqual([
      {
        name: "cluster-1",
        cluster: {
          server: "https://127.0.0.1:6443",
          "certificate-authority-data": Buffer.from(ca).toString("base64"),
        },
      },
    ])
    expect(config.users).toEqual([{ name: "user-3", user: { token: "t0k" } }])
    expect(config.contexts).toEqual([
      { name: "user-3@cluster-1", context: { cluster: "cluster-1", user: "user-3" } },
    ])
    expect(config["current-context"]).toBe("user-3@cluster-1")
  })

  it("calls the admin's context by the cluster's name", () => {
    const config = parse(
      renderKubeconfig({ cluster: "cluster-0", server: "https://x", ca: "", user: "admin", token: "t" }),
    )
    expect(config["current-context"]).toBe("cluster-0")
  })
})

describe("token file", () => {
  it("writes token,user,uid and quotes the groups", () => {
    const text = renderTokenFile([
      { name: "admin", token: "a", groups: ["system:masters"] },
      { name: "noaccess", token: "b", groups: [] },
      { name: "two", token: "c", groups: ["g1", "g2"] },
    ])
    expect(text).toBe('a,admin,admin,"system:masters"\nb,noaccess,noaccess\nc,two,two,"g1,g2"\n')
  })

  it("refuses fields that would break the CSV", () => {
    expect(() => renderTokenFile([{ name: "a,b", token: "t", groups: [] }])).toThrow(/commas/)
  })
})

describe("binaries", () => {
  it("are cached per Kubernetes version under XDG_CACHE_HOME, else ~/.cache", () => {
    expect(cacheDir({ XDG_CACHE_HOME: "/x" })).toBe(`/x/krtt/k8s-${KUBERNETES_VERSION}`)
    expect(cacheDir({ HOME: "/home/u" })).toMatch(new RegExp(`/\\.cache/krtt/k8s-${KUBERNETES_VERSION}$`))
  })

  it("come from KUBEBUILDER_ASSETS when it holds all three", async () => {
    await fakeBinaries(scratch, ["kube-apiserver", "etcd", "kubectl"])
    const env = { KUBEBUILDER_ASSETS: scratch, XDG_CACHE_HOME: join(scratch, "cache") }
    const assets = await ensureAssets({ env, go: null, controllerManager: false })
    expect(assets.source).toBe("KUBEBUILDER_ASSETS")
    expect(assets.kubeApiserver).toBe(join(scratch, "kube-apiserver"))
    expect(assets.kubeControllerManager).toBeUndefined()
    expect(await readdir(scratch)).not.toContain("cache") // nothing built
  })

  it("take kube-controller-manager from KUBEBUILDER_ASSETS when it holds one", async () => {
    await fakeBinaries(scratch, ["kube-apiserver", "etcd", "kubectl", CONTROLLER_MANAGER])
    const env = { KUBEBUILDER_ASSETS: scratch, XDG_CACHE_HOME: join(scratch, "cache") }
    const assets = await ensureAssets({ env, go: null })
    expect(assets.kubeControllerManager).toBe(join(scratch, CONTROLLER_MANAGER))
  })

  it("take kube-controller-manager from the cache when KUBEBUILDER_ASSETS (envtest's set) lacks it", async () => {
    const assetsDir = join(scratch, "envtest")
    await fakeBinaries(assetsDir, ["kube-apiserver", "etcd", "kubectl"])
    const env = { KUBEBUILDER_ASSETS: assetsDir, XDG_CACHE_HOME: join(scratch, "cache") }
    await fakeBinaries(cacheDir(env), [CONTROLLER_MANAGER])
    const assets = await ensureAssets({ env, go: null })
    expect(assets.source).toBe("KUBEBUILDER_ASSETS")
    expect(assets.kubeApiserver).toBe(join(assetsDir, "kube-apiserver"))
    expect(assets.kubeControllerManager).toBe(join(cacheDir(env), CONTROLLER_MANAGER))
  })

  it("say how to go on when neither KUBEBUILDER_ASSETS nor the cache has kube-controller-manager and Go is missing", async () => {
    await fakeBinaries(scratch, ["kube-apiserver", "etcd", "kubectl"])
    const env = { KUBEBUILDER_ASSETS: scratch, XDG_CACHE_HOME: join(scratch, "cache") }
    const error = await ensureAssets({ env, go: null }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AssetsError)
    expect((error as Error).message).toMatch(/^kube-controller-manager missing: KUBEBUILDER_ASSETS=/)
    expect((error as Error).message).toContain("--no-controller-manager")
  })

  it("name what KUBEBUILDER_ASSETS lacks instead of building behind the user's back", async () => {
    await fakeBinaries(scratch, ["kube-apiserver"])
    await writeFile(join(scratch, "etcd"), "not executable")
    const env = { KUBEBUILDER_ASSETS: scratch }
    expect((await locateAssets(env)).missing).toEqual(["etcd", "kubectl"])
    await expect(ensureAssets({ env })).rejects.toThrow(`KUBEBUILDER_ASSETS=${scratch} lacks etcd, kubectl`)
  })

  it("name what is missing when there is neither Go nor KUBEBUILDER_ASSETS", async () => {
    const env = { XDG_CACHE_HOME: scratch, PATH: "" }
    const error = await ensureAssets({ env, go: null }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AssetsError)
    expect((error as Error).message).toMatch(
      /^kube-apiserver, etcd, kubectl, kube-controller-manager missing: KUBEBUILDER_ASSETS is not set/,
    )
    expect((error as Error).message).toContain("no Go toolchain was found")
  })

  it("come from the cache without Go once they are there", async () => {
    const env = { XDG_CACHE_HOME: scratch }
    await fakeBinaries(cacheDir(env), ["kube-apiserver", "etcd", "kubectl", CONTROLLER_MANAGER])
    const assets = await ensureAssets({ env, go: null })
    expect(assets.dir).toBe(cacheDir(env))
    expect(assets.kubeControllerManager).toBe(join(cacheDir(env), CONTROLLER_MANAGER))
  })

  it("are built by a wrapper module that pins every staging module", () => {
    const goMod = kubernetesGoMod()
    expect(goMod).toContain("require k8s.io/kubernetes v1.34.4")
    for (const m of STAGING_MODULES) expect(goMod).toContain(`\tk8s.io/${m} => k8s.io/${m} v0.34.4\n`)
    expect(etcdGoMod()).toContain("require go.etcd.io/etcd/server/v3 v3.6.6")
  })
})

describe("install lock", () => {
  it("lets one holder in at a time", async () => {
    const lock = join(scratch, "x.lock")
    const order: Array<string> = []
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const first = withLock(
      lock,
      () => {},
      async () => {
        order.push("first in")
        await held
        order.push("first out")
      },
    )
    while (order.length === 0) await new Promise((r) => setTimeout(r, 10))
    const second = withLock(
      lock,
      () => {},
      async () => {
        order.push("second in")
      },
    )
    await new Promise((r) => setTimeout(r, 50))
    expect(order).toEqual(["first in"])
    release()
    await Promise.all([first, second])
    expect(order).toEqual(["first in", "first out", "second in"])
  })

  it("is taken over from an owner that died", async () => {
    const lock = join(scratch, "x.lock")
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid
    expect(isAlive(dead)).toBe(false)
    await mkdir(lock)
    await writeFile(join(lock, "owner"), JSON.stringify({ pid: dead, host: hostname() }))
    const lines: Array<string> = []
    expect(
      await withLock(
        lock,
        (l) => lines.push(l),
        async () => "ran",
      ),
    ).toBe("ran")
    expect(lines.join("\n")).toContain("its owner is gone")
  })
})

describe("ports", () => {
  it("are distinct, also across calls", async () => {
    const ports = [...(await freePorts(5)), ...(await freePorts(5))]
    expect(new Set(ports).size).toBe(10)
  })
})
