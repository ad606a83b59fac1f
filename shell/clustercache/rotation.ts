/**
 * A rotated kubeconfig Secret: its content differs from the one a connection's credentials came
 * from, as the Secret store shows it, without a request.
 *
 * # Expected flow
 * Before each reconcile's run, `reconnectIfRotated` compares the Secret with the connection's
 * digest. Same server and CA: the new credentials are tried with a `GET /` and, once accepted,
 * serve every new request while the cache's informers go on (`rotateCredentials`). Another
 * server or CA: Disconnect() (clusterAccessor row 6), so that the reconcile connects again at
 * once. Seed 000 only disconnects on a 401 (Reconciler row 11); see docs/clustercache.md,
 * "A rotated kubeconfig".
 *
 * # Guarantees
 * - The probe of the new credentials holds nothing; the registry is updated afterwards.
 * - Credentials that do not parse or are refused are not taken: the current ones stay and the
 *   Secret is tried again at the next reconcile.
 *
 * # Assumptions
 * One reconcile per Cluster at a time (the work queue's promise): the rotation updates the
 * connection's credentials in place.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { accessorTransition, type ClusterCacheConfig } from "../../core/clustercache/index.ts"
import type { RowId } from "../../core/krtt/index.ts"
import { keyOf } from "../kube/resource.ts"
import type { ClusterKey, ObjectStore } from "./cluster.ts"
import {
  type Connection,
  type ConnectionFactory,
  closeConnection,
  describeFailure,
  kubeconfigDigest,
  refused,
  type SecretObject,
} from "./connection.ts"
import { endpointOf, kubeconfigFromSecret, kubeconfigSecretName, parseKubeconfig } from "./kubeconfig.ts"
import { applyMetrics } from "./metrics.ts"
import type { Entry, Registry } from "./registry.ts"

/** What a rotation needs. */
export interface RotationDeps {
  readonly config: ClusterCacheConfig
  readonly factory: ConnectionFactory
  readonly registry: Registry
  /** The Secret store; without one, rotations are not looked for. */
  readonly secrets: ObjectStore | undefined
}

/** Makes `reconnectIfRotated(cluster, entry, rows)`: the entry the reconcile goes on with. */
export const makeReconnectIfRotated =
  (deps: RotationDeps) =>
  (cluster: ClusterKey, entry: Entry | undefined, rows: Array<RowId>): Effect.Effect<Entry | undefined> =>
    Effect.gen(function* () {
      const c = entry?.connection
      if (entry === undefined || c === undefined || !entry.state.connected || deps.secrets === undefined)
        return entry
      const secret = deps.secrets.get({
        namespace: cluster.namespace,
        name: kubeconfigSecretName(cluster.name),
      }) as SecretObject | undefined
      if (secret === undefined || kubeconfigDigest(secret) === c.kubeconfigDigest) return entry
      const rotated = yield* rotateCredentials(deps, cluster, c, secret)
      if (rotated !== "endpoint changed") return entry
      return yield* disconnect(deps, cluster, entry, c, rows)
    })

/**
 * Takes the rotated Secret's credentials into connection `c` when its server and CA are the
 * same: "rotated" once the new credentials answered `GET /`, "kept" when the Secret does not
 * parse or the server refused them, "endpoint changed" otherwise.
 */
const rotateCredentials = (deps: RotationDeps, cluster: ClusterKey, c: Connection, secret: SecretObject) =>
  Effect.gen(function* () {
    const { config, factory } = deps
    const secretName = kubeconfigSecretName(cluster.name)
    const attempt = Effect.gen(function* () {
      const kc = yield* parseKubeconfig(yield* kubeconfigFromSecret(secret, secretName), secretName)
      if (endpointOf(kc) !== c.endpoint) return "endpoint changed" as const
      const client = yield* factory(kc, config)
      yield* client.probe({ timeout: config.healthProbe.timeout }).pipe(Effect.mapError(refused(secretName)))
      yield* c.live.replace(client)
      yield* c.uncached.replace(yield* factory(kc, config))
      c.config = kc
      c.kubeconfigDigest = kubeconfigDigest(secret)
      return "rotated" as const
    })
    const result = yield* Effect.result(attempt)
    const outcome = result._tag === "Success" ? result.success : ("kept" as const)
    const log = Effect.annotateLogs({
      cluster: keyOf(cluster),
      ...(result._tag === "Failure" ? { error: describeFailure(result.failure) } : {}),
    })
    if (outcome === "rotated")
      yield* Effect.logInfo(
        "the kubeconfig Secret changed: new requests use its credentials, informers kept",
      ).pipe(log)
    if (outcome === "kept")
      yield* Effect.logWarning(
        "the kubeconfig Secret changed but was not taken; the current credentials stay",
      ).pipe(log)
    return outcome
  })

/** Disconnect() (clusterAccessor row 6) for a Secret that names another server or CA. */
const disconnect = (
  deps: RotationDeps,
  cluster: ClusterKey,
  entry: Entry,
  c: Connection,
  rows: Array<RowId>,
) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const r = accessorTransition(
      {
        observed: entry.state,
        desired: { clientCertificatePrivateKey: "disabled" },
        trigger: { _tag: "Disconnect" },
        now,
      },
      deps.config,
    )
    rows.push(r.row)
    yield* closeConnection(c)
    yield* applyMetrics(cluster, r.actions)
    yield* Effect.logInfo("the kubeconfig Secret changed: another server or CA, reconnecting").pipe(
      Effect.annotateLogs({ cluster: keyOf(cluster), row: r.row }),
    )
    const next: Entry = { state: r.status.accessor, connection: undefined }
    yield* deps.registry.set(cluster, next)
    return next
  })
