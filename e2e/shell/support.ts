/**
 * Helpers of the shell's e2e tests: clients from testenv kubeconfigs, namespaces and CRDs of
 * their own on the shared control plane, polling, and a TCP proxy that plays an API server that
 * goes away and comes back (the harness cannot restart an apiserver).
 *
 * @module
 */

import { randomBytes } from "node:crypto"
import { KubeConfig } from "@kubernetes/client-node"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { KubeClientShape } from "../../shell/kube/client.ts"
import { resolveKind } from "../../shell/kube/discovery.ts"
import type { KubeError } from "../../shell/kube/errors.ts"
import type { ClientOptions } from "../../shell/kube/options.ts"
import type { ResourceRef } from "../../shell/kube/resource.ts"
import { Resources } from "../../shell/kube/resource.ts"
import { makeRestClient } from "../../shell/kube/restClient.ts"
import type { Cluster } from "../../testenv/controlplane.ts"
import { startTcpProxy } from "../fixtures/proxy.ts"

/** A random lower-case suffix for names of our own. */
export const suffix = (): string => randomBytes(4).toString("hex")

/** A KubeConfig from kubeconfig YAML, optionally pointed at another server URL (a proxy). */
export const kubeConfigOf = (yaml: string, server?: string): KubeConfig => {
  const kc = new KubeConfig()
  kc.loadFromString(yaml)
  if (server === undefined) return kc
  const out = new KubeConfig()
  out.loadFromOptions({
    clusters: kc.clusters.map((c) => ({ ...c, server })),
    users: kc.users,
    contexts: kc.contexts,
    currentContext: kc.currentContext,
  })
  return out
}

/** A REST client as the cluster's admin (or from another kubeconfig). */
export const clientOf = (
  cluster: Cluster,
  options: Partial<ClientOptions> & { readonly kubeconfig?: string; readonly server?: string } = {},
): Effect.Effect<KubeClientShape> =>
  makeRestClient(kubeConfigOf(options.kubeconfig ?? cluster.admin.kubeconfig, options.server), {
    qps: 100,
    burst: 200,
    ...options,
  })

/** A namespace of our own (names are random, so runs never collide). */
export const createNamespace = (client: KubeClientShape, prefix: string): Effect.Effect<string, KubeError> =>
  Effect.map(
    client.create(Resources.namespaces, { metadata: { name: `${prefix}-${suffix()}` } }),
    (ns) => ns.metadata.name ?? "",
  )

/** Retries `effect` every 100 ms until it succeeds, for at most `timeoutMs`. */
export const eventually = <A, E>(
  effect: Effect.Effect<A, E>,
  timeoutMs = 30_000,
): Effect.Effect<A, E | string> =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const r = yield* Effect.result(effect)
      if (r._tag === "Success") return r.success
      if (Date.now() > deadline) return yield* Effect.fail(r.failure)
      yield* Effect.sleep("100 millis")
    }
  })

/** Waits until `check` holds, for at most `timeoutMs`. */
export const until = (what: string, check: () => boolean, timeoutMs = 30_000): Effect.Effect<void, string> =>
  eventually(
    Effect.suspend(() => (check() ? Effect.void : Effect.fail(`timed out waiting for ${what}`))),
    timeoutMs,
  )

/** The Widget CRD of these tests (namespaced, with the status subresource). */
export const widgetGroup = "e2e-shell.krtt.dev"

export const widgetCrd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `widgets.${widgetGroup}` },
  spec: {
    group: widgetGroup,
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
              status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      },
    ],
  },
}

/** Installs the Widget CRD (shared by test files: AlreadyExists is fine) and waits until it is served. */
export const installWidgets = (client: KubeClientShape): Effect.Effect<ResourceRef, unknown> =>
  Effect.gen(function* () {
    yield* client
      .create(Resources.customResourceDefinitions, widgetCrd)
      .pipe(Effect.catchTag("AlreadyExists", () => Effect.void))
    return yield* eventually(resolveKind(client, { group: widgetGroup, version: "v1", kind: "Widget" }))
  })

/** A TCP proxy to `target` (`host:port`) that can go down (connections reset, refused) and up again. */
export interface Proxy {
  readonly url: string
  /** Resets every connection and stops listening. */
  readonly down: Effect.Effect<void>
  /** Listens again on the same port. */
  readonly up: Effect.Effect<void>
}

export const tcpProxy = (target: URL): Effect.Effect<Proxy, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.promise(() => startTcpProxy(target.toString())),
      (p) => Effect.promise(() => p.down()),
    ),
    (p): Proxy => ({ url: p.url, down: Effect.promise(() => p.down()), up: Effect.promise(() => p.up()) }),
  )
