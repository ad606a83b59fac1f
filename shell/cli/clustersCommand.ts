/**
 * `krtt clusters` on the command line: its flags. What runs it (`clusters.ts`: the provider, the
 * hub client, the report) is loaded when it runs.
 *
 * @module
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import type { ClustersFlags } from "./clusters.ts"

const flags = {
  kubeconfig: Flag.String("kubeconfig").pipe(
    Flag.optional,
    Flag.withDescription(
      "The hub's kubeconfig; else $KUBECONFIG, the in-cluster service account, ~/.kube/config",
    ),
  ),
  provider: Flag.String("provider").pipe(
    Flag.optional,
    Flag.withDescription(
      "The cluster provider: kubeconfig-secrets, kubeconfig-file, namespaces, cluster-api, cluster-inventory-api (a comma-separated list composes them)",
    ),
  ),
  providerNamespace: Flag.String("provider-namespace").pipe(
    Flag.optional,
    Flag.withDescription(
      "kubeconfig-secrets: the namespace of the Secrets; cluster-api: only Clusters of this namespace",
    ),
  ),
  providerKubeconfig: Flag.String("provider-kubeconfig").pipe(
    Flag.optional,
    Flag.withDescription("kubeconfig-file: the file whose contexts are the clusters"),
  ),
  providerAccessConfig: Flag.String("provider-access-config").pipe(
    Flag.optional,
    Flag.withDescription(
      "cluster-inventory-api: the JSON file naming the access providers of the ClusterProfiles",
    ),
  ),
  providerProbeInterval: Flag.String("provider-probe-interval").pipe(
    Flag.optional,
    Flag.withDescription(
      "kubeconfig-secrets, kubeconfig-file: time between health probes of an engaged cluster (default 10s; 0 turns them off)",
    ),
  ),
  json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON")),
  watch: Flag.Boolean("watch").pipe(
    Flag.withDefault(false),
    Flag.withDescription("Print on every change until interrupted"),
  ),
  timeout: Flag.String("timeout").pipe(
    Flag.withDefault("2m"),
    Flag.withDescription("Once mode: stop waiting for verdicts after this (default 2m)"),
  ),
}

const opt = (o: { readonly _tag: "Some"; readonly value: string } | { readonly _tag: "None" }) =>
  o._tag === "Some" ? o.value : undefined

/** The `clusters` subcommand. */
export const clustersCommand = Command.make("clusters", flags, (f) => {
  const parsed: ClustersFlags = {
    kubeconfig: opt(f.kubeconfig),
    provider: opt(f.provider),
    providerNamespace: opt(f.providerNamespace),
    providerKubeconfig: opt(f.providerKubeconfig),
    providerAccessConfig: opt(f.providerAccessConfig),
    providerProbeInterval: opt(f.providerProbeInterval),
    json: f.json,
    watch: f.watch,
    timeout: f.timeout,
  }
  return Effect.flatMap(
    Effect.promise(() => import("./clusters.ts")),
    ({ clustersMain }) => clustersMain(parsed),
  )
}).pipe(Command.withDescription("Run a cluster provider and print its clusters: engaged, healthy, and why"))
