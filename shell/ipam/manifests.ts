/**
 * Reading the YAML manifests `krtt ipam init` installs (the CRDs of shell/ipam/crds.ts).
 *
 * @module
 */
import { parseAllDocuments } from "yaml"
import type { KubeObject } from "../kube/resource.ts"

/** The objects of a YAML text, in order (empty documents skipped); a parse error names the source. */
export const parseManifests = (source: string, text: string): ReadonlyArray<KubeObject> =>
  parseAllDocuments(text).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors.map((e) => e.message).join("; ")}`)
    const object = doc.toJS() as KubeObject | null
    return object === null ? [] : [object]
  })
