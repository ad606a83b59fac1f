/**
 * The promises of `krtt-propagate-pending` (shell/fleet/propagate/pending.ts, docs/fleet.md),
 * checked on every committed write of it:
 * - no cleanup is lost: a cluster leaves a source's list only once its server holds no copy of
 *   that source (the cluster was cleaned, or its server is gone from the fleet);
 * - a key that names no source (another kind, another shape: an administrator's note) is left
 *   alone: kept, with its value, by every write.
 *
 * Deleting the ConfigMap is not the operator's (it never does); such a commit is not judged.
 *
 * @module
 */
import { PropagatedFromLabel } from "../../core/propagate/index.ts"
import type { FakeApiServer } from "../apiserver/server.ts"
import { PendingConfigMap } from "../fleet/propagate/index.ts"
import { clustersOf } from "../fleet/propagate/pending.ts"
import { type KubeObject, type ResourceRef, Resources } from "../kube/resource.ts"

/** A cluster of the fleet: its name (its kubeconfig Secret's), its server and URL. */
export interface FleetMember {
  readonly name: string
  readonly server: FakeApiServer
  readonly url: string | undefined
}

const SOURCE_KINDS: Readonly<Record<string, ResourceRef>> = {
  ConfigMap: Resources.configMaps,
  Secret: Resources.secrets,
}

/** The source a key names (`<Kind>.<namespace>.<name>`, the name may hold dots), if it names one. */
const sourceOfKey = (key: string) => {
  const [kind = "", namespace = "", ...rest] = key.split(".")
  const ref = SOURCE_KINDS[kind]
  if (ref === undefined || namespace === "" || rest.length === 0) return undefined
  return { kind, ref, from: `${namespace}.${rest.join(".")}` }
}

const dataOf = (o: KubeObject): Readonly<Record<string, unknown>> =>
  (o as { data?: Record<string, unknown> }).data ?? {}

/** Watches the hub's `krtt-propagate-pending` in `namespace`; returns the unsubscribe. */
export const pendingKept = (
  mgmt: FakeApiServer,
  namespace: string,
  fleet: () => ReadonlyArray<FleetMember>,
  violations: Array<string>,
): (() => void) =>
  mgmt.onCommit(({ resource, type, object, old }) => {
    if (resource !== "/configmaps" || type === "DELETED" || old === undefined) return
    if (object.metadata.namespace !== namespace || object.metadata.name !== PendingConfigMap) return
    const [before, after] = [dataOf(old), dataOf(object)]
    const at = `(rv ${object.metadata.resourceVersion})`
    for (const [key, value] of Object.entries(before)) {
      const source = sourceOfKey(key)
      if (source === undefined) {
        if (after[key] !== value)
          violations.push(
            `${PendingConfigMap}: key ${key}, which names no source, ${after[key] === undefined ? "removed" : `changed to ${JSON.stringify(after[key])}`} ${at}`,
          )
        continue
      }
      const str = (v: unknown) => (typeof v === "string" ? v : undefined)
      const left = clustersOf(str(after[key]))
      for (const cluster of clustersOf(str(value)).filter((c) => !left.includes(c))) {
        const member = fleet().find((m) => m.name === cluster)
        const copy = member?.server
          .objects(source.ref)
          .find((o) => o.metadata.labels?.[PropagatedFromLabel] === source.from)
        if (member === undefined || copy === undefined) continue
        violations.push(
          `${PendingConfigMap}: ${cluster} no longer listed for ${source.kind} ${source.from.replace(".", "/")} while ${member.url} holds its copy ${copy.metadata.namespace}/${copy.metadata.name} ${at}`,
        )
      }
    }
  })
