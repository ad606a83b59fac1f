/**
 * Every scenario of the differential suite, in report order.
 *
 * @module
 */
import type { Scenario } from "./scenario.ts"
import { PROVIDER_SCENARIOS } from "./scenarios-providers.ts"
import { WORKER_SCENARIOS } from "./scenarios-workers.ts"

export const SCENARIOS: ReadonlyArray<Scenario> = [...PROVIDER_SCENARIOS, ...WORKER_SCENARIOS]
