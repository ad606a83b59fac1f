/**
 * Waiting for a controller to be done with a scenario's Cluster: the scenario's state is
 * reached and two reads 2 s apart agree on the status, the finalizers and the deletion. Never
 * throws: a Cluster that does not settle in time is reported as such.
 *
 * @module
 */
import type { Cluster } from "../../testenv/index.ts"
import { getObject, type KubeObject, paths, sleep } from "../fixtures/index.ts"
import { NAME } from "./objects.ts"

const STABLE_MS = 2_000
const POLL_MS = 250

const fingerprint = (c: KubeObject | undefined) =>
  JSON.stringify([c?.status, c?.metadata.finalizers, c?.metadata.deletionTimestamp])

/** Whether the Cluster of `ns` reached `state` and held still within `timeoutMs`. */
export const settle = async (
  mgmt: Cluster,
  ns: string,
  state: (c: KubeObject | undefined) => boolean,
  timeoutMs: number,
): Promise<boolean> => {
  const path = paths.cluster(ns, NAME)
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const first = await getObject(mgmt, path).catch(() => undefined)
    if (state(first)) {
      await sleep(STABLE_MS)
      const second = await getObject(mgmt, path).catch(() => undefined)
      if (state(second) && fingerprint(first) === fingerprint(second)) return true
    } else await sleep(POLL_MS)
  }
  return false
}
