import { generateKeyPairSync, X509Certificate } from "node:crypto"
import forge from "node-forge"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { makeAdminKubeconfig } from "./kubeconfigSecret.ts"

/** A self-signed cluster CA, as a `<cluster>-ca` Secret holds it (PKCS#1 key, as kubeadm writes). */
const makeCa = () => {
  const keys = generateKeyPairSync("rsa", { modulusLength: 2048 })
  const cert = forge.pki.createCertificate()
  cert.publicKey = forge.pki.publicKeyFromPem(
    keys.publicKey.export({ type: "spki", format: "pem" }).toString(),
  )
  cert.serialNumber = "01"
  cert.validity.notBefore = new Date(Date.now() - 60_000)
  cert.validity.notAfter = new Date(Date.now() + 3_600_000)
  const subject = [{ name: "commonName", value: "kubernetes" }]
  cert.setSubject(subject)
  cert.setIssuer(subject)
  cert.setExtensions([{ name: "basicConstraints", cA: true }])
  const pkcs1 = keys.privateKey.export({ type: "pkcs1", format: "pem" }).toString()
  cert.sign(forge.pki.privateKeyFromPem(pkcs1), forge.md.sha256.create())
  return { certificate: forge.pki.certificateToPem(cert), key: pkcs1 }
}

describe("the generated kubeconfig Secret", () => {
  it("holds a client certificate for kubernetes-admin (system:masters) signed by the cluster CA", () => {
    const ca = makeCa()
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
