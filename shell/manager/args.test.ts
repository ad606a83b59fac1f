import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { managerNamespace, managerOptionsFromArgs } from "./args.ts"
import {
  FlagError,
  parseFlags,
  readDuration,
  readInt32List,
  UpstreamFeatureGates,
  UpstreamFlags,
} from "./flags.ts"
import { ManagerDefaults, UpstreamManagerDefaults } from "./options.ts"

const NO_FILE = "/nonexistent/namespace"
const run = (argv: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}) => {
  const r = managerOptionsFromArgs(argv, env, NO_FILE)
  if (r._tag !== "Run") throw new Error("expected options")
  return r.options
}

/** Upstream v1.13's core manager Deployment arguments (config/manager/manager.yaml) and more. */
const UPSTREAM_ARGS = [
  "--leader-elect",
  "--diagnostics-address=:8443",
  "--insecure-diagnostics=false",
  "--feature-gates=MachinePool=true,ClusterTopology=false,RuntimeSDK=false,MachineSetPreflightChecks=true,MachineWaitForVolumeDetachConsiderVolumeAttachments=true,PriorityQueue=false,ReconcilerRateLimiting=true,InPlaceUpdates=false,MachineTaintPropagation=false",
  "--v=2",
]

describe("managerOptionsFromArgs", () => {
  it("has upstream's defaults: Lease controller-leader-election-capi, /metrics on :8443 over HTTPS, probes on :9440", () => {
    const o = run([], { POD_NAMESPACE: "capi-system" })
    expect(o).toMatchObject({
      metricsBindAddress: ":8443",
      metricsSecure: true,
      healthProbeBindAddress: ":9440",
      leaderElect: false,
      leaderElectId: "controller-leader-election-capi",
      leaderElectNamespace: "capi-system",
      leaseDuration: 15_000,
      renewDeadline: 10_000,
      retryPeriod: 2_000,
      clusterConcurrency: 50,
      clusterCacheConcurrency: 100,
      kubeApiQps: 100,
      kubeApiBurst: 200,
      clusterCacheClientQps: 20,
      clusterCacheClientBurst: 30,
      syncPeriod: 600_000,
      remoteConnectionGracePeriod: 50_000,
      webhookPort: 9443,
      webhookCertDir: "/tmp/k8s-webhook-server/serving-certs/",
      webhookCertName: "tls.crt",
      webhookKeyName: "tls.key",
      tlsMinVersion: "TLSv1.2",
      logVerbosity: 2,
      loggingFormat: "text",
      featureGates: { machinePool: true, clusterTopology: false, runtimeSDK: false },
      notices: [],
    })
    expect(o.watchNamespace).toBeUndefined()
    expect(o.watchFilter).toBeUndefined()
    expect(ManagerDefaults.leaderElectId).toBe(UpstreamManagerDefaults.leaderElectId)
    expect(ManagerDefaults.healthProbeBindAddress).toBe(":9440")
  })

  it("takes upstream's Deployment arguments unchanged, and says once which gates it does not implement", () => {
    const o = run(UPSTREAM_ARGS)
    expect(o.leaderElect).toBe(true)
    expect(o.metricsSecure).toBe(true)
    expect(o.logVerbosity).toBe(2)
    expect(o.notices).toEqual(["feature gates accepted but not implemented by krtt: PriorityQueue=false"])
  })

  it("reads pflag's forms: -v=4, -v 4, --v 4, --name value, --bool=false, underscores, repeated lists", () => {
    expect(run(["-v=4"]).logVerbosity).toBe(4)
    expect(run(["-v", "5"]).logVerbosity).toBe(5)
    expect(run(["--v", "6"]).logVerbosity).toBe(6)
    expect(run(["--namespace", "team-a"]).watchNamespace).toBe("team-a")
    expect(run(["--watch_filter=blue"]).watchFilter).toBe("blue")
    expect(run(["--insecure-diagnostics"]).metricsSecure).toBe(false)
    expect(run(["--insecure-diagnostics=false"]).metricsSecure).toBe(true)
    expect(
      run([
        "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        "--tls-cipher-suites",
        "TLS_RSA_WITH_AES_128_GCM_SHA256",
      ]).tlsCipherSuites,
    ).toEqual(["ECDHE-RSA-AES128-GCM-SHA256", "AES128-GCM-SHA256"])
    expect(
      run(["--feature-gates=ClusterTopology=true", "--feature-gates=MachinePool=false"]).featureGates,
    ).toEqual({
      clusterTopology: true,
      machinePool: false,
      runtimeSDK: false,
    })
    expect(parseFlags(["--", "-v=3"]).args).toEqual(["-v=3"])
  })

  it("accepts every flag of upstream's manager, and reports the ones of controllers it does not run once", () => {
    const notRun = UpstreamFlags.filter((f) => f.use === "notRun")
    expect(notRun.map((f) => f.name)).toContain("machine-concurrency")
    const argv = notRun.map(
      (f) =>
        `--${f.name}=${f.type === "bool" ? "true" : f.type === "duration" ? "6m" : f.type === "int" ? "3" : "x"}`,
    )
    const o = run(argv)
    expect(o.notices).toHaveLength(1)
    for (const f of notRun) expect(o.notices?.[0]).toContain(`--${f.name}`)
  })

  it("accepts every feature gate upstream knows", () => {
    const all = Object.keys(UpstreamFeatureGates)
      .map((g) => `${g}=true`)
      .join(",")
    expect(run([`--feature-gates=${all}`]).featureGates).toEqual({
      machinePool: true,
      clusterTopology: true,
      runtimeSDK: true,
    })
  })

  it("reads --tls-curve-preferences as pflag's int32 list, into OpenSSL groups in Go's order of preference", () => {
    expect(run([]).tlsCurvePreferences).toEqual([])
    expect(run(["--tls-curve-preferences=29"]).tlsCurvePreferences).toEqual(["X25519"])
    expect(
      run(["--tls-curve-preferences=25,23", "--tls-curve-preferences", "0x1d"]).tlsCurvePreferences,
    ).toEqual(["X25519", "P-256", "P-521"])
    expect(parseFlags(["--tls_curve_preferences=24"]).values.get("tls-curve-preferences")).toBe("24")
  })

  it("refuses a bad --tls-curve-preferences at start, naming the flag and the value", () => {
    expect(() => run(["--tls-curve-preferences=X25519"])).toThrow(
      /invalid argument "X25519" for --tls-curve-preferences: "X25519" is not an integer/,
    )
    expect(() => run(["--tls-curve-preferences="])).toThrow(/--tls-curve-preferences/)
    expect(() => run(["--tls-curve-preferences=23, 24"])).toThrow(/" 24" is not an integer/)
    expect(() => run(["--tls-curve-preferences=23,9999"])).toThrow(
      /--tls-curve-preferences: curve preference 9999 is not a crypto\/tls CurveID/,
    )
    expect(() => run(["--tls-curve-preferences=29,29"])).toThrow(
      /--tls-curve-preferences: duplicate curve preference 29/,
    )
    expect(() => run(["--tls-curve-preferences=0"])).toThrow(
      /curve preference 0 is out of range \(must be 1-65535\)/,
    )
    expect(() => run(["--tls-curve-preferences=70000"])).toThrow(/70000 is out of range/)
    expect(() => run(["--tls-curve-preferences=3000000000"])).toThrow(/out of the range of int32/)
    expect(() => run(["--tls-curve-preferences=29"])).not.toThrow(FlagError)
  })

  it("reads integers as Go's strconv.ParseInt with base 0 does", () => {
    expect(readInt32List("x", "29,+23,-1,0x1d,0X1D,0b11101,0o35,035,0,1_000,0x_1d")).toEqual([
      29, 23, -1, 29, 29, 29, 29, 29, 0, 1000, 29,
    ])
    for (const bad of ["", "29a", "0x", "0o", "09", "1__0", "_1", "1_", "2147483648", "1.0"])
      expect(() => readInt32List("x", bad), bad).toThrow(FlagError)
    expect(readInt32List("x", "-2147483648")).toEqual([-(2 ** 31)])
  })

  it("keeps krtt's former flags: --metrics-bind-address serves plain HTTP, --health-probe-bind-address is --health-addr", () => {
    const o = run(["--metrics-bind-address=127.0.0.1:9000", "--health-probe-bind-address=:9001"])
    expect(o).toMatchObject({
      metricsBindAddress: "127.0.0.1:9000",
      metricsSecure: false,
      healthProbeBindAddress: ":9001",
    })
  })

  it("refuses an unknown flag naming the closest known one, and a bad value naming the flag", () => {
    expect(() => run(["--diagnostics-addres=:1"])).toThrow(
      /unknown flag: --diagnostics-addres \(did you mean --diagnostics-address\?\)/,
    )
    expect(() => run(["--sync-period=10"])).toThrow(/--sync-period/)
    expect(() => run(["--feature-gates=Foo=true"])).toThrow(/--feature-gates: unrecognized feature gate Foo/)
    expect(() => run(["--logging-format=xml"])).toThrow(/--logging-format/)
    expect(() => run(["--tls-min-version=TLS12"])).toThrow(/--tls-min-version/)
    expect(() => run(["--tls-cipher-suites=RC4"])).toThrow(/--tls-cipher-suites/)
    expect(() => run(["--machine-concurrency=many"])).toThrow(/--machine-concurrency: not an integer/)
    expect(() => run(["--remote-conditions-grace-period=40s"])).toThrow(
      /--remote-conditions-grace-period must be greater than --remote-connection-grace-period/,
    )
    expect(() => run(["--remote-conditions-grace-period=90s"])).toThrow(/at least 2m/)
    expect(() => run(["--cluster-concurrency"])).toThrow(FlagError)
    expect(() => run(["extra"])).toThrow(/unexpected argument "extra"/)
  })

  it("answers --help", () => {
    expect(managerOptionsFromArgs(["--help"], {}, NO_FILE)._tag).toBe("Help")
  })

  it("reads Go durations", () => {
    expect(readDuration("x", "10m0s")).toBe(600_000)
    expect(readDuration("x", "1h30m")).toBe(5_400_000)
    expect(readDuration("x", "1.5s")).toBe(1_500)
    expect(readDuration("x", "0")).toBe(0)
  })
})

describe("managerNamespace", () => {
  it("is POD_NAMESPACE, else the in-cluster namespace, else default", () => {
    const file = join(mkdtempSync(join(tmpdir(), "krtt-ns-")), "namespace")
    writeFileSync(file, "capi-system\n")
    expect(managerNamespace({ POD_NAMESPACE: "a" }, file)).toBe("a")
    expect(managerNamespace({}, file)).toBe("capi-system")
    expect(managerNamespace({}, NO_FILE)).toBe("default")
  })
})
