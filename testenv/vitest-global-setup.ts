// Vitest global setup: one control plane for the whole run, its connection info handed to test
// files through provide/inject (see testenv/vitest-context.ts). Started only when the run has a
// test file under e2e/ (or KRTT_TESTENV=always), so that `vitest run core` costs nothing;
// KRTT_TESTENV=never skips it. The binaries are built on first use (see docs/testenv.md).
import { relative, sep } from "node:path"
import type { TestProject } from "vitest/node"
import { startControlPlane } from "./controlplane.ts"

/** Clusters of the shared control plane: a hub and two members is what multi-cluster tests need. */
export const SHARED_CLUSTERS = 3

const wanted = (project: TestProject): boolean => {
  const mode = process.env.KRTT_TESTENV
  if (mode === "always") return true
  if (mode === "never") return false
  const root = project.config.root
  // The files of this run are known before global setups run (vitest records them first).
  const paths = project.vitest.state?.getPaths?.() ?? []
  if (paths.length === 0) return true
  return paths.some((p) => relative(root, p).split(sep).includes("e2e"))
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!wanted(project)) {
    project.provide("krttControlPlane", null)
    return undefined
  }
  const controlPlane = await startControlPlane({
    clusters: SHARED_CLUSTERS,
    log: (line) => process.stderr.write(`testenv: ${line}\n`),
  })
  project.provide("krttControlPlane", controlPlane.info)
  return () => controlPlane.stop()
}
