import { describe, expect, it } from "vitest"
import { InventoryDefaults } from "../../core/inventory/index.ts"
import { INVENTORY_LEASE, inventoryUsage, parseInventoryArgs } from "./inventory.ts"

const env = { POD_NAMESPACE: "krtt-system" }
const parse = (...argv: Array<string>) => parseInventoryArgs(argv, env)
const base = ["--provider", "kubeconfig-secrets", "--provider-namespace=fleet", "--namespace", "inventory"]

describe("parseInventoryArgs", () => {
  it("takes the provider flags, the namespace and the 2 s debounce by default", () => {
    const a = parse(...base)
    if (a === "help") throw new Error("help")
    expect(a.provider).toBe("kubeconfig-secrets")
    expect(a.providerFlags).toEqual({ providerNamespace: "fleet" })
    expect(a.namespace).toBe("inventory")
    expect(a.debounce).toBe(InventoryDefaults.debounce)
    expect(a.debounce).toBe(2_000)
  })

  it("takes cluster-inventory-api's --provider-access-config as krtt propagate does", () => {
    const a = parse(
      "--provider=cluster-inventory-api",
      "--provider-access-config",
      "/a.json",
      "--namespace=inv",
    )
    if (a === "help") throw new Error("help")
    expect(a.providerFlags).toEqual({ providerAccessConfig: "/a.json" })
    expect(inventoryUsage()).toContain("--provider-access-config string")
  })

  it("passes --provider-probe-interval on to the provider", () => {
    const a = parse("--provider=kubeconfig-secrets", "--provider-probe-interval", "30s", "--namespace=inv")
    if (a === "help") throw new Error("help")
    expect(a.providerFlags).toEqual({ providerProbeInterval: "30s" })
  })

  it("takes the manager's flags as krtt run reads them, with the krtt-inventory Lease by default", () => {
    const a = parse(
      ...base,
      "--leader-elect",
      "--leader-elect-lease-duration=20s",
      "--health-addr=:9555",
      "--diagnostics-address=0",
      "--graceful-shutdown-timeout",
      "5s",
      "-v=4",
      "--debounce=500ms",
    )
    if (a === "help") throw new Error("help")
    expect(a.manager).toMatchObject({
      leaderElect: true,
      leaseDuration: 20_000,
      leaderElectId: INVENTORY_LEASE,
      leaderElectNamespace: "krtt-system",
      healthProbeBindAddress: ":9555",
      metricsBindAddress: "0",
      gracefulShutdownTimeout: 5_000,
      logVerbosity: 4,
    })
    expect(a.debounce).toBe(500)
    const own = parse(...base, "--leader-elect-id=mine")
    expect(own !== "help" && own.manager.leaderElectId).toBe("mine")
  })

  it("refuses flags it does not take, naming them, and bad values naming the flag", () => {
    expect(() => parse(...base, "--machine-concurrency=3")).toThrow(/unknown flag: --machine-concurrency/)
    expect(() => parse(...base, "--namespase=x")).toThrow(
      /unknown flag: --namespase \(did you mean --namespace\?\)/,
    )
    expect(() => parse("--namespace", "x")).toThrow(/--provider is required/)
    expect(() => parse("--provider", "namespaces")).toThrow(/--namespace is required/)
    expect(() => parse("--provider", "namespaces", "--namespace", "Fleet_1")).toThrow(
      /invalid argument "Fleet_1" for --namespace/,
    )
    expect(() => parse(...base, "--debounce=soon")).toThrow(/invalid argument "soon" for --debounce/)
    expect(() => parse(...base, "--debounce")).toThrow(/flag needs an argument: --debounce/)
    expect(() => parse(...base, "--leader-elect-lease-duration=long")).toThrow(
      /--leader-elect-lease-duration/,
    )
  })

  it("answers help; the usage lists its own flags and the manager's with the inventory's Lease", () => {
    expect(parse("--help")).toBe("help")
    const u = inventoryUsage()
    for (const f of [
      "--provider",
      "--namespace",
      "--debounce",
      "--leader-elect",
      "--graceful-shutdown-timeout",
    ])
      expect(u).toContain(f)
    expect(u).toContain(`(default ${INVENTORY_LEASE})`)
    expect(u).not.toContain("--machine-concurrency")
  })
})
