import { execFile } from "node:child_process"
import { promisify } from "node:util"
import * as Option from "effect/Option"
import { describe, expect, it } from "vitest"
import { IpamDefaults } from "../ipam/run.ts"
import { toIpamOptions } from "./ipam.ts"

const run = promisify(execFile)

/** The flags as the CLI parses them with nothing given but --config. */
const parsed = (
  overrides: Partial<Parameters<typeof toIpamOptions>[0]> = {},
): Parameters<typeof toIpamOptions>[0] => ({
  kubeconfig: Option.none(),
  config: "ipam",
  providerName: Option.none(),
  environment: IpamDefaults.environment,
  concurrency: IpamDefaults.concurrency,
  metricsBindAddress: IpamDefaults.metricsBindAddress,
  metricsSecure: true,
  metricsCertPath: "",
  metricsCertName: "tls.crt",
  metricsCertKey: "tls.key",
  webhookCertPath: "",
  webhookCertName: "tls.crt",
  webhookCertKey: "tls.key",
  webhookPort: 9443,
  enableHttp2: false,
  pprofBindAddress: "",
  disableWebhooks: false,
  dryRun: false,
  healthProbeBindAddress: IpamDefaults.healthProbeBindAddress,
  leaderElect: false,
  leaderElectNamespace: Option.some("krtt-ipam"),
  leaderElectId: IpamDefaults.leaderElectId,
  leaseDuration: "15s",
  renewDeadline: "10s",
  retryPeriod: "2s",
  kubeApiQps: IpamDefaults.kubeApiQps,
  kubeApiBurst: IpamDefaults.kubeApiBurst,
  gracefulShutdownTimeout: "30s",
  ...overrides,
})

describe("krtt ipam options", () => {
  it("has the documented defaults: upstream's run flags (metrics off, secure when on), controller-runtime's Lease timing, 10 workers, QPS 100, burst 200, 30 s to stop", () => {
    expect(IpamDefaults).toEqual({
      concurrency: 10,
      environment: "default",
      metricsBindAddress: "0",
      metricsSecure: true,
      metricsCertPath: "",
      metricsCertName: "tls.crt",
      metricsCertKey: "tls.key",
      webhookCertPath: "",
      webhookCertName: "tls.crt",
      webhookCertKey: "tls.key",
      webhookPort: 9443,
      enableHttp2: false,
      pprofBindAddress: "",
      healthProbeBindAddress: ":8081",
      leaderElect: false,
      leaderElectId: "krtt-ipam-leader-election",
      leaseDuration: 15_000,
      renewDeadline: 10_000,
      retryPeriod: 2_000,
      kubeApiQps: 100,
      kubeApiBurst: 200,
      gracefulShutdownTimeout: 30_000,
    })
    const options = toIpamOptions(parsed())
    expect(options).toMatchObject({
      config: "ipam",
      providerName: "ipam", // upstream: the PlatformService and its IPAMConfig share the name
      leaseDuration: 15_000,
      renewDeadline: 10_000,
      retryPeriod: 2_000,
      gracefulShutdownTimeout: 30_000,
    })
  })

  it("takes every value from its flag", () => {
    const options = toIpamOptions(
      parsed({
        providerName: Option.some("gardener-ipam"),
        environment: "prod",
        concurrency: 3,
        leaseDuration: "1m",
        gracefulShutdownTimeout: "5s",
      }),
    )
    expect(options).toMatchObject({
      providerName: "gardener-ipam",
      environment: "prod",
      concurrency: 3,
      leaseDuration: 60_000,
      gracefulShutdownTimeout: 5_000,
    })
  })

  it("refuses bad values, naming the flag", () => {
    expect(() => toIpamOptions(parsed({ config: " " }))).toThrow("--config")
    expect(() => toIpamOptions(parsed({ concurrency: 0 }))).toThrow("--concurrency")
    expect(() => toIpamOptions(parsed({ kubeApiQps: -1 }))).toThrow("--kube-api-qps")
    expect(() => toIpamOptions(parsed({ leaseDuration: "15" }))).toThrow("--leader-elect-lease-duration")
    expect(() => toIpamOptions(parsed({ webhookPort: 70_000 }))).toThrow("--webhook-port")
    expect(() => toIpamOptions(parsed({ metricsCertName: "" }))).toThrow("--metrics-cert-name")
    expect(() => toIpamOptions(parsed({ webhookCertKey: " " }))).toThrow("--webhook-cert-key")
  })

  it("is a subcommand of krtt whose help lists the manager's flags and --config", async () => {
    const help = await run(process.execPath, ["bin/krtt.js", "ipam", "--help"])
    for (const flag of [
      "--config",
      "--kubeconfig",
      "--leader-elect",
      "--metrics-bind-address",
      "--health-probe-bind-address",
    ])
      expect(help.stdout).toContain(flag)
  }, 60_000)

  it("accepts every flag of upstream's run (and its --environment, --provider-name, --disable-webhooks, --dry-run)", async () => {
    const out = await run(process.execPath, [
      "bin/krtt.js",
      "ipam",
      "--config",
      "ipam",
      "--dry-run",
      "--metrics-bind-address=:8443",
      "--metrics-secure=false",
      "--metrics-cert-path=/certs/m",
      "--metrics-cert-name=m.crt",
      "--metrics-cert-key=m.key",
      "--webhook-cert-path=/certs/w",
      "--webhook-cert-name=w.crt",
      "--webhook-cert-key=w.key",
      "--enable-http2",
      "--pprof-bind-address=:6060",
      "--health-probe-bind-address=:8082",
      "--leader-elect",
      "--environment=prod",
      "--provider-name=gardener-ipam",
      "--disable-webhooks",
    ])
    const [json, end] = out.stdout.split("=== END OF DRY RUN ===")
    expect(end).toBe("\n")
    expect(JSON.parse(json ?? "")).toMatchObject({
      metricsBindAddress: ":8443",
      metricsSecure: false,
      metricsCertPath: "/certs/m",
      metricsCertName: "m.crt",
      metricsCertKey: "m.key",
      webhookCertPath: "/certs/w",
      webhookCertName: "w.crt",
      webhookCertKey: "w.key",
      enableHttp2: true,
      pprofBindAddress: ":6060",
      healthProbeBindAddress: ":8082",
      leaderElect: true,
      environment: "prod",
      providerName: "gardener-ipam",
      webhooks: false,
    })
    const defaults = await run(process.execPath, ["bin/krtt.js", "ipam", "--config", "ipam", "--dry-run"])
    expect(JSON.parse(defaults.stdout.split("===")[0] ?? "")).toMatchObject({
      metricsBindAddress: "0",
      metricsSecure: true,
      webhooks: true,
    })
  }, 60_000)

  it("without a readable kubeconfig exits 2 naming the flag", async () => {
    const err = await run(process.execPath, [
      "bin/krtt.js",
      "ipam",
      "--config",
      "x",
      "--kubeconfig",
      "/nonexistent/kc",
    ]).catch((e: { code: number; stderr: string }) => e)
    expect("code" in err ? err.code : 0).toBe(2)
    expect(err.stderr).toContain("--kubeconfig")
  }, 60_000)
})
