/**
 * The IPAMConfig as the IPAM controller takes it in: validated first (`validateIpamConfig`); a
 * valid one replaces the last and reconfigures the allocator, an invalid one is refused with its
 * fields and the last valid one stays in force.
 *
 * # Expected flow
 * `takeConfig(object)`: no object (deleted) forgets the config, logging it; an invalid one gets
 * `Valid=False` naming every issue and a Warning Event; a valid one is set, the allocator is
 * reconfigured to its parents, `Valid=True` is written and the trigger table hears
 * `ConfigChanged` with the config before.
 *
 * # Guarantees
 * - Status writes and Events are best effort (retried, then logged): taking a config in never fails.
 *
 * @module
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import {
  CONFIG_VALID_CONDITION,
  IpamConfigInvalidError,
  type IpamConfigSpec,
  type IpamEvent,
  validateIpamConfig,
} from "../../core/ipam/index.ts"
import type { KubeClientShape } from "../kube/client.ts"
import { involvedObjectOf, recordEventOrWarn } from "../kube/events.ts"
import type { KubeObject } from "../kube/resource.ts"
import { writeConfigStatus } from "./conditions.ts"
import { configStatusRetry } from "./defaults.ts"
import { recordUsage } from "./metrics.ts"
import { IpamConfigResource } from "./resources.ts"
import type { IpamStore } from "./state.ts"

/** What taking a config in needs. */
export interface ConfigIntake {
  readonly client: KubeClientShape
  /** The IPAMConfig's name (`--config`), for logs. */
  readonly name: string
  readonly component: string
  readonly configRef: Ref.Ref<IpamConfigSpec | undefined>
  readonly store: IpamStore
  readonly trigger: (event: IpamEvent) => Effect.Effect<void>
}

/** Refuses an invalid config: logged, `Valid=False` and a Warning Event naming every issue. */
const refuse = (intake: ConfigIntake, object: KubeObject, invalid: IpamConfigInvalidError, now: string) =>
  Effect.gen(function* () {
    const message = invalid.message
    yield* Effect.logError("the IPAMConfig is invalid; keeping the last valid one").pipe(
      Effect.annotateLogs({ config: intake.name, field: invalid.errors[0]?.path ?? "spec", error: message }),
    )
    yield* writeConfigStatus(
      intake.client,
      object,
      { type: CONFIG_VALID_CONDITION, status: "False", reason: "Invalid", message },
      now,
      configStatusRetry,
    )
    yield* recordEventOrWarn(
      intake.client,
      involvedObjectOf(
        {
          apiVersion: `${IpamConfigResource.group}/${IpamConfigResource.version}`,
          kind: IpamConfigResource.kind,
        },
        object,
      ),
      {
        type: "Warning",
        reason: "InvalidConfig",
        message: `${message}; the last valid config stays in force`,
      },
      intake.component,
    )
  })

/** Takes the IPAMConfig in (`undefined`: it was deleted). */
export const takeConfig = (intake: ConfigIntake, object: KubeObject | undefined): Effect.Effect<void> =>
  Effect.gen(function* () {
    const { configRef, store } = intake
    if (object === undefined) {
      if ((yield* Ref.get(configRef)) !== undefined)
        yield* Effect.logWarning("the IPAMConfig was deleted: nothing is reconciled until it is back").pipe(
          Effect.annotateLogs({ config: intake.name }),
        )
      return yield* Ref.set(configRef, undefined)
    }
    const validated = validateIpamConfig({ spec: object.spec ?? {} })
    const now = new Date(yield* Clock.currentTimeMillis).toISOString()
    if (validated instanceof IpamConfigInvalidError) return yield* refuse(intake, object, validated, now)
    const old = yield* Ref.get(configRef)
    yield* Ref.set(configRef, validated.config)
    yield* store.reconfigure(validated.config)
    yield* Effect.flatMap(store.usage, recordUsage)
    yield* writeConfigStatus(
      intake.client,
      object,
      { type: CONFIG_VALID_CONDITION, status: "True", reason: "Valid", message: "the config is in force" },
      now,
      configStatusRetry,
    )
    yield* intake.trigger({ _tag: "ConfigChanged", old })
  })
