/**
 * The soak's damage to the workload clusters: an API server killed and started again, the
 * credentials of the operator's Clusters and of `krtt propagate` rotated (the old ServiceAccount
 * deleted, so its token is refused), and `krtt propagate`'s RBAC revoked for a while and restored.
 *
 * @module
 */
import { steady } from "../chaos/support.ts"
import { apply, clusterAdminBinding, rotateKubeconfig, sleep } from "../fixtures/index.ts"
import { type Ledger, workloadOf } from "./churn.ts"
import { type Fleet, mintIdentity, NS, propagateSecret, type WorkloadIdentity } from "./fleet.ts"

/** Kills workload cluster `k`'s kube-apiserver, keeps it down `downMs`, starts it again. */
export const restartWorkload = async (fleet: Fleet, k: number, downMs: number): Promise<number> => {
  await fleet.plane.killApiserver(k + 1)
  await sleep(downMs)
  return (await fleet.plane.startApiserver(k + 1)).ms
}

/**
 * New ServiceAccounts for the operator's Clusters and `krtt propagate` on workload cluster `k`:
 * every kubeconfig Secret pointing there rewritten, then the old accounts deleted.
 */
export const rotateCredentials = async (
  fleet: Fleet,
  ledger: Ledger,
  k: number,
  generation: number,
): Promise<void> => {
  const workload = fleet.workloads[k]
  const [oldOperator, oldPropagate] = [fleet.operatorIdentity[k], fleet.propagateIdentity[k]]
  if (workload === undefined || oldOperator === undefined || oldPropagate === undefined)
    throw new Error(`no workload cluster ${k}`)
  const operator = await mintIdentity(workload, `operator-${generation}`)
  const propagate = await mintIdentity(workload, `propagate-${generation}`)
  fleet.operatorIdentity[k] = operator
  fleet.propagateIdentity[k] = propagate
  for (const name of ledger.capi.live.filter((n) => workloadOf(n) === k))
    await rotateKubeconfig(fleet.mgmt, NS.capi, name, operator.kubeconfig)
  await apply(fleet.mgmt, propagateSecret(workload.name, propagate.kubeconfig))
  await oldOperator.revoke()
  await oldPropagate.revoke()
}

const bindingPath = (identity: WorkloadIdentity) =>
  `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${clusterAdminBinding(NS.identities, identity.serviceAccount).metadata.name}`

/**
 * `krtt propagate`'s identity on workload cluster `k` loses its ClusterRoleBinding for `revokeMs`
 * while `meanwhile` runs (a source changes: its copy there is refused until the binding is back).
 */
export const revokeRbac = async (
  fleet: Fleet,
  k: number,
  revokeMs: number,
  meanwhile: () => Promise<void>,
): Promise<void> => {
  const workload = fleet.workloads[k]
  const identity = fleet.propagateIdentity[k]
  if (workload === undefined || identity === undefined) throw new Error(`no workload cluster ${k}`)
  await steady(workload, "DELETE", bindingPath(identity), { ok: [200] })
  await meanwhile()
  await sleep(revokeMs)
  await apply(workload, clusterAdminBinding(NS.identities, identity.serviceAccount))
}
