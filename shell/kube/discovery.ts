/**
 * Discovery: which resources a group version serves, a kind's resource (a small REST mapper),
 * and CustomResourceDefinitions read as resources.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type { KubeClientShape } from "./client.ts"
import { type KubeError, NotFound } from "./errors.ts"
import { groupVersionPath, type KubeObject, type ResourceRef, Resources } from "./resource.ts"

/** A group, version and kind. */
export interface GroupVersionKind {
  readonly group: string
  readonly version: string
  readonly kind: string
}

/** The fields of a CustomResourceDefinition that name its resource. */
export interface CustomResourceDefinition extends KubeObject {
  readonly spec: {
    readonly group: string
    readonly scope: "Namespaced" | "Cluster"
    readonly names: {
      readonly plural: string
      readonly singular?: string | undefined
      readonly kind: string
      readonly shortNames?: ReadonlyArray<string> | undefined
    }
    readonly versions: ReadonlyArray<{
      readonly name: string
      readonly served: boolean
      readonly storage: boolean
      readonly subresources?: { readonly status?: object | undefined } | undefined
    }>
  }
}

interface ApiResource {
  readonly name?: unknown
  readonly kind?: unknown
  readonly namespaced?: unknown
}

/** The resources served at `group/version` (subresources such as `pods/status` left out). */
export const serverResources = (
  client: KubeClientShape,
  gv: { readonly group: string; readonly version: string },
): Effect.Effect<ReadonlyArray<ResourceRef>, KubeError> =>
  Effect.map(client.raw({ method: "GET", path: groupVersionPath(gv), verb: "discovery" }), (body) => {
    const list = (body as { readonly resources?: ReadonlyArray<ApiResource> } | undefined)?.resources ?? []
    return list.flatMap(
      (r): Array<ResourceRef> =>
        typeof r.name === "string" && !r.name.includes("/") && typeof r.kind === "string"
          ? [
              {
                group: gv.group,
                version: gv.version,
                resource: r.name,
                kind: r.kind,
                namespaced: r.namespaced === true,
              },
            ]
          : [],
    )
  })

/** The resource of a kind; `NotFound` when its group version does not serve it. */
export const resolveKind = (
  client: KubeClientShape,
  gvk: GroupVersionKind,
): Effect.Effect<ResourceRef, KubeError> =>
  Effect.flatMap(serverResources(client, gvk), (resources) => {
    const found = resources.find((r) => r.kind === gvk.kind)
    return found
      ? Effect.succeed(found)
      : Effect.fail(
          new NotFound({
            verb: "discovery",
            path: groupVersionPath(gvk),
            message: `no resource of kind ${gvk.kind} is served at ${groupVersionPath(gvk)}`,
          }),
        )
  })

/**
 * A caching `resolveKind` (a REST mapper): each kind is looked up once; failures are not cached,
 * so a CRD installed later is found on the next call.
 */
export const makeKindResolver = (
  client: KubeClientShape,
): Effect.Effect<(gvk: GroupVersionKind) => Effect.Effect<ResourceRef, KubeError>> =>
  Effect.map(Ref.make(new Map<string, ResourceRef>()), (cache) => (gvk: GroupVersionKind) => {
    const key = `${gvk.group}/${gvk.version}/${gvk.kind}`
    return Effect.flatMap(Ref.get(cache), (m) => {
      const hit = m.get(key)
      return hit
        ? Effect.succeed(hit)
        : Effect.tap(resolveKind(client, gvk), (ref) =>
            Ref.update(cache, (old) => new Map(old).set(key, ref)),
          )
    })
  })

/** One CRD by name (`<plural>.<group>`). */
export const getCrd = (
  client: KubeClientShape,
  name: string,
): Effect.Effect<CustomResourceDefinition, KubeError> =>
  client.get<CustomResourceDefinition>(Resources.customResourceDefinitions, { name })

/** Every CRD (optionally label-selected). */
export const listCrds = (
  client: KubeClientShape,
  options: { readonly labelSelector?: string | undefined } = {},
): Effect.Effect<ReadonlyArray<CustomResourceDefinition>, KubeError> =>
  Effect.map(
    client.listAll<CustomResourceDefinition>(Resources.customResourceDefinitions, options),
    (list) => list.items,
  )

/**
 * The resource a CRD defines, at `version` (default: its storage version); `undefined` when the
 * CRD does not serve that version.
 */
export const crdResource = (crd: CustomResourceDefinition, version?: string): ResourceRef | undefined => {
  const v =
    version === undefined
      ? crd.spec.versions.find((x) => x.storage)
      : crd.spec.versions.find((x) => x.name === version)
  if (v === undefined || !v.served) return undefined
  return {
    group: crd.spec.group,
    version: v.name,
    resource: crd.spec.names.plural,
    kind: crd.spec.names.kind,
    namespaced: crd.spec.scope === "Namespaced",
  }
}

/** Whether a CRD has the status subresource at `version` (default: its storage version). */
export const crdHasStatus = (crd: CustomResourceDefinition, version?: string): boolean => {
  const v =
    version === undefined
      ? crd.spec.versions.find((x) => x.storage)
      : crd.spec.versions.find((x) => x.name === version)
  return v?.subresources?.status !== undefined
}
