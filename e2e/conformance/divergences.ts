/**
 * The divergences the differential suite finds between upstream Cluster API's core manager and
 * krtt, each with its reason. The suite's test asserts that it finds exactly these: a new one, or
 * a listed one that no longer shows, fails it. `intermittent` marks one that shows in some runs
 * only; it is matched on its scenario and field, and may be missing.
 *
 * @module
 */
import { type Divergence, RUN_SUFFIX } from "./compare.ts"

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

const NO_REFS_PHASE =
  'deliberate, docs/operator.md "Deliberate differences", phase of a Cluster without refs: ' +
  "seed 001's Normal Reconciliation row 5 makes it Provisioning once its infrastructure counts as " +
  "provisioned; upstream leaves it Pending until an endpoint makes it Provisioned"

/**
 * Only the deliberate difference of a Cluster with neither refs nor endpoint: everything else the
 * suite compares agrees with upstream v1.14.2. A divergence kept here needs a reason: a krtt bug
 * still to fix (`krttBug`), or one of the deliberate differences of docs/operator.md.
 */
export const DOCUMENTED: ReadonlyArray<Documented> = [
  ...["status.phase", `status.phase${RUN_SUFFIX}`].map(
    (field): Documented => ({
      scenario: "no-refs-no-endpoint",
      field,
      upstream: "Pending",
      krtt: "Provisioning",
      reason: NO_REFS_PHASE,
    }),
  ),
  {
    scenario: "no-refs-no-endpoint",
    field: "events",
    upstream: JSON.stringify(["Normal Pending: Cluster c is Pending"]),
    krtt: JSON.stringify(["Normal Provisioning: Cluster c is Provisioning"]),
    reason: `${NO_REFS_PHASE}; the phase event names the phase`,
  },
]
