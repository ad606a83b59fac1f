/**
 * A cluster CA as a `<cluster>-ca` Secret holds it (`tls.crt`, `tls.key`: PEM, the key PKCS#1 as
 * kubeadm writes it), for the scenario in which the Cluster controller makes the kubeconfig
 * Secret itself. Made once per process: its key is random, so the operator suite masks the data of
 * the Secrets it signs (`GeneratedPrefix`).
 *
 * @module
 */
import { generateKeyPairSync } from "node:crypto"
import forge from "node-forge"

/** The Cluster of the scenario whose kubeconfig Secret the controller makes (and its Secrets' prefix). */
export const GeneratedCluster = "g1"
export const GeneratedPrefix = `${GeneratedCluster}-`

let made: { readonly certificate: string; readonly key: string } | undefined

/** The CA's certificate and key, PEM. */
export const clusterCa = (): { readonly certificate: string; readonly key: string } => {
  if (made !== undefined) return made
  const keys = generateKeyPairSync("rsa", { modulusLength: 2048 })
  const cert = forge.pki.createCertificate()
  cert.publicKey = forge.pki.publicKeyFromPem(
    keys.publicKey.export({ type: "spki", format: "pem" }).toString(),
  )
  cert.serialNumber = "01"
  // Valid around any virtual time a run reaches (TestClock starts at 0).
  cert.validity.notBefore = new Date(0)
  cert.validity.notAfter = new Date(Date.UTC(2100, 0, 1))
  const subject = [{ name: "commonName", value: "kubernetes" }]
  cert.setSubject(subject)
  cert.setIssuer(subject)
  cert.setExtensions([{ name: "basicConstraints", cA: true }])
  const key = keys.privateKey.export({ type: "pkcs1", format: "pem" }).toString()
  cert.sign(forge.pki.privateKeyFromPem(key), forge.md.sha256.create())
  made = { certificate: forge.pki.certificateToPem(cert), key }
  return made
}
