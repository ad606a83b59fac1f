// The files the control plane hands out and reads: kubeconfigs and the static token file.
import { stringify } from "yaml"

export interface KubeconfigInput {
  /** Name of the cluster and of the context, e.g. `cluster-0`. */
  readonly cluster: string
  readonly server: string
  /** PEM of the apiserver's certificate authority. */
  readonly ca: string
  readonly user: string
  readonly token: string
}

/** A kubeconfig with one cluster, one user (bearer token) and the context joining them, selected. */
export const renderKubeconfig = (input: KubeconfigInput): string => {
  const context = input.user === "admin" ? input.cluster : `${input.user}@${input.cluster}`
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: input.cluster,
        cluster: {
          server: input.server,
          "certificate-authority-data": Buffer.from(input.ca, "utf8").toString("base64"),
        },
      },
    ],
    users: [{ name: input.user, user: { token: input.token } }],
    contexts: [{ name: context, context: { cluster: input.cluster, user: input.user } }],
    "current-context": context,
    preferences: {},
  })
}

export interface StaticUser {
  readonly name: string
  readonly token: string
  readonly groups: ReadonlyArray<string>
}

const csvField = (value: string): string => {
  if (/[",\n\r]/.test(value))
    throw new Error(`token file fields cannot hold quotes, commas or newlines: ${value}`)
  return value
}

/**
 * kube-apiserver's `--token-auth-file`: `token,user,uid,"group1,group2"` per line. The uid is
 * the user name. Users with no groups still get `system:authenticated` from the apiserver.
 */
export const renderTokenFile = (users: ReadonlyArray<StaticUser>): string =>
  users
    .map((u) => {
      const fields = [csvField(u.token), csvField(u.name), csvField(u.name)]
      if (u.groups.length > 0) fields.push(`"${u.groups.map(csvField).join(",")}"`)
      return fields.join(",")
    })
    .join("\n")
    .concat("\n")
