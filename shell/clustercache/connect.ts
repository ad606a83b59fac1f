/**
 * Connect(): the clusterAccessor Connect/Disconnect table (seed 000) run on the table runner,
 * its steps' I/O done without holding anything.
 *
 * # Expected flow
 * `Connect` → row 1 asks `CreateConnection`: the kubeconfig Secret is read (the Secret store,
 * else a GET), parsed, and its server asked `GET /` with the new credentials; `ConnectionCreated`
 * → row 2 asks `CreateClientsAndStartCache`: the live and uncached clients and the started cache
 * (in a scope of the ClusterCache's, or of its own); `CacheStarted` → row 3 asks
 * `WaitForCacheSync` up to the initial sync timeout; `CacheSynced` → row 4 populates the
 * connection. A step that fails reports `ConnectionFailed` with its step → row 5, whose
 * `DiscardConnectionAttempt` closes what the attempt built.
 *
 * # Guarantees
 * - No lock is held across the steps (seed 000's critical design decision): the caller applies
 *   the resulting state to the registry afterwards, atomically.
 * - A failed attempt leaves nothing running: its scope is closed.
 * - The kubeconfig is never logged: failures are described by their messages only.
 *
 * @module
 */
import type { KubeConfig } from "@kubernetes/client-node"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import {
  ACCESSOR,
  type AccessorAction,
  type AccessorState,
  type AccessorStatus,
  type AccessorTrigger,
  accessorTransition,
  type ClusterCacheConfig,
  type ConnectStep,
} from "../../core/clustercache/index.ts"
import type { RowId } from "../../core/krtt/index.ts"
import { Outcome, type TableLoopError } from "../../core/krtt/run.ts"
import type { CacheFactory } from "../cache/types.ts"
import { runTable } from "../controller/table.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { Timeout } from "../kube/errors.ts"
import { keyOf, type ResourceRef } from "../kube/resource.ts"
import { makeCachedClient, makeCachedReader } from "./cachedClient.ts"
import type { ClusterKey } from "./cluster.ts"
import {
  type Connection,
  type ConnectionFactory,
  type ConnectionFailure,
  describeFailure,
  kubeconfigDigest,
  refused,
  type SecretObject,
} from "./connection.ts"
import { endpointOf, kubeconfigFromSecret, kubeconfigSecretName, parseKubeconfig } from "./kubeconfig.ts"
import { applyMetrics } from "./metrics.ts"
import { makeRotatingClient } from "./rotatingClient.ts"

/** What Connect() needs: the numbers, how to make clients and caches, where Secrets are read. */
export interface ConnectDeps {
  readonly config: ClusterCacheConfig
  readonly factory: ConnectionFactory
  readonly cacheFactory: CacheFactory
  readonly disableFor: ReadonlyArray<ResourceRef> | undefined
  /** The Cluster's kubeconfig Secret. */
  readonly readSecret: (cluster: ClusterKey) => Effect.Effect<SecretObject, ConnectionFailure>
  /** The scope the connections' scopes are forked from, if the ClusterCache was made in one. */
  readonly parent: Option.Option<Scope.Scope>
}

/** The state after Connect(), and the connection when it connected. */
export interface Connected {
  readonly state: AccessorState
  readonly connection: Connection | undefined
}

/** One attempt: what it connects, and what it has built so far. */
interface Attempt {
  readonly deps: ConnectDeps
  readonly cluster: ClusterKey
  scope?: Scope.Closeable | undefined
  secret?: SecretObject
  kc?: KubeConfig
  client?: KubeClientShape
  connection?: Connection | undefined
}

type StepOutcome = Outcome<AccessorTrigger, never>

const CONNECT: AccessorTrigger = { _tag: "Connect" }
const DESIRED = { clientCertificatePrivateKey: "disabled" } as const

/** A step's I/O: its trigger when it succeeds, `ConnectionFailed` at `step` when it fails. */
const attemptStep = (
  step: ConnectStep,
  io: Effect.Effect<AccessorTrigger, ConnectionFailure>,
): Effect.Effect<StepOutcome> =>
  Effect.match(io, {
    onSuccess: (trigger) => Outcome.next(trigger),
    onFailure: (e) =>
      Outcome.next<AccessorTrigger>({ _tag: "ConnectionFailed", step, error: describeFailure(e) }),
  })

/** Row 1: the REST config from the kubeconfig Secret, and reachability (`GET /`). */
const createConnection = (a: Attempt) =>
  Effect.gen(function* () {
    const { deps, cluster } = a
    const secretName = kubeconfigSecretName(cluster.name)
    a.scope = deps.parent._tag === "Some" ? yield* Scope.fork(deps.parent.value) : yield* Scope.make()
    const secret = yield* deps.readSecret(cluster)
    const kc = yield* parseKubeconfig(yield* kubeconfigFromSecret(secret, secretName), secretName)
    const client = yield* deps.factory(kc, deps.config)
    yield* client
      .probe({ timeout: deps.config.healthProbe.timeout })
      .pipe(Effect.mapError(refused(secretName)))
    a.secret = secret
    a.kc = kc
    a.client = client
    return { _tag: "ConnectionCreated" } as const
  })

/** Row 2: clients and a started cache (its informers come with reads and Watch()). */
const createClients = (a: Attempt) =>
  Effect.gen(function* () {
    const { deps, cluster } = a
    const kc = a.kc as KubeConfig
    const scope = a.scope as Scope.Closeable
    const live = makeRotatingClient(a.client as KubeClientShape)
    const uncached = makeRotatingClient(yield* deps.factory(kc, deps.config))
    const cache = yield* Effect.tap(
      deps.cacheFactory(live.client, { cluster: keyOf(cluster) }),
      (c) => c.start,
    ).pipe(Scope.provide(scope))
    const readerOptions = {
      live: live.client,
      cache,
      timeout: deps.config.client.timeout,
      disableFor: deps.disableFor,
    }
    a.connection = {
      config: kc,
      live,
      uncached,
      cached: makeCachedClient(readerOptions),
      reader: makeCachedReader(readerOptions),
      scope,
      cache,
      kubeconfigDigest: kubeconfigDigest(a.secret as SecretObject),
      endpoint: endpointOf(kc),
    }
    return { _tag: "CacheStarted" } as const
  })

/** Row 3: wait for the cache's informers to sync, up to the initial sync timeout. */
const waitForCacheSync = (a: Attempt, timeout: number) =>
  Effect.gen(function* () {
    const synced = yield* Effect.timeoutOption((a.connection as Connection).cache.waitForCacheSync, timeout)
    if (synced._tag === "None" || !synced.value)
      return yield* new Timeout({
        verb: "list",
        path: "/",
        message: `the cache did not sync within the initial sync timeout (${timeout} ms)`,
      })
    return { _tag: "CacheSynced" } as const
  })

/** Row 5: throw away what the attempt built, and say why it failed. */
const discard = (a: Attempt, decided: { readonly row: RowId; readonly status: AccessorStatus }) =>
  Effect.gen(function* () {
    if (a.scope !== undefined) yield* Scope.close(a.scope, Exit.void)
    a.connection = undefined
    if (decided.status.connect === "failed")
      yield* Effect.logWarning("connection to the workload cluster failed").pipe(
        Effect.annotateLogs({ cluster: keyOf(a.cluster), error: decided.status.error, row: decided.row }),
      )
    return Outcome.done
  })

/** Carries out one action of the clusterAccessor table. */
const interpret = (
  a: Attempt,
  action: AccessorAction,
  decided: { readonly row: RowId; readonly status: AccessorStatus },
): Effect.Effect<StepOutcome> => {
  switch (action._tag) {
    case "CreateConnection":
      return attemptStep("createConnection", createConnection(a))
    case "CreateClientsAndStartCache":
      return attemptStep("createClients", createClients(a))
    case "WaitForCacheSync":
      return attemptStep("cacheSync", waitForCacheSync(a, action.timeout))
    case "DiscardConnectionAttempt":
      return discard(a, decided)
    case "SetConnectionUp":
    case "SetHealthCheck":
    case "IncHealthChecksTotal":
      return Effect.as(applyMetrics(a.cluster, [action]), Outcome.done)
    case "Log":
      return Effect.as(
        Effect.logDebug(action.message).pipe(
          Effect.annotateLogs({ cluster: keyOf(a.cluster), row: decided.row }),
        ),
        Outcome.done,
      )
    case "GenerateClientCertificatePrivateKey":
    case "StopCache":
      return Effect.succeed(Outcome.done)
  }
}

/** Makes Connect(): `connect(cluster, state, rows)` runs it and adds its rows to `rows`. */
export const makeConnect =
  (deps: ConnectDeps) =>
  (cluster: ClusterKey, state: AccessorState, rows: Array<RowId>): Effect.Effect<Connected, TableLoopError> =>
    Effect.gen(function* () {
      const { config } = deps
      const attempt: Attempt = { deps, cluster }
      let current = state
      yield* runTable<AccessorTrigger, AccessorAction, AccessorStatus, never, never, never>(
        {
          table: ACCESSOR,
          maxTransitions: config.maxTransitionsPerReconcile,
          decide: (trigger) =>
            Effect.map(Clock.currentTimeMillis, (now) => {
              const r = accessorTransition({ observed: current, desired: DESIRED, trigger, now }, config)
              rows.push(r.row)
              current = r.status.accessor
              return r
            }),
          run: (action, decided) => interpret(attempt, action, decided),
        },
        CONNECT,
      )
      return { state: current, connection: current.connected ? attempt.connection : undefined }
    })
