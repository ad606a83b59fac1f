/**
 * Carries out the actions of table `inventory.entry` (`run(action)` of a cluster's table): a key
 * put or removed in the data of the ConfigMap as read, a debounce's requeue; then the one write
 * of the ConfigMap for the whole reconcile.
 *
 * # Expected flow
 * Every cluster's actions change the same copy of the data (`Ledger`); once all clusters have
 * answered, `writeInventory` writes it if anything changed.
 *
 * # Guarantees
 * - The write is an update checked against the resourceVersion that was read, or a create: a
 *   concurrent write makes it `"conflict"` (read and decide again), never a lost key.
 * - Keys are written sorted; a key no action names is kept as it was read.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import type { EntryAction } from "../../../core/inventory/index.ts"
import { Outcome } from "../../../core/krtt/run.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import type { KubeError } from "../../kube/errors.ts"
import { type KubeObject, Resources } from "../../kube/resource.ts"
import type { StoredInventory } from "./observe.ts"

/** The data being decided on, and whether an action changed it. */
export interface Ledger {
  readonly data: Record<string, string>
  changed: boolean
}

/** What carrying out an entry action tells the run: done, or a requeue after the debounce. */
export type EntryOutcome = Outcome<never, never>

/** Carries out one action of a cluster's table on the ledger. */
export const interpret =
  (ledger: Ledger) =>
  (action: EntryAction): Effect.Effect<EntryOutcome> =>
    Effect.sync(() => {
      switch (action._tag) {
        case "PutEntry":
          if (ledger.data[action.key] !== action.value) {
            ledger.data[action.key] = action.value
            ledger.changed = true
          }
          return Outcome.done
        case "RemoveEntry":
          if (action.key in ledger.data) {
            delete ledger.data[action.key]
            ledger.changed = true
          }
          return Outcome.done
        case "RequeueAfter":
          return Outcome.requeue(action.delay)
      }
    })

/** Writes the ledger's data over the ConfigMap as read; `"conflict"` when another write came first. */
export const writeInventory = (
  hub: KubeClientShape,
  target: { readonly namespace: string; readonly name: string },
  stored: StoredInventory,
  data: Readonly<Record<string, string>>,
): Effect.Effect<"written" | "conflict", KubeError> => {
  const sorted = Object.fromEntries(Object.entries(data).sort(([a], [b]) => a.localeCompare(b)))
  const write =
    stored.current === undefined
      ? hub.create(Resources.configMaps, { metadata: { ...target }, data: sorted } as KubeObject)
      : // update carries current.metadata.resourceVersion: a concurrent write is a Conflict
        hub.update(Resources.configMaps, { ...stored.current, data: sorted })
  return write.pipe(
    Effect.as("written" as const),
    Effect.catchTag(["Conflict", "AlreadyExists"], () => Effect.succeed("conflict" as const)),
  )
}
