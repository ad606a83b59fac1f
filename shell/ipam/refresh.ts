/**
 * The allocator state rebuilt from the API server (`restoreIpam`): at start, and every
 * `internalStateRefreshCycleDuration` of the config in force, after which the trigger table hears
 * `StateRefreshed`.
 *
 * # Guarantees
 * - A restore is begun, then completed or aborted in the store (state.ts): decisions made
 *   meanwhile are kept.
 * - A CIDR of the cluster state that overlaps another is logged and not restored; an unreadable
 *   applied-rules annotation is logged.
 * - A failed refresh cycle is logged and tried again the next cycle; a cycle of 0 means none.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Ref from "effect/Ref"
import {
  type ControllerIdentity,
  type IpamConfigSpec,
  type IpamEvent,
  MANAGED_PURPOSE,
  MANAGED_PURPOSE_LABEL,
  restoreIpam,
} from "../../core/ipam/index.ts"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import { recordUsage, stateRestores } from "./metrics.ts"
import { ClusterConfigResource, clusterConfigView, clusterView, OpenmcpClusterResource } from "./resources.ts"
import type { IpamStore } from "./state.ts"

/** Rebuilds the allocator state from the Clusters and ClusterConfigs the API server holds. */
export const refreshState = (
  client: KubeClientShape,
  store: IpamStore,
  configRef: Ref.Ref<IpamConfigSpec | undefined>,
  identity: ControllerIdentity,
): Effect.Effect<void, KubeError> =>
  Effect.gen(function* () {
    const since = yield* store.beginRestore
    const [cs, ccs] = yield* Effect.all(
      [
        client.listAll(OpenmcpClusterResource),
        client.listAll(ClusterConfigResource, {
          labelSelector: `${MANAGED_PURPOSE_LABEL}=${MANAGED_PURPOSE}`,
        }),
      ],
      { concurrency: 2 },
    ).pipe(Effect.onError(() => store.abortRestore))
    const restored = restoreIpam({
      config: yield* Ref.get(configRef),
      clusters: cs.items.map(clusterView),
      clusterConfigs: ccs.items.map(clusterConfigView),
      identity,
    })
    const conflicts = yield* store.completeRestore(since, restored.ipam)
    for (const c of [
      ...restored.conflicts.map((x) => `${x.cidr} of ${x.cluster} (${x.rule}) overlaps ${x.with}`),
      ...conflicts,
    ])
      yield* Effect.logError("a CIDR of the cluster state overlaps another; it is not restored").pipe(
        Effect.annotateLogs({ conflict: c }),
      )
    for (const u of restored.unreadable)
      yield* Effect.logWarning("unreadable applied-rules annotation").pipe(
        Effect.annotateLogs({ cluster: u }),
      )
    yield* Metric.update(stateRestores, 1)
    yield* Effect.flatMap(store.usage, recordUsage)
  })

/** Refresh cycles, forever: `internalStateRefreshCycleDuration` of the config in force (0: none). */
export const refreshCycles = (
  refresh: Effect.Effect<void, KubeError>,
  configRef: Ref.Ref<IpamConfigSpec | undefined>,
  trigger: (event: IpamEvent) => Effect.Effect<void>,
): Effect.Effect<never> =>
  Effect.forever(
    Effect.gen(function* () {
      const cycle = (yield* Ref.get(configRef))?.internalStateRefreshCycleDuration ?? 0
      if (cycle <= 0) return yield* Effect.sleep("1 second")
      yield* Effect.sleep(cycle)
      if (((yield* Ref.get(configRef))?.internalStateRefreshCycleDuration ?? 0) <= 0) return
      yield* refresh.pipe(
        Effect.andThen(trigger({ _tag: "StateRefreshed" })),
        Effect.catch((e: KubeError) =>
          Effect.logError("the state refresh failed; trying again next cycle").pipe(
            Effect.annotateLogs({ error: `${e._tag}: ${e.message}` }),
          ),
        ),
      )
    }),
  )
