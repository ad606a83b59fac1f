/**
 * Every number of the Cluster controller in one object, milliseconds for durations.
 *
 * The first two are documented by seed 001; the others are the upstream defaults of values the
 * seed relies on without naming them. Each is overridable: every transition takes the
 * configuration as its second argument, defaulting to {@link ClusterControllerDefaults}.
 *
 * @module
 */

export interface ClusterControllerConfig {
  /**
   * Requeue while a referenced infrastructure or control-plane object does not exist yet.
   * Default 30 s (reconcileInfrastructure and reconcileControlPlane, "Requeue after 30s";
   * Normal Reconciliation, rows 7 and 9; Error Handling, row 5).
   */
  readonly missingReferenceRequeueAfter: number
  /**
   * Requeue while descendants are still being deleted. Default 5 s (Deletion Reconciliation,
   * row 5; reconcileDelete, "Requeue after 5s").
   */
  readonly deleteRequeueAfter: number
  /**
   * How long after the last successful health probe `RemoteConnectionProbe` stays True.
   * Default 50 s (upstream's `--remote-connection-grace-period`).
   */
  readonly remoteConnectionGracePeriod: number
  /** How many object names a condition message lists before "and N more". Default 3. */
  readonly maxNamesInMessage: number
  /**
   * How many names of each kind `Deleting=WaitingForWorkersDeletion`'s message lists before
   * "... (N more)". Default 5 (upstream's `StringListToString`).
   */
  readonly maxNamesInDeletingMessage: number
  /**
   * While the ClusterCache has had no successful probe and fewer failed ones than this,
   * `RemoteConnectionProbe` keeps its value (a manager that just started must not flip it).
   * Default 5 (upstream: the ClusterCache's health probe failure threshold).
   */
  readonly remoteConnectionFailureThreshold: number
  /**
   * Requeue when the kubeconfig Secret cannot be created because the `<cluster>-ca` Secret does
   * not exist yet. Default 30 s (upstream's reconcileKubeconfig).
   */
  readonly missingCaRequeueAfter: number
}

/** The defaults: seed 001's numbers and upstream's. */
export const ClusterControllerDefaults: ClusterControllerConfig = {
  missingReferenceRequeueAfter: 30_000,
  deleteRequeueAfter: 5_000,
  remoteConnectionGracePeriod: 50_000,
  maxNamesInMessage: 3,
  maxNamesInDeletingMessage: 5,
  remoteConnectionFailureThreshold: 5,
  missingCaRequeueAfter: 30_000,
}

/** The defaults with the given values overridden. */
export const clusterControllerConfig = (
  overrides: Partial<ClusterControllerConfig> = {},
): ClusterControllerConfig => ({ ...ClusterControllerDefaults, ...overrides })
