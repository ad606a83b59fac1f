import * as Option from "effect/Option"
import { describe, expect, it } from "vitest"
import { toIpamInitOptions } from "./ipamInit.ts"

const parsed = (
  overrides: Partial<Parameters<typeof toIpamInitOptions>[0]> = {},
): Parameters<typeof toIpamInitOptions>[0] => ({
  kubeconfig: Option.none(),
  providerName: "ipam",
  namespace: Option.some("openmcp-system"),
  environment: "default",
  disableWebhooks: false,
  dryRun: false,
  webhooksBaseUrl: Option.none(),
  webhooksAdditionalSans: "",
  webhookPort: 9443,
  webhooksServicePort: 443,
  certificateValidity: "87600h",
  ...overrides,
})

describe("krtt ipam init options", () => {
  it("takes every value from its flag; SANs split at commas", () => {
    expect(
      toIpamInitOptions(
        parsed({
          disableWebhooks: true,
          webhooksBaseUrl: Option.some("https://localhost:9443"),
          webhooksAdditionalSans: "localhost, ipam.example.com,",
        }),
      ),
    ).toEqual({
      providerName: "ipam",
      namespace: "openmcp-system",
      webhooks: false,
      baseUrl: "https://localhost:9443",
      additionalSans: ["localhost", "ipam.example.com"],
      webhookPort: 9443,
      servicePort: 443,
      certificateValidity: 87_600 * 3_600_000,
    })
  })
  it("takes the namespace from $POD_NAMESPACE as upstream does, else default", () => {
    const before = process.env.POD_NAMESPACE
    try {
      process.env.POD_NAMESPACE = "pod-ns"
      expect(toIpamInitOptions(parsed({ namespace: Option.none() })).namespace).toBe("pod-ns")
      delete process.env.POD_NAMESPACE
      expect(toIpamInitOptions(parsed({ namespace: Option.none() })).namespace).toBe("default")
    } finally {
      if (before === undefined) delete process.env.POD_NAMESPACE
      else process.env.POD_NAMESPACE = before
    }
  })
  it("refuses bad values, naming the flag", () => {
    expect(() => toIpamInitOptions(parsed({ providerName: " " }))).toThrow("--provider-name")
    expect(() => toIpamInitOptions(parsed({ webhookPort: 0 }))).toThrow("--webhook-port")
    expect(() => toIpamInitOptions(parsed({ webhooksServicePort: 70_000 }))).toThrow(
      "--webhooks-service-port",
    )
    expect(() => toIpamInitOptions(parsed({ certificateValidity: "ten years" }))).toThrow(
      "--webhooks-certificate-validity",
    )
    expect(() => toIpamInitOptions(parsed({ webhooksBaseUrl: Option.some("http://x") }))).toThrow(
      "--webhooks-base-url",
    )
  })
})
