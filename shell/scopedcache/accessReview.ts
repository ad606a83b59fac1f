/**
 * SelfSubjectAccessReview: asks the API server whether this client may list and watch a resource
 * in a namespace (or across the cluster) before an informer is started, as telescopia checks
 * "can I verb this resource" before it serves a read (seed 002, Notes: the PoC repository).
 *
 * A review is one `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews` per verb; every
 * authenticated user may create them (the `system:basic-user` ClusterRole), so a review never
 * needs a permission of its own.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { KubeClientShape } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"

/** The SelfSubjectAccessReview resource (cluster-scoped, create only). */
export const SelfSubjectAccessReviews: ResourceRef = {
  group: "authorization.k8s.io",
  version: "v1",
  resource: "selfsubjectaccessreviews",
  kind: "SelfSubjectAccessReview",
  namespaced: false,
}

/** The verbs an informer needs: its list, then its watch. */
export const InformerVerbs = ["list", "watch"] as const

/** What a review answered. */
export interface AccessDecision {
  readonly allowed: boolean
  /** The verbs refused (empty when allowed). */
  readonly denied: ReadonlyArray<string>
  /** The authorizer's reason for the first refusal, when it gave one. */
  readonly reason: string | undefined
}

/** What to review: a resource, in one namespace or (undefined) across the cluster. */
export interface AccessRequest {
  readonly resource: ResourceRef
  readonly namespace: string | undefined
  /** Default: list and watch. */
  readonly verbs?: ReadonlyArray<string> | undefined
}

/** Reviews access; the scoped cache calls it before starting an informer when asked to. */
export type AccessReviewer = (request: AccessRequest) => Effect.Effect<AccessDecision, KubeError>

interface ReviewStatus {
  readonly allowed?: boolean | undefined
  readonly denied?: boolean | undefined
  readonly reason?: string | undefined
}

/** The body of one review for `verb`. */
export const reviewBody = (request: AccessRequest, verb: string): KubeObject => ({
  apiVersion: "authorization.k8s.io/v1",
  kind: "SelfSubjectAccessReview",
  metadata: {},
  spec: {
    resourceAttributes: {
      group: request.resource.group,
      version: request.resource.version,
      resource: request.resource.resource,
      verb,
      ...(request.resource.namespaced && request.namespace !== undefined
        ? { namespace: request.namespace }
        : {}),
    },
  },
})

/** The reviewer that asks the API server through `client` (one review per verb, concurrently). */
export const selfSubjectAccessReviewer =
  (client: KubeClientShape): AccessReviewer =>
  (request) =>
    Effect.map(
      Effect.forEach(
        request.verbs ?? InformerVerbs,
        (verb) =>
          Effect.map(client.create(SelfSubjectAccessReviews, reviewBody(request, verb)), (answer) => ({
            verb,
            status: (answer as { readonly status?: ReviewStatus }).status,
          })),
        { concurrency: "unbounded" },
      ),
      (answers) => {
        const refused = answers.filter((a) => a.status?.allowed !== true)
        return {
          allowed: refused.length === 0,
          denied: refused.map((a) => a.verb),
          reason: refused.find((a) => a.status?.reason !== undefined && a.status.reason !== "")?.status
            ?.reason,
        }
      },
    )
