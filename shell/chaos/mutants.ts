/**
 * Deliberately broken operators, to show that the campaign catches each class of bug.
 *
 * @module
 */
import type { Effect, Scope } from "effect"
import type { KubeClientShape } from "../kube/client.ts"

export interface Mutant {
  readonly name: string
  readonly bug: string
  /** Breaks the operator's writes. */
  readonly wrap?: ((client: KubeClientShape) => KubeClientShape) | undefined
  /** A broken controller started next to the real ones. */
  readonly extra?: ((client: KubeClientShape) => Effect.Effect<void, never, Scope.Scope>) | undefined
}
