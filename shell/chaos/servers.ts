/**
 * The fake API servers of one chaos run and what their commits record: the management server with
 * the suite's resources installed and its invariants watching every commit, the workload servers
 * (made on first use, by URL), each object's creates and deletes (`lifecycle`), and the first
 * object that grew past `ChaosDefaults.maxObjectBytes`.
 *
 * Expected flow: `makeRunServers` → the operator and the scenario write → `snap` after each tick →
 * `close` at the end (the invariants and records stop following the servers).
 *
 * @module
 */
import * as Effect from "effect/Effect"
import { FakeApiServer } from "../apiserver/server.ts"
import type { KubeError } from "../kube/errors.ts"
import { aboutOf, malformedEvent } from "./events.ts"
import { ChaosDefaults } from "./perturbations.ts"
import type { Stage } from "./scenarios.ts"
import { nameOf, snapshot } from "./snapshot.ts"
import type { Suite } from "./suite.ts"

/** A server by URL (`""`: the management server). */
export type ServerEntry = readonly [string, FakeApiServer]

export interface RunServers {
  readonly mgmt: FakeApiServer
  /** The workload server behind a URL (made on first use). */
  readonly workload: (url: string) => FakeApiServer
  /** What a scenario's steps act on. */
  readonly stage: Stage
  /** The workload servers made so far, by URL. */
  readonly workloads: () => ReadonlyArray<ServerEntry>
  /** The management server, then every workload server. */
  readonly all: () => ReadonlyArray<ServerEntry>
  /** Safety violations, in order (the suite's invariants and the operator's own reports). */
  readonly violations: Array<string>
  /** Creates (`+`) and deletes (`-`) per object (Events left out: every retry may emit one). */
  readonly lifecycle: Record<string, string>
  /** The first object that grew too large, said as a failure, if any did. */
  readonly oversized: () => string | undefined
  /** The state compared with the reference (`snapshot.ts`), as the suite compares it. */
  readonly snap: () => ReadonlyArray<string>
  /** Stops following the servers' commits. */
  readonly close: () => void
}

/** Makes the management server, installs the suite's resources and starts following its commits. */
export const makeRunServers = (suite: Suite): Effect.Effect<RunServers, KubeError> =>
  Effect.gen(function* () {
    const mgmt = yield* FakeApiServer.make({ garbageCollection: suite.garbageCollection !== false })
    yield* suite.install(mgmt)
    const violations: Array<string> = []
    const lifecycle: Record<string, string> = {}
    let oversized: string | undefined
    const follow = (server: FakeApiServer, prefix: string) =>
      server.onCommit(({ resource, type, object }) => {
        if (oversized === undefined && JSON.stringify(object).length > ChaosDefaults.maxObjectBytes)
          oversized = `${object.kind ?? resource} ${object.metadata.namespace ?? ""}/${object.metadata.name ?? ""} grew past ${ChaosDefaults.maxObjectBytes} bytes`
        if (resource === "/events") {
          const bad = type === "DELETED" ? undefined : malformedEvent(object)
          if (bad !== undefined)
            violations.push(
              `${prefix}Event ${object.metadata.namespace ?? ""}/${nameOf(object)} about ${aboutOf(object)}: ${bad}`,
            )
          return
        }
        const k = `${prefix}${resource} ${object.metadata.namespace ?? ""}/${nameOf(object)}`
        if (type === "ADDED") lifecycle[k] = `${lifecycle[k] ?? ""}+`
        else if (type === "DELETED") lifecycle[k] = `${lifecycle[k] ?? ""}-`
      })
    const made = new Map<string, FakeApiServer>()
    const unfollow: Array<() => void> = []
    const workload = (url: string) => {
      let w = made.get(url)
      if (w === undefined) {
        w = Effect.runSync(FakeApiServer.make({ namespaceLifecycle: suite.workloadNamespaces === true }))
        made.set(url, w)
        if (suite.snapshotWorkloads) unfollow.push(follow(w, `${url} `))
      }
      return w
    }
    const workloads = () => [...made.entries()]
    const unwatch = suite.invariants(mgmt, workloads, violations)
    unfollow.push(follow(mgmt, ""))
    return {
      mgmt,
      workload,
      stage: { mgmt, workload },
      workloads,
      all: () => [["", mgmt], ...made.entries()],
      violations,
      lifecycle,
      oversized: () => oversized,
      snap: () => snapshot(mgmt, suite.snapshotWorkloads ? workloads() : [], suite.maskObject),
      close: () => {
        unwatch()
        for (const u of unfollow) u()
      },
    }
  })
