/**
 * The kinds the Cluster controller reads beside Clusters: the infrastructure and control-plane
 * kinds its Clusters reference (any kind whose CRD carries the contract label) and the
 * descendant kinds (Machine, MachineDeployment, MachineSet, MachinePool where installed).
 *
 * Expected flow: the first use of a kind starts its reflector in the controller's scope and
 * subscribes the controller to it (`watch`); every use waits (at most `syncTimeout`) for the
 * store to sync. A kind whose contract does not resolve fails with `ContractError`, one whose
 * store does not sync in time with `KindUnreadableError`. `confirm` holds the live reads that
 * confirm a store's miss while a Cluster is deleting (observe.ts).
 *
 * Guarantees: one reflector per kind for the controller's life; nothing is read live except
 * through `confirm`.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import { ClusterNameLabel } from "../../core/cluster/contract.ts"
import type { Fetched } from "../../core/cluster/types.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { type CustomResourceDefinition, crdResource } from "../kube/discovery.ts"
import type { KubeError } from "../kube/errors.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import { make as makeReflector, type Reflector } from "../reflector/reflector.ts"
import type { ReadonlyStore } from "../reflector/store.ts"
import { ContractError, contractResource } from "./contract.ts"
import { KindUnreadableError } from "./errors.ts"
import { type DescendantKind, fetchedOf, getFailed } from "./observe.ts"

/** The plural of each descendant kind, as its CRD `<plural>.cluster.x-k8s.io` names it. */
export const DESCENDANT_PLURALS: Record<DescendantKind, string> = {
  MachineDeployment: "machinedeployments",
  MachineSet: "machinesets",
  MachinePool: "machinepools",
  Machine: "machines",
}

type ContractRef = { readonly apiGroup: string; readonly kind: string }
type Key = { readonly namespace: string; readonly name: string }

const refKey = (r: ResourceRef) => `${r.group}/${r.version}/${r.resource}`

/** What the kinds are read with. */
export interface KindsDeps {
  readonly client: KubeClientShape
  readonly crds: Reflector<CustomResourceDefinition>
  /** Subscribes the controller to a newly started reflector of `resource`. */
  readonly watch: (
    reflector: Reflector<KubeObject>,
    resource: ResourceRef,
  ) => Effect.Effect<void, never, Scope.Scope>
  /** How long a newly watched kind may take to list before a read reports it. */
  readonly syncTimeout: number
}

/** Makes the kinds' lookups; their reflectors live in the current scope. */
export const makeKinds = (deps: KindsDeps) =>
  Effect.gen(function* () {
    const { client, crds, syncTimeout } = deps
    const scope = yield* Effect.scope
    const watched = yield* Ref.make(new Map<string, Reflector<KubeObject>>())
    const crdList = () => crds.store.list()

    /** The store of a kind, starting (and subscribing to) its reflector on first use. */
    const storeFor = (resource: ResourceRef): Effect.Effect<ReadonlyStore<KubeObject>, KindUnreadableError> =>
      Effect.gen(function* () {
        const known = (yield* Ref.get(watched)).get(refKey(resource))
        const reflector =
          known ??
          (yield* Effect.gen(function* () {
            const r = yield* makeReflector(client, { resource, name: resource.resource })
            yield* deps.watch(r, resource)
            yield* Ref.update(watched, (m) => new Map(m).set(refKey(resource), r))
            return r
          }).pipe(Scope.provide(scope)))
        const synced = yield* Effect.timeoutOption(reflector.waitForSync, syncTimeout)
        if (synced._tag === "None") {
          const status = yield* reflector.status
          return yield* new KindUnreadableError({
            message: `cannot list ${resource.resource}.${resource.group}: ${status.lastError?.message ?? "not synced yet"}`,
          })
        }
        return reflector.store
      })

    const descendantResource = (kind: DescendantKind): ResourceRef | undefined => {
      const crd = crds.store.get({ name: `${DESCENDANT_PLURALS[kind]}.cluster.x-k8s.io` })
      return crd === undefined ? undefined : crdResource(crd)
    }

    return {
      /** The store of an infrastructure or control-plane kind. */
      external: (ref: ContractRef) =>
        Effect.flatMap(Effect.fromResult(contractResource(crdList(), ref)), storeFor),
      /** The store of a descendant kind; `undefined` when its CRD is not installed or it cannot be read. */
      descendants: (kind: DescendantKind): Effect.Effect<ReadonlyStore<KubeObject> | undefined> => {
        const resource = descendantResource(kind)
        return resource === undefined
          ? Effect.succeed(undefined)
          : storeFor(resource).pipe(Effect.catch(() => Effect.succeed(undefined)))
      },
      /** The resource of an external or descendant reference. */
      resolve: (ref: ContractRef): Effect.Effect<ResourceRef, ContractError> => {
        if (ref.apiGroup === "cluster.x-k8s.io" && ref.kind in DESCENDANT_PLURALS) {
          const r = descendantResource(ref.kind as DescendantKind)
          return r === undefined
            ? Effect.fail(new ContractError({ message: `no CustomResourceDefinition for ${ref.kind}` }))
            : Effect.succeed(r)
        }
        return Effect.fromResult(contractResource(crdList(), ref))
      },
      /** Live reads that confirm a store's miss while a Cluster is deleting (observe.ts). */
      confirm: {
        external: (ref: ContractRef, key: Key): Effect.Effect<Fetched<KubeObject>> =>
          Effect.fromResult(contractResource(crdList(), ref)).pipe(
            Effect.matchEffect({
              onFailure: (e) => Effect.succeed(getFailed(e)),
              onSuccess: (resource) => fetchedOf<KubeObject>(client.get(resource, key)),
            }),
          ),
        descendants: (
          kind: DescendantKind,
          cluster: Key,
        ): Effect.Effect<ReadonlyArray<KubeObject>, KubeError> => {
          const resource = descendantResource(kind)
          if (resource === undefined) return Effect.succeed([])
          const labelSelector = `${ClusterNameLabel}=${cluster.name}`
          return Effect.map(
            client.listAll(resource, { namespace: cluster.namespace, labelSelector }),
            (l) => l.items,
          )
        },
      },
    }
  })
