import { X509Certificate } from "node:crypto"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { clusterCa } from "../chaos/clusterCa.ts"
import { makeAdminKubeconfig } from "./kubeconfigSecret.ts"

describe("the generated kubeconfig Secret", () => {
  it("holds a client certificate for kubernetes-admin (system:masters) signed by the cluster CA", () => {
    const ca = clusterCa()
    const now = Date.now()
    const kc = parse(makeAdminKubeconfig("c1", "https://10.0.0.1:6443", ca, now)) as {
      clusters: Array<{ cluster: { server: string; "certificate-authority-data": string } }>
      users: Array<{ user: { "client-certificate-data": string; "client-key-data": string } }>
      "current-context": string
    }
    expect(kc.clusters[0]?.cluster.server).toBe("https://10.0.0.1:6443")
    expect(
      Buffer.from(kc.clusters[0]?.cluster["certificate-authority-data"] ?? "", "base64").toString(),
    ).toBe(ca.certificate)
    const client = new X509Certificate(
      Buffer.from(kc.users[0]?.user["client-certificate-data"] ?? "", "base64"),
    )
    const caCert = new X509Certificate(ca.certificate)
    expect(client.verify(caCert.publicKey)).toBe(true)
    expect(client.checkIssued(caCert)).toBe(true)
    expect(client.subject).toContain("CN=kubernetes-admin")
    expect(client.subject).toContain("O=system:masters")
    expect(new Date(client.validTo).getTime()).toBeGreaterThan(now + 364 * 24 * 3_600_000)
    expect(Buffer.from(kc.users[0]?.user["client-key-data"] ?? "", "base64").toString()).toContain(
      "BEGIN PRIVATE KEY",
    )
    expect(kc["current-context"]).toBe("c1-admin@c1")
  })
})
