/**
 * The numbers seed 001 documents for the Cluster controller, stated here from the document
 * itself (never read from core); `documented.test.ts` holds core's `ClusterControllerDefaults`
 * to them. Milliseconds.
 *
 * @module
 */
import type { DocumentedValue } from "../clustercache/documented.ts"

export const ClusterControllerDocumented = {
  /**
   * reconcileInfrastructure and reconcileControlPlane flowcharts ("Requeue after 30s"); Normal
   * Reconciliation rows for a missing infrastructure or control-plane object; Error Handling row 5.
   */
  missingReferenceRequeueAfter: {
    value: 30_000,
    source: "reconcileInfrastructure/reconcileControlPlane: Requeue after 30s; Error Handling row 5",
  },
  /** reconcileDelete flowchart ("WaitingForWorkersDeletion, Requeue after 5s"); Deletion row 5. */
  deleteRequeueAfter: {
    value: 5_000,
    source: "reconcileDelete: WaitingForWorkersDeletion, Requeue after 5s; Deletion Reconciliation row 5",
  },
} as const satisfies Record<string, DocumentedValue>
