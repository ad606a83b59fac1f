/**
 * A cluster CA as Cluster API keeps it: the Secret `<cluster>-ca` with `tls.crt` and `tls.key`
 * (PEM, the key as PKCS#1), from which the Cluster controller generates the kubeconfig Secret of
 * a Cluster that has no control plane provider.
 *
 * @module
 */
import { generateKeyPairSync, randomBytes } from "node:crypto"
import forge from "node-forge"

/** The Secret `<cluster>-ca` of a fresh self-signed CA. */
export const caSecret = (namespace: string, cluster: string) => {
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  })
  const key = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey
  const cert = forge.pki.createCertificate()
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e)
  cert.serialNumber = `01${randomBytes(8).toString("hex")}`
  cert.validity.notBefore = new Date(Date.now() - 60_000)
  cert.validity.notAfter = new Date(Date.now() + 24 * 3_600_000)
  const name = [{ name: "commonName", value: `${cluster}-ca` }]
  cert.setSubject(name)
  cert.setIssuer(name)
  cert.setExtensions([
    { name: "basicConstraints", cA: true },
    { name: "keyUsage", keyCertSign: true, digitalSignature: true, keyEncipherment: true },
  ])
  cert.sign(key, forge.md.sha256.create())
  const b64 = (pem: string) => Buffer.from(pem, "utf8").toString("base64")
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: `${cluster}-ca`, namespace, labels: { "cluster.x-k8s.io/cluster-name": cluster } },
    type: "cluster.x-k8s.io/secret",
    data: {
      "tls.crt": b64(forge.pki.certificateToPem(cert)),
      "tls.key": b64(forge.pki.privateKeyToPem(key)),
    },
  }
}
