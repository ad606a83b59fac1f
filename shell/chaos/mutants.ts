/**
 * Deliberately broken operators , to show that the campaign catches each class
 * of bug docs/reliability.md names. Each is the real operator with one broken part: a write path bent by a
 * client wrapper, or a small broken controller started next to the real ones. They are never run
 * by `krtt run`; `krtt chaos --mutant <name>` and shell/chaos/chaos.test.ts use them.
 *
 * @module
 */

import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { ClusterFinalizer } from "../../core/cluster/contract.ts"
import { ClusterResource } from "../clustercache/service.ts"
import { PendingConfigMap } from "../fleet/propagate/index.ts"
import { ClusterConfigResource, OpenmcpClusterResource } from "../ipam/resources.ts"
import type { DeleteOptions, KubeClientShape, WriteOptions } from "../kube/client.ts"
import { mergePatch } from "../kube/patch.ts"
import { type KubeObject, type ObjectKey, type ResourceRef, Resources } from "../kube/resource.ts"
import { Store } from "../reflector/store.ts"
import { ItemBackoff } from "../workqueue/backoff.ts"
import { FairQueue } from "../workqueue/fairQueue.ts"
import { type Request, requestKey } from "../workqueue/request.ts"
import { CONTROL_PLANE, NAMESPACE } from "./scenarios.ts"

export interface Mutant {
  readonly name: string
  /** The bug, in one line. */
  readonly bug: string
  /** Breaks the operator's management-server client (`incarnation`: 0 at first, +1 per restart). */
  readonly wrap?: ((client: KubeClientShape, incarnation: number) => KubeClientShape) | undefined
  /** Breaks the operator's clients of workload clusters. */
  readonly wrapWorkload?: ((client: KubeClientShape) => KubeClientShape) | undefined
  /** A broken variant of a suite's own controller (the suite reads it). */
  readonly variant?: "remember-clusters" | "engage-scope-leak" | undefined
  /** Breaks a runtime part for the run's duration; returns what restores it. */
  readonly patch?: (() => () => void) | undefined
  /** A broken controller started next to the real ones (in the operator's scope). */
  readonly extra?: ((client: KubeClientShape) => Effect.Effect<void, never, Scope.Scope>) | undefined
}

/** Removes the Cluster's finalizer as soon as it asks for the control plane's deletion. */
const finalizerEarly: Mutant = {
  name: "finalizer-early",
  bug: "the Cluster finalizer is removed right after the control plane's deletion is requested, before the children are gone",
  wrap: (client) => ({
    ...client,
    delete: (ref, key, o) =>
      Effect.tap(client.delete(ref, key, o), () =>
        ref.resource !== CONTROL_PLANE.resource
          ? Effect.void
          : Effect.gen(function* () {
              const cluster = yield* client.get(ClusterResource, key)
              const finalizers = (cluster.metadata.finalizers ?? []).filter((f) => f !== ClusterFinalizer)
              yield* client.patch(ClusterResource, key, mergePatch({ metadata: { finalizers } }))
            }),
      ),
  }),
}

/** Status patches of Clusters lose their resourceVersion precondition (last writer wins). */
const statusWithoutResourceVersion: Mutant = {
  name: "status-no-rv",
  bug: "the Cluster status patch carries no resourceVersion, so it overwrites the conditions another writer added meanwhile",
  wrap: (client) => ({
    ...client,
    patchStatus: (ref, key, p, o) => {
      if (ref.resource !== ClusterResource.resource || p.type !== "merge")
        return client.patchStatus(ref, key, p, o)
      const body = p.body as { metadata?: Record<string, unknown> }
      const { resourceVersion: _dropped, ...metadata } = body.metadata ?? {}
      return client.patchStatus(ref, key, mergePatch({ ...body, metadata }), o)
    },
  }),
}

const REGISTRATION_LABEL = "chaos.krtt.dev/registration-of"

/** Creates one registration ConfigMap per Cluster, remembering in memory which it made. */
const memoryOnly: Mutant = {
  name: "memory-state",
  bug: "which Clusters were registered is kept only in memory: after a crash every Cluster is registered again",
  extra: (client) =>
    Effect.gen(function* () {
      const registered = new Set<string>()
      const pass = Effect.gen(function* () {
        const clusters = yield* client.listAll(ClusterResource, { namespace: NAMESPACE })
        for (const c of clusters.items) {
          const name = c.metadata.name ?? ""
          if (registered.has(name) || c.metadata.deletionTimestamp !== undefined) continue
          yield* client.create(Resources.configMaps, {
            apiVersion: "v1",
            kind: "ConfigMap",
            metadata: {
              namespace: NAMESPACE,
              generateName: `${name}-registration-`,
              labels: { [REGISTRATION_LABEL]: name },
            },
            data: { cluster: name },
          })
          registered.add(name)
        }
      })
      yield* Effect.forkScoped(
        Effect.repeat(Effect.ignore(pass), Schedule.spaced("1 second")) as Effect.Effect<unknown>,
      )
    }),
}

/** Mirrors the Cluster names from watch events; a restarted watch adds what it sees but never prunes. */
const noResync: Mutant = {
  name: "no-resync",
  bug: "a summary of the Clusters kept from watch events: after a missed DELETED event the restarted watch adds but never removes, so the deleted Cluster stays forever",
  extra: (client) =>
    Effect.gen(function* () {
      const names = new Set<string>()
      let written: string | undefined
      const write = Effect.gen(function* () {
        const value = [...names].sort().join(",")
        if (value === written) return
        const key = { namespace: NAMESPACE, name: "cluster-summary" }
        const body = { apiVersion: "v1", kind: "ConfigMap", metadata: key, data: { clusters: value } }
        const patched = yield* Effect.result(client.patch(Resources.configMaps, key, mergePatch(body)))
        if (patched._tag === "Failure") yield* client.create(Resources.configMaps, body)
        written = value
      })
      const follow = (o: KubeObject, type: string) => {
        const name = o.metadata.name ?? ""
        if (type === "DELETED") names.delete(name)
        else if (type === "ADDED" || type === "MODIFIED") names.add(name)
      }
      const first = yield* Effect.orDie(client.listAll(ClusterResource, { namespace: NAMESPACE }))
      for (const c of first.items) follow(c, "ADDED")
      let from: string | undefined = first.resourceVersion
      const once = Effect.suspend(() =>
        client.watch(ClusterResource, { namespace: NAMESPACE, resourceVersion: from }).pipe(
          Stream.runForEach((e) =>
            Effect.gen(function* () {
              if (e.type === "ERROR") {
                // The bug: 410 means "relist", but this controller only watches again from now.
                from = undefined
                return
              }
              from = e.object.metadata.resourceVersion
              if (e.type !== "BOOKMARK") follow(e.object, e.type)
              yield* Effect.ignore(write)
            }),
          ),
        ),
      )
      yield* Effect.ignore(write)
      yield* Effect.forkScoped(
        Effect.repeat(Effect.ignore(once), Schedule.spaced("1 second")) as Effect.Effect<unknown>,
      )
    }),
}

/**
 * The IPAM controller whose allocator forgets what was allocated when it restarts: after a
 * restart its state restore (and its ClusterConfig watch) list no ClusterConfigs, as if the
 * allocations had been kept in memory only.
 */
const ipamForgets: Mutant = {
  name: "ipam-forgets",
  bug: "the IPAM allocator keeps its allocations in memory only: after a restart it hands out CIDRs that live ClusterConfigs hold",
  wrap: (client, incarnation) =>
    incarnation === 0
      ? client
      : {
          ...client,
          // The restore's lists: every Cluster (no options), every managed ClusterConfig.
          listAll: (ref, o) =>
            (ref.resource === OpenmcpClusterResource.resource && o === undefined) ||
            (ref.resource === ClusterConfigResource.resource && o?.namespace === undefined)
              ? Effect.map(client.listAll(ref, o), (list) => ({ ...list, items: [] }))
              : client.listAll(ref, o),
        },
}

/** The multi-cluster reconcile that keeps the first cluster it got per name (chaos/multicluster.ts). */
const rememberClusters: Mutant = {
  name: "remember-clusters",
  bug: "the multi-cluster reconcile keeps each cluster it got from the manager by name and never asks again, so it goes on reconciling an engagement that ended (a rotated kubeconfig, a removed cluster)",
  variant: "remember-clusters",
}

/** `krtt propagate` whose deletes of copies in the workload clusters do nothing (and say they did). */
const neverDeletesCopies: Mutant = {
  name: "propagate-keeps-copies",
  bug: "propagate never deletes a copy: its delete in a workload cluster answers success without deleting, so a released source leaves its copies behind",
  wrapWorkload: (client) => ({
    ...client,
    delete: <T extends KubeObject>(ref: ResourceRef, key: ObjectKey, o?: DeleteOptions) =>
      ref.resource === Resources.configMaps.resource
        ? Effect.succeed<T | undefined>(undefined)
        : client.delete<T>(ref, key, o),
  }),
}

/**
 * `krtt propagate` writing `krtt-propagate-pending` with the keys of sources only (a write built
 * from its own keys, not from the data it read).
 */
const pendingOwnKeys: Mutant = {
  name: "propagate-pending-own-keys",
  bug: "propagate rewrites krtt-propagate-pending with the keys of sources only: an administrator's notes and keys of other kinds are lost",
  wrap: (client) => ({
    ...client,
    update: <T extends KubeObject>(ref: ResourceRef, object: T, o?: WriteOptions) => {
      if (ref.resource !== Resources.configMaps.resource || object.metadata.name !== PendingConfigMap)
        return client.update(ref, object, o)
      const data = (object as { data?: Record<string, string> }).data ?? {}
      const own = Object.entries(data).filter(([k]) => /^(ConfigMap|Secret)\./.test(k))
      return client.update(ref, { ...object, data: Object.fromEntries(own) }, o)
    },
  }),
}

/**
 * The multi-cluster engagement that leaves a disengaged cluster's engage scope open: the manager
 * is engaged in a scope that never closes, and the cluster's cache (its informers and their
 * watches) lives in the process's scope instead of the cluster's (chaos/multicluster.ts). Seed
 * 003: "the engage context is cancelled when the cluster leaves".
 */
const engageScopeLeak: Mutant = {
  name: "engage-scope-leak",
  bug: "a disengaged cluster's engage scope is left open: its cache's informers and watches keep running after the cluster left",
  variant: "engage-scope-leak",
}

/**
 * The work queue's fair core forgetting a request added while it was being processed: `done`
 * ends the processing and drops the re-add instead of queueing it again (a lost wake-up).
 */
const lostWakeup: Mutant = {
  name: "lost-wakeup",
  bug: "the work queue forgets a request re-added while it was being processed: the change that came during the reconcile is never reconciled",
  patch: () => {
    const proto = FairQueue.prototype as unknown as {
      done: (req: Request) => boolean
    }
    const original = proto.done
    proto.done = function (this: { processing: Set<string>; dirty: Map<string, Request> }, req: Request) {
      const key = requestKey(req)
      if (!this.processing.delete(key)) return false
      this.dirty.delete(key)
      return false
    }
    return () => {
      proto.done = original
    }
  },
}

/**
 * The work queue's fair core handing out a request still being processed: `add` queues a request
 * re-added while a worker holds it, so a second worker reconciles it at the same time.
 */
const doubleWorker: Mutant = {
  name: "double-worker",
  bug: "the work queue hands out a request that is still being processed: two workers reconcile the same object at once",
  patch: () => {
    const proto = FairQueue.prototype as unknown as { add: (req: Request) => string }
    const original = proto.add
    proto.add = function (
      this: { dirty: Map<string, Request>; push: (cluster: string, key: string) => void },
      req: Request,
    ) {
      const key = requestKey(req)
      if (this.dirty.has(key)) return "deduplicated"
      this.dirty.set(key, req)
      this.push(req.cluster, key)
      return "queued"
    }
    return () => {
      proto.add = original
    }
  },
}

/** The work queue's fair core not counting a handed-out request off its depth (`workqueue_depth`). */
const depthDrift: Mutant = {
  name: "depth-drift",
  bug: "the work queue does not count a request it hands out off its depth: workqueue_depth grows with every reconcile and never reads 0",
  patch: () => {
    const proto = FairQueue.prototype as unknown as { pop: () => Request | undefined }
    const original = proto.pop
    proto.pop = function (this: { ready: number }) {
      const req = original.call(this)
      if (req !== undefined) this.ready++
      return req
    }
    return () => {
      proto.pop = original
    }
  },
}

/**
 * The work queue's backoff never forgetting a request's failures (`ItemBackoff.forget` does
 * nothing): after a success its next failure waits as long as if the earlier ones had not
 * recovered.
 */
const backoffKept: Mutant = {
  name: "backoff-kept",
  bug: "the work queue never forgets a request's failures: after a success its next retry waits as if they had not recovered",
  patch: () => {
    const proto = ItemBackoff.prototype as unknown as { forget: (key: string) => void }
    const original = proto.forget
    proto.forget = () => {}
    return () => {
      proto.forget = original
    }
  },
}

/**
 * A poller forked outside its process's scope (`forkDetach` where `forkScoped` was meant): it
 * keeps watching Clusters, and its timer keeps running, after the operator stopped.
 */
const detachedPoller: Mutant = {
  name: "detached-poller",
  bug: "a poller forked outside the operator's scope: its watch and its timer outlive the operator",
  extra: (client) =>
    Effect.asVoid(
      Effect.forkDetach(
        Effect.repeat(
          Effect.ignore(Stream.runDrain(client.watch(ClusterResource, { namespace: NAMESPACE }))),
          Schedule.spaced("10 seconds"),
        ) as Effect.Effect<unknown>,
      ),
    ),
}

/** The reflector's store never takes an object out of its indexes: a changed or deleted object stays under its old values. */
const indexKept: Mutant = {
  name: "index-kept",
  bug: "the informers' stores never take an object out of their indexes: a relabelled or deleted object stays under its old label, owner and namespace",
  patch: () => {
    const proto = Store.prototype as unknown as { unindex: (key: string, object: KubeObject) => void }
    const original = proto.unindex
    proto.unindex = () => {}
    return () => {
      proto.unindex = original
    }
  },
}

/** The reflector's store ignores removals: an object deleted on the server stays in every informer. */
const deletesIgnored: Mutant = {
  name: "deletes-ignored",
  bug: "the informers' stores ignore removals: an object deleted on the server stays in the cache for good",
  patch: () => {
    const proto = Store.prototype as unknown as { remove: (key: string) => KubeObject | undefined }
    const original = proto.remove
    proto.remove = () => undefined
    return () => {
      proto.remove = original
    }
  },
}

export const Mutants: ReadonlyArray<Mutant> = [
  finalizerEarly,
  statusWithoutResourceVersion,
  memoryOnly,
  noResync,
  ipamForgets,
  rememberClusters,
  neverDeletesCopies,
  pendingOwnKeys,
  engageScopeLeak,
  lostWakeup,
  doubleWorker,
  depthDrift,
  backoffKept,
  detachedPoller,
  indexKept,
  deletesIgnored,
]

export const mutantNamed = (name: string): Mutant | undefined => Mutants.find((m) => m.name === name)
