/**
 * Predicates: which reflector events deserve a reconcile (controller-runtime's `predicate`).
 *
 * @module
 */
import type { KubeObject } from "../kube/resource.ts"
import type { ReflectorEvent } from "../reflector/reflector.ts"

/** Whether an event should enqueue anything. */
export type Predicate<T extends KubeObject = KubeObject> = (event: ReflectorEvent<T>) => boolean

/** Updates pass only when `changed(old, new)`; adds and deletes always pass. */
const onUpdate =
  <T extends KubeObject>(changed: (old: T, object: T) => boolean): Predicate<T> =>
  (event) =>
    event._tag !== "Updated" || changed(event.old, event.object)

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? {}) === JSON.stringify(b ?? {})

/** Updates that change `metadata.generation` (spec changes), like `GenerationChangedPredicate`. */
export const generationChanged: Predicate = onUpdate(
  (o, n) => o.metadata.generation !== n.metadata.generation,
)

/** Updates that change labels. */
export const labelsChanged: Predicate = onUpdate((o, n) => !same(o.metadata.labels, n.metadata.labels))

/** Updates that change annotations. */
export const annotationsChanged: Predicate = onUpdate(
  (o, n) => !same(o.metadata.annotations, n.metadata.annotations),
)

/** Updates that change the resourceVersion (every real change). */
export const resourceVersionChanged: Predicate = onUpdate(
  (o, n) => o.metadata.resourceVersion !== n.metadata.resourceVersion,
)

/** Passes when any predicate passes. */
export const or =
  <T extends KubeObject>(...predicates: ReadonlyArray<Predicate<T>>): Predicate<T> =>
  (event) =>
    predicates.some((p) => p(event))

/** Passes when every predicate passes. */
export const and =
  <T extends KubeObject>(...predicates: ReadonlyArray<Predicate<T>>): Predicate<T> =>
  (event) =>
    predicates.every((p) => p(event))

/** Passes only for objects that `test` accepts (both sides of an update are offered). */
export const objectFilter =
  <T extends KubeObject>(test: (object: T) => boolean): Predicate<T> =>
  (event) =>
    test(event.object) || (event._tag === "Updated" && test(event.old))
