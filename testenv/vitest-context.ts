// For test files: the control plane that testenv/vitest-global-setup.ts started for this run.
import { inject } from "vitest"
import { attachControlPlane, type ControlPlaneHandle, type ControlPlaneInfo } from "./controlplane.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** Set by testenv/vitest-global-setup.ts; null when the run has no e2e/ file. */
    krttControlPlane: ControlPlaneInfo | null
  }
}

/**
 * The shared control plane of this test run. Shared by every e2e file running at the same time:
 * use namespaces and names of your own, and `newUser`/`userWithRules` for users of your own.
 */
export const sharedControlPlane = (): ControlPlaneHandle => {
  const info = inject("krttControlPlane")
  if (info === null || info === undefined) {
    throw new Error(
      "no shared control plane in this run: testenv/vitest-global-setup.ts starts one when the run " +
        "includes a test file under e2e/ (or when KRTT_TESTENV=always); see docs/testenv.md",
    )
  }
  return attachControlPlane(info)
}
