/**
 * Test doubles of the providers' unit tests: a recording `Aware` (engage and disengage calls,
 * how often each engage scope was closed), workload clusters as in-memory fakes reached through
 * kubeconfigs, and a bounded wait on virtual time that fails instead of hanging.
 *
 * @module
 */
import type { KubeConfig } from "@kubernetes/client-node"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import { TestClock } from "effect/testing"
import { makeMemoryClient } from "../../apiserver/memoryClient.ts"
import { FakeApiServer } from "../../apiserver/server.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import { Unauthorized } from "../../kube/errors.ts"
import { type Aware, type Cluster, EngageFailedError } from "../types.ts"
import type { ClientFactory } from "./kubeconfig.ts"

/** One engage call and what became of its scope. */
export interface Engagement {
  readonly cluster: Cluster
  /** How many times the engage scope has been closed (must end at exactly 1). */
  closed: number
}

/** An `Aware` that records what it is told. */
export interface RecordingAware extends Aware {
  /** `engage <name> <generation>` / `disengage <name> <generation>`, in order. */
  readonly events: Array<string>
  readonly engagements: Array<Engagement>
  /** The engagements whose scope is still open, by cluster name. */
  readonly open: () => ReadonlyMap<string, Engagement>
}

/** A recording Aware; `fail` names clusters whose engage fails. */
export const recordingAware = (fail: (cluster: Cluster) => boolean = () => false): RecordingAware => {
  const events: Array<string> = []
  const engagements: Array<Engagement> = []
  return {
    events,
    engagements,
    open: () => new Map(engagements.filter((e) => e.closed === 0).map((e) => [e.cluster.name, e])),
    engage: (cluster, scope) =>
      Effect.gen(function* () {
        events.push(`engage ${cluster.name} ${cluster.generation}`)
        const e: Engagement = { cluster, closed: 0 }
        engagements.push(e)
        yield* Scope.addFinalizer(
          scope,
          Effect.sync(() => {
            e.closed++
          }),
        )
        if (fail(cluster)) {
          return yield* new EngageFailedError({ cluster: cluster.name, message: "the test refused it" })
        }
      }),
    disengage: (cluster) =>
      Effect.sync(() => {
        events.push(`disengage ${cluster.name} ${cluster.generation}`)
      }),
  }
}

/** A kubeconfig (YAML) for `server` with a bearer `token`. */
export const kubeconfigYaml = (server: string, token: string, context = "ctx"): string => `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}"}}]
users: [{name: u, user: {token: ${token}}}]
contexts: [{name: ${context}, context: {cluster: c, user: u}}]
current-context: ${context}
`

/** Workload clusters as fakes by server URL; tokens are accepted until revoked. */
export interface Workloads {
  readonly server: (url: string) => Effect.Effect<FakeApiServer>
  readonly factory: ClientFactory
  /** Tokens the probe refuses with 401 from now on. */
  readonly revoked: Set<string>
  /** Every client built: server URL and the token it carries. */
  readonly built: Array<{ readonly server: string; readonly token: string | undefined }>
}

export const workloads = (): Workloads => {
  const fakes = new Map<string, FakeApiServer>()
  const revoked = new Set<string>()
  const built: Array<{ readonly server: string; readonly token: string | undefined }> = []
  const server = (url: string) =>
    Effect.gen(function* () {
      const existing = fakes.get(url)
      if (existing !== undefined) return existing
      const fake = yield* FakeApiServer.make()
      fakes.set(url, fake)
      return fake
    })
  const factory: ClientFactory = (kc: KubeConfig) =>
    Effect.gen(function* () {
      const url = kc.getCurrentCluster()?.server ?? ""
      const token = kc.getCurrentUser()?.token
      built.push({ server: url, token })
      const client = yield* makeMemoryClient(yield* server(url))
      return {
        ...client,
        probe: (o) =>
          token !== undefined && revoked.has(token)
            ? Effect.fail(new Unauthorized({ verb: "probe", path: "/", message: "token revoked" }))
            : client.probe(o),
      } satisfies KubeClientShape
    })
  return { server, factory, revoked, built }
}

/**
 * Moves virtual time 1 ms at a time until `check` holds; fails after `steps` steps (so a broken
 * provider fails the test instead of hanging it).
 */
export const until = (what: string, check: () => boolean, steps = 500): Effect.Effect<void, string> =>
  Effect.gen(function* () {
    for (let i = 0; i < steps; i++) {
      if (check()) return
      yield* TestClock.adjust("1 millis")
    }
    if (!check()) return yield* Effect.fail(`not reached within ${steps} ms of virtual time: ${what}`)
  })

/** On the real clock: polls `check` every 10 ms until it holds; fails after `timeoutMs`. */
export const eventually = (
  what: string,
  check: () => boolean,
  timeoutMs = 10_000,
): Effect.Effect<void, string> =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (!check()) {
      if (Date.now() > deadline) return yield* Effect.fail(`not reached within ${timeoutMs} ms: ${what}`)
      yield* Effect.sleep("10 millis")
    }
  })

/** A kubeconfig (YAML) with one context per entry, each its own cluster and user. */
export const multiContextYaml = (
  contexts: ReadonlyArray<{ readonly name: string; readonly server: string; readonly token: string }>,
): string =>
  [
    "apiVersion: v1",
    "kind: Config",
    `clusters: [${contexts.map((c) => `{name: ${c.name}-cluster, cluster: {server: "${c.server}"}}`).join(", ")}]`,
    `users: [${contexts.map((c) => `{name: ${c.name}-user, user: {token: ${c.token}}}`).join(", ")}]`,
    `contexts: [${contexts.map((c) => `{name: ${c.name}, context: {cluster: ${c.name}-cluster, user: ${c.name}-user}}`).join(", ")}]`,
    `current-context: ${contexts[0]?.name ?? ""}`,
    "",
  ].join("\n")
