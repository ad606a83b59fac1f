/**
 * The `<cluster>-kubeconfig` Secret that the Cluster controller writes for a Cluster without a
 * controlPlaneRef: an admin kubeconfig for the Cluster's endpoint, with a client certificate
 * signed by the cluster CA (`<cluster>-ca`, keys `tls.crt` and `tls.key`), as Cluster API does.
 *
 * Keys come from Node's crypto; the certificate is built and signed with node-forge (Node has no
 * API to issue X.509 certificates). Keys and the kubeconfig are never logged.
 *
 * @module
 */
import { generateKeyPairSync } from "node:crypto"
import forge from "node-forge"
import { stringify } from "yaml"

/** One year, as Cluster API's generated kubeconfigs. */
export const CLIENT_CERTIFICATE_VALIDITY_MS = 365 * 24 * 3_600_000

export interface ClusterCa {
  /** PEM of the CA certificate. */
  readonly certificate: string
  /** PEM of the CA private key (PKCS#1 or PKCS#8). */
  readonly key: string
}

/** A kubeconfig for `cluster` at `server`, authenticating as `kubernetes-admin` (group system:masters). */
export const makeAdminKubeconfig = (cluster: string, server: string, ca: ClusterCa, now: number): string => {
  const caCert = forge.pki.certificateFromPem(ca.certificate)
  const caKey = forge.pki.privateKeyFromPem(ca.key)
  const keys = generateKeyPairSync("rsa", { modulusLength: 2048 })
  const cert = forge.pki.createCertificate()
  cert.publicKey = forge.pki.publicKeyFromPem(
    keys.publicKey.export({ type: "spki", format: "pem" }).toString(),
  )
  cert.serialNumber = `01${now.toString(16)}`
  cert.validity.notBefore = new Date(now - 60_000)
  cert.validity.notAfter = new Date(now + CLIENT_CERTIFICATE_VALIDITY_MS)
  cert.setSubject([
    { name: "commonName", value: "kubernetes-admin" },
    { name: "organizationName", value: "system:masters" },
  ])
  cert.setIssuer(caCert.subject.attributes)
  cert.setExtensions([
    { name: "keyUsage", critical: true, digitalSignature: true, keyEncipherment: true },
    { name: "extKeyUsage", clientAuth: true },
  ])
  cert.sign(caKey, forge.md.sha256.create())
  const certificate = forge.pki.certificateToPem(cert)
  const key = keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString()
  const user = `${cluster}-admin`
  const context = `${user}@${cluster}`
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: cluster,
        cluster: { server, "certificate-authority-data": Buffer.from(ca.certificate).toString("base64") },
      },
    ],
    users: [
      {
        name: user,
        user: {
          "client-certificate-data": Buffer.from(certificate).toString("base64"),
          "client-key-data": Buffer.from(key).toString("base64"),
        },
      },
    ],
    contexts: [{ name: context, context: { cluster, user } }],
    "current-context": context,
  })
}
