/**
 * Reading the YAML manifests `krtt ipam init` installs (deploy/ipam/crds).
 *
 * @module
 */
import { readFileSync } from "node:fs"
import { parseAllDocuments } from "yaml"
import type { KubeObject } from "../kube/resource.ts"

/** The objects of a YAML file, in order (empty documents skipped); a parse error names the file. */
export const readManifestFile = (path: string): ReadonlyArray<KubeObject> =>
  parseAllDocuments(readFileSync(path, "utf8")).flatMap((doc) => {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors.map((e) => e.message).join("; ")}`)
    const object = doc.toJS() as KubeObject | null
    return object === null ? [] : [object]
  })
