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

const LOST_EVENTS =
  "krtt bug: when an action of a reconcile fails (a Conflict from a stale cache, or a missing <cluster>-ca Secret), " +
  "krtt's Cluster table writes the status but drops that reconcile's events, and the next reconcile sees the flags " +
  "and phase already written; upstream records its events before it patches"

const CP_EVENTS = [
  "Normal ControlPlaneInitialized: Cluster c ControlPlaneInitialized is now True",
  "Normal InfrastructureReady: Cluster c InfrastructureProvisioned is now True",
  "Normal Provisioned: Cluster c is Provisioned",
]

const lostEvents = (scenario: string, upstream: ReadonlyArray<string>): Documented => ({
  scenario,
  field: "events",
  upstream: JSON.stringify(upstream),
  krtt: "[]",
  reason: LOST_EVENTS,
  krttBug: true,
  intermittent: true,
})

const DOES_NOT_EXIST =
  'krtt bug: upstream\'s reason for a referenced object that is not found is "ObjectDoesNotExist" ' +
  '(the v1beta2 condition reason of cluster_controller_status.go); krtt writes "DoesNotExist"'

export const DOCUMENTED: ReadonlyArray<Documented> = [
  {
    scenario: "no-refs",
    field: "events",
    upstream: JSON.stringify(["Normal Provisioned: Cluster c is Provisioned"]),
    krtt: "[]",
    reason: LOST_EVENTS,
    krttBug: true,
  },
  {
    scenario: "infrastructure-only",
    field: "events",
    upstream: JSON.stringify([
      "Normal InfrastructureReady: Cluster c InfrastructureProvisioned is now True",
      "Normal Provisioned: Cluster c is Provisioned",
    ]),
    krtt: "[]",
    reason: LOST_EVENTS,
    krttBug: true,
  },
  ...["refs-not-found", "topology-waiting"].flatMap((scenario) =>
    ["InfrastructureReady", "ControlPlaneAvailable", "ControlPlaneInitialized"].flatMap((type) =>
      ["", RUN_SUFFIX].map(
        (suffix): Documented => ({
          scenario,
          field: `status.conditions[${type}].reason${suffix}`,
          upstream: "ObjectDoesNotExist",
          krtt: "DoesNotExist",
          reason: DOES_NOT_EXIST,
          krttBug: true,
        }),
      ),
    ),
  ),
  lostEvents("workers-available", CP_EVENTS),
  lostEvents("workers-degraded", CP_EVENTS),
  lostEvents("control-plane-machines", CP_EVENTS),
  lostEvents("machinesets-and-pools", CP_EVENTS),
  lostEvents("deleting-descendants", [...CP_EVENTS, "Normal Deleting: Cluster c is Deleting"].sort()),
]
