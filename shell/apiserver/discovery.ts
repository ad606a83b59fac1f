/**
 * The discovery documents the in-memory API server answers, built from its known resources:
 * `/`, `/version`, `/api`, `/apis`, `/api/v1` and `/apis/<group>/<version>`.
 *
 * @module
 */
import { apiVersionOf, groupVersionPath, type ResourceRef } from "../kube/resource.ts"

/** The document for `path`, or `undefined` (404). */
export const discoveryDocument = (resources: ReadonlyArray<ResourceRef>, path: string): unknown => {
  const gvs = [...new Set(resources.map((r) => groupVersionPath(r)))].sort()
  if (path === "/") return { paths: ["/api", "/apis", "/version", ...gvs] }
  if (path === "/version") return { major: "1", minor: "34", gitVersion: "v1.34.0-krtt-fake" }
  if (path === "/api") return { kind: "APIVersions", versions: ["v1"] }
  if (path === "/apis") {
    const groups = [...new Set(resources.filter((r) => r.group !== "").map((r) => r.group))].sort()
    return {
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: groups.map((name) => {
        const versions = [...new Set(resources.filter((r) => r.group === name).map((r) => r.version))]
        const list = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }))
        return { name, versions: list, preferredVersion: list[0] }
      }),
    }
  }
  const inGv = resources.filter((r) => groupVersionPath(r) === path)
  const first = inGv[0]
  if (first === undefined) return undefined
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: apiVersionOf(first),
    resources: inGv.map((r) => ({
      name: r.resource,
      singularName: r.kind.toLowerCase(),
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
    })),
  }
}
