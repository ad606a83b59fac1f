/**
 * The divergences the differential suite finds between upstream Cluster API's core manager and
 * krtt, each with its reason. The suite's test asserts that it finds exactly these: a new one, or
 * a listed one that no longer shows, fails it. `intermittent` marks one that shows in some runs
 * only; it is matched on its scenario and field, and may be missing.
 *
 * @module
 */
import type { Divergence } from "./compare.ts"

/** The release the suite compares krtt with. */
export const UPSTREAM_VERSION = "v1.14.2"

/** A divergence the suite finds, and why it is there. */
export interface Documented extends Divergence {
  readonly reason: string
  /** krtt differs from upstream with no deliberate reason: a bug to fix. */
  readonly krttBug?: true
  /** Shows in some runs only (it depends on timing); its values vary. */
  readonly intermittent?: true
}

/**
 * None: every field the suite compares agrees with upstream v1.14.2. A divergence kept here
 * needs a reason: a krtt bug still to fix (`krttBug`), or one of the deliberate differences of
 * docs/operator.md.
 */
export const DOCUMENTED: ReadonlyArray<Documented> = []
