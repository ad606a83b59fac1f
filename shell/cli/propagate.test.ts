import { describe, expect, it } from "vitest"
import { PropagateDefaults } from "../../core/propagate/index.ts"
import { PROPAGATE_LEASE, parsePropagateArgs, propagateUsage } from "./propagate.ts"

describe("krtt propagate's command line", () => {
  it("takes the provider flags, the manager's flags and its own, with the documented defaults", () => {
    const a = parsePropagateArgs(
      [
        "--provider",
        "kubeconfig-secrets",
        "--provider-namespace=fleet",
        "--leader-elect",
        "--health-addr=:0",
      ],
      {},
    )
    if (a === "help") throw new Error("help")
    expect(a.provider).toBe("kubeconfig-secrets")
    expect(a.providerFlags).toEqual({ providerNamespace: "fleet" })
    expect(a.manager.leaderElect).toBe(true)
    expect(a.manager.leaderElectId).toBe(PROPAGATE_LEASE)
    expect(a.namespace).toBe("default")
    expect(a.config).toEqual({
      retryInterval: PropagateDefaults.retryInterval,
      clusterTimeout: PropagateDefaults.clusterTimeout,
      permissionRecheckInterval: PropagateDefaults.permissionRecheckInterval,
    })
  })
  it("takes every provider's flags, --provider-access-config of cluster-inventory-api too", () => {
    const a = parsePropagateArgs(
      ["--provider", "cluster-inventory-api", "--provider-access-config=/etc/krtt/access.json"],
      {},
    )
    if (a === "help") throw new Error("help")
    expect(a.providerFlags).toEqual({ providerAccessConfig: "/etc/krtt/access.json" })
    expect(propagateUsage()).toContain("--provider-access-config string")
    expect(propagateUsage()).toContain("cluster-inventory-api")
  })
  it("passes --provider-probe-interval on to the provider", () => {
    const a = parsePropagateArgs(["--provider", "kubeconfig-secrets", "--provider-probe-interval=0"], {})
    if (a === "help") throw new Error("help")
    expect(a.providerFlags).toEqual({ providerProbeInterval: "0" })
    expect(propagateUsage()).toContain("--provider-probe-interval string")
  })
  it("--namespace defaults to $POD_NAMESPACE; durations are read as Go's", () => {
    const a = parsePropagateArgs(
      ["--provider=namespaces", "--retry-interval", "250ms", "--cluster-timeout=1m"],
      {
        POD_NAMESPACE: "krtt-system",
      },
    )
    if (a === "help") throw new Error("help")
    expect(a.namespace).toBe("krtt-system")
    expect(a.config.retryInterval).toBe(250)
    expect(a.config.clusterTimeout).toBe(60_000)
  })
  it("refuses bad input naming the flag", () => {
    expect(() => parsePropagateArgs([], {})).toThrow(/--provider is required/)
    expect(() => parsePropagateArgs(["--provider=x", "--leader-elec"], {})).toThrow(
      /did you mean --leader-elect/,
    )
    expect(() => parsePropagateArgs(["--provider=x", "--sync-period=1m"], {})).toThrow(
      /krtt propagate does not take it/,
    )
    expect(() => parsePropagateArgs(["--provider=x", "--retry-interval=soon"], {})).toThrow(
      /--retry-interval/,
    )
    expect(() => parsePropagateArgs(["--provider=x", "--cluster-timeout=0"], {})).toThrow(/must be positive/)
  })
  it("--help lists its flags and the manager's", () => {
    expect(parsePropagateArgs(["--help"], {})).toBe("help")
    const text = propagateUsage()
    for (const flag of [
      "--provider-kubeconfig",
      "--leader-elect-id",
      "--health-addr",
      "--graceful-shutdown-timeout",
    ])
      expect(text).toContain(flag)
    expect(text).toContain(`(default ${PROPAGATE_LEASE})`)
  })
})
