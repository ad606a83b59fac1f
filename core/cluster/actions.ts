/**
 * The actions of the Cluster controller: data for the shell (or a simulator) to interpret, in
 * order, each idempotent. Every action names the object it acts on; none is a callback.
 *
 * On the first action that fails the shell stops and calls the transition again with the
 * trigger `ActionFailed` (see `types.ts`); `ReturnError` and `Requeue` end a reconcile.
 *
 * @module
 */
import type { ClusterStatus, OwnerReference } from "./types.ts"

/** The Cluster a reconcile is about. */
export interface ClusterKey {
  readonly namespace: string
  readonly name: string
}

/** A namespaced object of a known group and kind (provider objects and descendants). */
export interface ObjectRef {
  readonly apiGroup: string
  readonly kind: string
  readonly namespace: string
  readonly name: string
}

/** What a referenced external object is to the Cluster. */
export type ExternalRole = "infrastructure" | "controlPlane"

export type ClusterAction =
  /** Add the finalizer to `metadata.finalizers` (Normal Reconciliation, row 2). */
  | { readonly _tag: "AddFinalizer"; readonly cluster: ClusterKey; readonly finalizer: string }
  /** Remove the finalizer (Deletion Reconciliation, row 8); the API server then deletes the Cluster. */
  | { readonly _tag: "RemoveFinalizer"; readonly cluster: ClusterKey; readonly finalizer: string }
  /** Ensure the owner reference and the labels on an external object (flowcharts, "Set Owner Ref & Labels"). */
  | {
      readonly _tag: "PatchExternal"
      readonly role: ExternalRole
      readonly ref: ObjectRef
      readonly ownerReference: OwnerReference
      readonly labels: Readonly<Record<string, string>>
    }
  /** Copy an endpoint into the Cluster's `spec.controlPlaneEndpoint`. */
  | {
      readonly _tag: "SetControlPlaneEndpoint"
      readonly cluster: ClusterKey
      readonly endpoint: { readonly host: string; readonly port: number }
      readonly from: ExternalRole
    }
  /**
   * Create the `<cluster>-kubeconfig` Secret if it does not exist (AlreadyExists is success),
   * signed by the cluster CA in `caSecret`, for `endpoint`.
   */
  | {
      readonly _tag: "CreateKubeconfigSecret"
      readonly cluster: ClusterKey
      readonly secret: ClusterKey
      readonly caSecret: ClusterKey
      readonly endpoint: { readonly host: string; readonly port: number }
      readonly type: string
      readonly key: string
      readonly labels: Readonly<Record<string, string>>
      readonly ownerReference: OwnerReference
    }
  /** Request the deletion of an object (a descendant, the control plane or the infrastructure). */
  | { readonly _tag: "DeleteObject"; readonly role: "descendant" | ExternalRole; readonly ref: ObjectRef }
  /** Write the Cluster's status (the whole status; the shell patches what changed). */
  | { readonly _tag: "PatchStatus"; readonly cluster: ClusterKey; readonly status: ClusterStatus }
  /** Record a Kubernetes Event on the Cluster. */
  | {
      readonly _tag: "Event"
      readonly cluster: ClusterKey
      readonly type: "Normal" | "Warning"
      readonly reason: string
      readonly message: string
    }
  /** End the reconcile and run it again after `after` ms. */
  | { readonly _tag: "Requeue"; readonly after: number }
  /** End the reconcile with an error: the work queue retries with backoff. */
  | { readonly _tag: "ReturnError"; readonly error: string }

export type ClusterActionTag = ClusterAction["_tag"]
