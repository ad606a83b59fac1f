/**
 * The Cluster controller's generators produce the boundary shapes, often enough
 * that a mutant of the comparison they decide cannot pass unnoticed:
 *
 * - the grace period of RemoteConnectionProbe (50 s after the last successful probe: True at
 *   `now - last <= 50 s`) exactly at, 1 ms before and 1 ms after its edge;
 * - the probe failure threshold (5): 4, 5 and 6 failures in a row without a success;
 * - `metadata.generation` 0, 1 and more (upstream writes `observedGeneration` only when >= 1);
 * - a foreign finalizer with and without ours (Normal Reconciliation row 2);
 * - provider objects owned but unlabelled, labelled but unowned, both and neither (rows 6 and
 *   the flowcharts' "Set Owner Ref & Labels");
 * - stale owned conditions: Paused=True on a Cluster that is not paused (derived row 14),
 *   Deleting=True on one not being deleted, and the other owned conditions out of date.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { ClusterInput, InfrastructureCluster } from "../../core/cluster/index.ts"
import { arbitraries, FAILURE_THRESHOLD_EDGE, GRACE_PERIOD_EDGE } from "./arbitraries.ts"

const SAMPLES = 2_000
const FINALIZER = "cluster.cluster.x-k8s.io"
const LABEL = "cluster.x-k8s.io/cluster-name"

const all: ReadonlyArray<ClusterInput> = Object.values(arbitraries).flatMap((arb) =>
  fc.sample(arb, { numRuns: SAMPLES, seed: 11 }),
)
const count = (p: (i: ClusterInput) => boolean) => all.filter(p).length
const clusterOf = (i: ClusterInput) =>
  i.observed.cluster._tag === "Found" ? i.observed.cluster.object : undefined
const conditionOf = (i: ClusterInput, type: string) =>
  clusterOf(i)?.status?.conditions?.find((c) => c.type === type)

describe("boundary-biased Cluster controller generators", () => {
  for (const delta of [-1, 0, 1]) {
    it(`the RemoteConnectionProbe grace period (50 s) ${delta === 0 ? "exactly" : `${delta > 0 ? "+" : ""}${delta} ms`}`, () => {
      expect(
        count((i) => {
          const last = i.observed.remoteConnection.lastProbeSuccessTime
          return last !== undefined && i.now - last === GRACE_PERIOD_EDGE + delta
        }),
      ).toBeGreaterThanOrEqual(100)
    })
  }

  it("the probe failure threshold (5): 4, 5 and 6 failures without a success", () => {
    for (const n of [FAILURE_THRESHOLD_EDGE - 1, FAILURE_THRESHOLD_EDGE, FAILURE_THRESHOLD_EDGE + 1]) {
      expect(
        count(
          (i) =>
            i.observed.remoteConnection.lastProbeSuccessTime === undefined &&
            i.observed.remoteConnection.consecutiveFailures === n,
        ),
        `${n}`,
      ).toBeGreaterThanOrEqual(100)
    }
  })

  it("the v1beta1 control plane's available replicas (spec.replicas 3 - unavailable) at 1, 0 and -1 (at least 0)", () => {
    for (const unavailable of [2, 3, 4])
      expect(
        count(
          (i) =>
            i.observed.controlPlane._tag === "Found" &&
            i.observed.controlPlane.object.status?.unavailableReplicas === unavailable,
        ),
        `${unavailable}`,
      ).toBeGreaterThanOrEqual(100)
  })

  it("metadata.generation 0, 1 and 3 (observedGeneration is written from 1)", () => {
    for (const g of [0, 1, 3])
      expect(
        count((i) => clusterOf(i)?.metadata.generation === g),
        `${g}`,
      ).toBeGreaterThanOrEqual(300)
  })

  it("a foreign finalizer alone, and beside ours", () => {
    const finalizers = (i: ClusterInput) => clusterOf(i)?.metadata.finalizers ?? []
    const foreignOnly = count((i) => finalizers(i).length > 0 && !finalizers(i).includes(FINALIZER))
    const both = count((i) => finalizers(i).length > 1 && finalizers(i).includes(FINALIZER))
    expect(foreignOnly).toBeGreaterThanOrEqual(100)
    expect(both).toBeGreaterThanOrEqual(300)
  })

  it("provider objects of topology Clusters with and without the controller reference", () => {
    const controlled = (i: ClusterInput) =>
      i.observed.infrastructure._tag === "Found" &&
      (i.observed.infrastructure.object.metadata.ownerReferences ?? []).some((r) => r.controller === true)
    const topology = (i: ClusterInput) => i.desired.topology !== undefined
    expect(
      count((i) => topology(i) && controlled(i)),
      "topology, controller reference",
    ).toBeGreaterThanOrEqual(50)
    expect(
      count((i) => topology(i) && !controlled(i)),
      "topology, plain reference",
    ).toBeGreaterThanOrEqual(50)
    expect(
      count((i) => !topology(i) && controlled(i)),
      "no topology, controller reference",
    ).toBeGreaterThanOrEqual(50)
  })

  it("provider objects owned but unlabelled, labelled but unowned, both, neither", () => {
    const shape = (o: { metadata: InfrastructureCluster["metadata"] }) => {
      const owned = (o.metadata.ownerReferences ?? []).some((r) => r.kind === "Cluster")
      const labelled = o.metadata.labels?.[LABEL] !== undefined
      return `${owned ? "owned" : "unowned"}/${labelled ? "labelled" : "unlabelled"}`
    }
    for (const s of ["owned/labelled", "owned/unlabelled", "unowned/labelled", "unowned/unlabelled"]) {
      expect(
        count(
          (i) => i.observed.infrastructure._tag === "Found" && shape(i.observed.infrastructure.object) === s,
        ),
        `infrastructure ${s}`,
      ).toBeGreaterThanOrEqual(100)
      expect(
        count((i) => i.observed.controlPlane._tag === "Found" && shape(i.observed.controlPlane.object) === s),
        `control plane ${s}`,
      ).toBeGreaterThanOrEqual(100)
    }
  })

  it("stale conditions: Paused=True not paused, Deleting=True not deleting, others out of date", () => {
    const notPaused = (i: ClusterInput) =>
      i.desired.paused !== true &&
      clusterOf(i)?.metadata.annotations?.["cluster.x-k8s.io/paused"] === undefined
    expect(count((i) => notPaused(i) && conditionOf(i, "Paused")?.status === "True")).toBeGreaterThanOrEqual(
      50,
    )
    expect(
      count(
        (i) =>
          clusterOf(i)?.metadata.deletionTimestamp === undefined &&
          conditionOf(i, "Deleting")?.status === "True",
      ),
    ).toBeGreaterThanOrEqual(100)
    for (const type of ["RemoteConnectionProbe", "Available", "Remediating", "RollingOut"])
      expect(
        count((i) => conditionOf(i, type) !== undefined),
        type,
      ).toBeGreaterThanOrEqual(300)
    expect(
      count((i) => (clusterOf(i)?.status?.deprecated?.v1beta1?.conditions ?? []).length >= 4),
    ).toBeGreaterThanOrEqual(300)
  })
})
