/**
 * Access to a cluster of a SIG-Multicluster `ClusterProfile` (`multicluster.x-k8s.io/v1alpha1`)
 * through its access providers, as cluster-inventory-api's `access.Config.BuildConfigFromCP`
 * (KEP-4322, KEP-5339): the consumer's access configuration names the access providers it
 * supports, each with an exec plugin; the profile's `status.accessProviders` (and the deprecated
 * `status.credentialProviders`, overridden by an entry of the same name) give each provider's
 * cluster connection details. The first configured provider the profile has wins.
 *
 * The result is a kubeconfig: the profile's server, CA, TLS server name and proxy, and a user
 * that runs the provider's exec plugin (never interactive). Profile-sourced plugin arguments and
 * environment variables (extensions `clusterprofiles.multicluster.x-k8s.io/exec/additional-args`
 * and `.../additional-envs`) are applied per the provider's policies; with `provideClusterInfo`
 * the plugin gets `KUBERNETES_EXEC_INFO` with the cluster, the extension
 * `client.authentication.k8s.io/exec` as its `config`.
 *
 * Everything here is pure; a profile that cannot be used is a `ProfileAccessError` whose message
 * names the profile and the field, never a credential.
 *
 * @module
 */
import { createHash } from "node:crypto"
import * as Data from "effect/Data"
import * as Result from "effect/Result"
import { closestKey } from "../../../core/krtt/suggest.ts"
import type { KubeObject, ResourceRef } from "../../kube/resource.ts"
import { ProviderUsageError } from "./errors.ts"

/** The ClusterProfile resource of the Cluster Inventory API. */
export const ClusterProfiles: ResourceRef = {
  group: "multicluster.x-k8s.io",
  version: "v1alpha1",
  resource: "clusterprofiles",
  kind: "ClusterProfile",
  namespaced: true,
}

/**
 * A profile's cluster cannot be reached with the consumer's access configuration: no configured
 * provider offered, no server, or extra plugin arguments or variables the policies refuse. The
 * message names the profile and the field, never a credential.
 */
export class ProfileAccessError extends Data.TaggedError("ProfileAccessError")<{
  readonly message: string
}> {}

const refuse = (message: string) => Result.fail(new ProfileAccessError({ message }))

/** The condition upstream's provider reads for readiness. */
export const ControlPlaneHealthy = "ControlPlaneHealthy"
export const ExecExtension = "client.authentication.k8s.io/exec"
export const ArgsExtension = "clusterprofiles.multicluster.x-k8s.io/exec/additional-args"
export const EnvsExtension = "clusterprofiles.multicluster.x-k8s.io/exec/additional-envs"

/** A kubeconfig `Cluster` (v1) as an access provider carries it. */
export interface AccessCluster {
  readonly server?: string
  readonly "certificate-authority-data"?: string
  readonly "insecure-skip-tls-verify"?: boolean
  readonly "tls-server-name"?: string
  readonly "proxy-url"?: string
  readonly extensions?: ReadonlyArray<{ readonly name: string; readonly extension?: unknown }>
}

/** One entry of `status.accessProviders`. */
export interface AccessProvider {
  readonly name: string
  readonly cluster?: AccessCluster
}

/** A ClusterProfile, with the fields this provider reads. */
export interface ClusterProfile extends KubeObject {
  readonly spec?: { readonly displayName?: string; readonly clusterManager?: { readonly name?: string } }
  readonly status?: {
    readonly conditions?: ReadonlyArray<{ readonly type: string; readonly status: string }>
    readonly accessProviders?: ReadonlyArray<AccessProvider>
    readonly credentialProviders?: ReadonlyArray<AccessProvider>
  }
}

/** An exec plugin, as in a kubeconfig's `users[].user.exec`. */
export interface ExecConfig {
  readonly apiVersion: string
  readonly command: string
  readonly args?: ReadonlyArray<string> | null | undefined
  readonly env?: ReadonlyArray<{ readonly name: string; readonly value: string }> | null | undefined
  readonly provideClusterInfo?: boolean | undefined
}

/** One access provider the consumer supports (cluster-inventory-api's `access.Provider`). */
export interface AccessProviderConfig {
  readonly name: string
  readonly execConfig: ExecConfig
  /** `Append` the profile's extra arguments, or `Ignore` them (default). */
  readonly profileSourcedCLIArgsPolicy?: "Append" | "Ignore" | "" | undefined
  /** `AppendIfNotExists`, `Replace`, or `Ignore` (default) the profile's extra variables. */
  readonly profileSourcedEnvVarsPolicy?: "AppendIfNotExists" | "Replace" | "Ignore" | "" | undefined
}

/** The consumer's access configuration (`--provider-access-config FILE`, upstream's `-clusterprofile-provider-file`). */
export interface AccessConfig {
  readonly providers: ReadonlyArray<AccessProviderConfig>
}

/** Whether the profile's `ControlPlaneHealthy` condition is `True` (upstream's default `IsReady`). */
export const isReady = (profile: ClusterProfile): boolean =>
  (profile.status?.conditions ?? []).some((c) => c.type === ControlPlaneHealthy && c.status === "True")

/** The profile's access provider the configuration picks, or `undefined`. */
export const pickAccessProvider = (
  profile: ClusterProfile,
  config: AccessConfig,
): { readonly provider: AccessProviderConfig; readonly access: AccessProvider } | undefined => {
  const byName = new Map<string, AccessProvider>()
  for (const a of profile.status?.credentialProviders ?? []) byName.set(a.name, a)
  for (const a of profile.status?.accessProviders ?? []) byName.set(a.name, a)
  for (const provider of config.providers) {
    const access = byName.get(provider.name)
    if (access !== undefined) return { provider, access }
  }
  return undefined
}

const isStrings = (u: unknown): u is ReadonlyArray<string> =>
  Array.isArray(u) && u.every((x) => typeof x === "string")
const isStringMap = (u: unknown): u is Readonly<Record<string, string>> =>
  typeof u === "object" &&
  u !== null &&
  !Array.isArray(u) &&
  Object.values(u).every((x) => typeof x === "string")

type Env = ReadonlyArray<{ readonly name: string; readonly value: string }>

/** The plugin's arguments after the profile's extra ones, per the policy. */
const withArgs = (
  base: ReadonlyArray<string>,
  extra: unknown,
  policy: AccessProviderConfig["profileSourcedCLIArgsPolicy"],
  where: string,
): Result.Result<ReadonlyArray<string>, ProfileAccessError> => {
  if (extra === undefined || policy === undefined || policy === "" || policy === "Ignore")
    return Result.succeed(base)
  if (policy !== "Append") return refuse(`${where}: unsupported profileSourcedCLIArgsPolicy "${policy}"`)
  return isStrings(extra)
    ? Result.succeed([...base, ...extra])
    : refuse(`${where}: extension ${ArgsExtension} must be a list of strings`)
}

/** The plugin's environment after the profile's extra variables, per the policy. */
const withEnv = (
  base: Env,
  extra: unknown,
  policy: AccessProviderConfig["profileSourcedEnvVarsPolicy"],
  where: string,
): Result.Result<Env, ProfileAccessError> => {
  if (extra === undefined || policy === undefined || policy === "" || policy === "Ignore")
    return Result.succeed(base)
  if (policy !== "AppendIfNotExists" && policy !== "Replace")
    return refuse(`${where}: unsupported profileSourcedEnvVarsPolicy "${policy}"`)
  if (!isStringMap(extra)) return refuse(`${where}: extension ${EnvsExtension} must be a map of strings`)
  const env = new Map(Object.entries(extra))
  for (const { name, value } of base)
    if (policy === "AppendIfNotExists" || !env.has(name)) env.set(name, value)
  return Result.succeed(
    [...env.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, value]) => ({ name, value })),
  )
}

/** A kubeconfig (for `KubeConfig.loadFromOptions`) that reaches the profile's cluster. */
export interface ProfileKubeconfig {
  readonly clusters: ReadonlyArray<Record<string, unknown>>
  readonly users: ReadonlyArray<Record<string, unknown>>
  readonly contexts: ReadonlyArray<Record<string, unknown>>
  readonly currentContext: string
  /** Changes exactly when the endpoint or the plugin invocation does. */
  readonly generation: string
}

/** The exec plugin invocation of a profile's user, as a kubeconfig's `users[].user.exec`. */
interface ExecPlugin {
  readonly apiVersion: string
  readonly command: string
  readonly args: Array<string>
  readonly env: Array<{ readonly name: string; readonly value: string }>
  readonly interactiveMode: string
  readonly provideClusterInfo: boolean
}

/**
 * The provider's exec plugin for `cluster`: the profile's extra arguments and variables applied
 * per the provider's policies, and `KUBERNETES_EXEC_INFO` with `provideClusterInfo`; else a
 * `ProfileAccessError` naming the profile and the field.
 */
const execPlugin = (
  provider: AccessProviderConfig,
  cluster: AccessCluster & { readonly server: string },
  where: string,
): Result.Result<ExecPlugin, ProfileAccessError> => {
  const ext = new Map((cluster.extensions ?? []).map((e) => [e.name, e.extension]))
  const args = withArgs(
    provider.execConfig.args ?? [],
    ext.get(ArgsExtension),
    provider.profileSourcedCLIArgsPolicy,
    where,
  )
  if (Result.isFailure(args)) return Result.fail(args.failure)
  const env0 = withEnv(
    provider.execConfig.env ?? [],
    ext.get(EnvsExtension),
    provider.profileSourcedEnvVarsPolicy,
    where,
  )
  if (Result.isFailure(env0)) return Result.fail(env0.failure)
  const info = {
    apiVersion: provider.execConfig.apiVersion,
    kind: "ExecCredential",
    spec: {
      interactive: false,
      cluster: {
        server: cluster.server,
        "certificate-authority-data": cluster["certificate-authority-data"],
        "tls-server-name": cluster["tls-server-name"],
        "proxy-url": cluster["proxy-url"],
        "insecure-skip-tls-verify": cluster["insecure-skip-tls-verify"],
        config: ext.get(ExecExtension),
      },
    },
  }
  const env =
    provider.execConfig.provideClusterInfo === true
      ? [...env0.success, { name: "KUBERNETES_EXEC_INFO", value: JSON.stringify(info) }]
      : env0.success
  return Result.succeed({
    apiVersion: provider.execConfig.apiVersion,
    command: provider.execConfig.command,
    args: [...args.success],
    env: [...env],
    interactiveMode: "Never",
    provideClusterInfo: provider.execConfig.provideClusterInfo === true,
  })
}

/** The kubeconfig of one cluster and one exec user, its generation a hash of both. */
const kubeconfigOf = (
  where: string,
  providerName: string,
  cluster: AccessCluster & { readonly server: string },
  exec: ExecPlugin,
): ProfileKubeconfig => {
  const generation = createHash("sha256")
    .update(JSON.stringify([cluster, exec]))
    .digest("hex")
    .slice(0, 16)
  // The exec library caches credentials by user name: a name per profile and invocation keeps
  // one profile's token from being used for another.
  const user = `${where}#${providerName}#${generation}`
  return {
    clusters: [
      {
        name: "profile",
        server: cluster.server,
        ...(cluster["certificate-authority-data"] === undefined
          ? {}
          : { caData: cluster["certificate-authority-data"] }),
        ...(cluster["insecure-skip-tls-verify"] === true ? { skipTLSVerify: true } : {}),
        ...(cluster["tls-server-name"] === undefined ? {} : { tlsServerName: cluster["tls-server-name"] }),
        ...(cluster["proxy-url"] === undefined ? {} : { proxyUrl: cluster["proxy-url"] }),
      },
    ],
    users: [{ name: user, exec }],
    contexts: [{ name: "profile", cluster: "profile", user }],
    currentContext: "profile",
    generation,
  }
}

/**
 * The kubeconfig of the profile's cluster through the first access provider of `config` that
 * the profile offers; else a `ProfileAccessError` naming the profile and the field.
 */
export const profileKubeconfig = (
  profile: ClusterProfile,
  config: AccessConfig,
): Result.Result<ProfileKubeconfig, ProfileAccessError> => {
  const where = `ClusterProfile ${profile.metadata.namespace ?? ""}/${profile.metadata.name ?? ""}`
  const picked = pickAccessProvider(profile, config)
  if (picked === undefined) {
    const offered = (profile.status?.accessProviders ?? []).map((a) => a.name)
    return refuse(
      `${where}: status.accessProviders offers none of the configured providers (${config.providers.map((p) => p.name).join(", ")}; offered: ${offered.join(", ") || "none"})`,
    )
  }
  const { provider, access } = picked
  const cluster = access.cluster ?? {}
  const server = cluster.server
  if (server === undefined || server === "")
    return refuse(`${where}: status.accessProviders[${access.name}].cluster.server is empty`)
  // The same keys in the same order as the profile's (the generation hashes them).
  const withServer = { ...cluster, server }
  const exec = execPlugin(provider, withServer, where)
  if (Result.isFailure(exec)) return Result.fail(exec.failure)
  return Result.succeed(kubeconfigOf(where, provider.name, withServer, exec.success))
}

const PROVIDER_KEYS = ["name", "execConfig", "profileSourcedCLIArgsPolicy", "profileSourcedEnvVarsPolicy"]
const EXEC_KEYS = [
  "apiVersion",
  "command",
  "args",
  "env",
  "provideClusterInfo",
  "interactiveMode",
  "installHint",
]

/** The first key of `o` outside `known`, as `at.key: unknown key ...; did you mean ...?`. */
const unknownKey = (o: object, known: ReadonlyArray<string>, at: string): string | undefined => {
  const key = Object.keys(o).find((k) => !known.includes(k))
  if (key === undefined) return undefined
  const near = closestKey(key, known)
  return `${at}.${key}: unknown key "${key}"${near === undefined ? "" : `; did you mean "${near}"?`} (known keys: ${known.join(", ")})`
}

/** Why a parsed access configuration is refused (an unknown key, a missing field), naming the field. */
const accessConfigProblem = (u: unknown, where: string): string | undefined => {
  if (typeof u !== "object" || u === null || !Array.isArray((u as { providers?: unknown }).providers))
    return `${where}: providers: expected a list of access providers`
  const top = unknownKey(u, ["providers"], where)
  if (top !== undefined) return top
  const providers = (u as { providers: ReadonlyArray<unknown> }).providers
  for (const [i, p] of providers.entries()) {
    const at = `${where}: providers[${i}]`
    if (typeof p !== "object" || p === null) return `${at}: expected an object`
    const bad = unknownKey(p, PROVIDER_KEYS, at)
    if (bad !== undefined) return bad
    const { name, execConfig } = p as {
      name?: unknown
      execConfig?: { command?: unknown; apiVersion?: unknown }
    }
    if (typeof name !== "string" || name === "") return `${at}.name: required`
    if (typeof execConfig !== "object" || execConfig === null) return `${at}.execConfig: required`
    const badExec = unknownKey(execConfig, EXEC_KEYS, `${at}.execConfig`)
    if (badExec !== undefined) return badExec
    if (typeof execConfig.command !== "string" || execConfig.command === "")
      return `${at}.execConfig.command: required`
    if (typeof execConfig.apiVersion !== "string" || execConfig.apiVersion === "")
      return `${at}.execConfig.apiVersion: required`
  }
  return undefined
}

/**
 * Checks a parsed access configuration: unknown keys refused, required fields present; else a
 * `ProviderUsageError` on `--provider-access-config` whose message names the field.
 */
export const checkAccessConfig = (
  u: unknown,
  where: string,
): Result.Result<AccessConfig, ProviderUsageError> => {
  const problem = accessConfigProblem(u, where)
  return problem === undefined
    ? Result.succeed(u as AccessConfig)
    : Result.fail(new ProviderUsageError({ flag: "--provider-access-config", message: problem }))
}
