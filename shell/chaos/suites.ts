/**
 * The controller sets `krtt chaos` runs, as data: each suite names the controllers that select
 * it, its scenarios (from its own e2e situations) and its invariants (`suite.ts`).
 *
 * @module
 */

import { IpamSuite } from "./ipam.ts"
import { MulticlusterSuite } from "./multicluster.ts"
import { OperatorSuite } from "./operatorSuite.ts"
import { PropagateSuite } from "./propagate.ts"
import { PropagateMoreSuite } from "./propagateMore.ts"
import type { Scenario } from "./scenarios.ts"
import type { Suite } from "./suite.ts"

export const Suites: ReadonlyArray<Suite> = [
  OperatorSuite,
  IpamSuite,
  MulticlusterSuite,
  PropagateSuite,
  PropagateMoreSuite,
]

/** Every scenario of every suite. */
export const Scenarios: ReadonlyArray<Scenario> = Suites.flatMap((s) => s.scenarios)

/** The suite a scenario belongs to. */
export const suiteOf = (scenario: Scenario): Suite =>
  Suites.find((s) => s.scenarios.includes(scenario)) ?? OperatorSuite
