/**
 * What makes a controller set a chaos target, as data: its controller names (what
 * `--controllers` selects), its scenarios, how its operator starts, its safety invariants, what
 * the third-party writer touches, and what of the state is compared. The run (`runPlan.ts`)
 * applies the same perturbations and oracles to every suite.
 *
 * @module
 */
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { FakeApiServer } from "../apiserver/server.ts"
import type { KubeClientShape, ListAllOptions } from "../kube/client.ts"
import type { KubeError } from "../kube/errors.ts"
import type { KubeObject, ResourceRef } from "../kube/resource.ts"
import type { Mutant } from "./mutants.ts"
import type { ControllerName, FastPoints } from "./perturbations.ts"
import type { Scenario } from "./scenarios.ts"

/** A third party's edit, and what ends it once the operator's write is answered. */
export interface ThirdPartyEdit {
  readonly release: Effect.Effect<void>
}

/** The object an operator is about to write (for the third-party writer of `reorder`). */
export interface WriteTarget {
  readonly server: FakeApiServer
  /** The client's verb: `create`, `update`, `patch`, `delete`, `updateStatus`, `patchStatus`. */
  readonly verb: string
  readonly ref: ResourceRef
  readonly namespace: string | undefined
  readonly name: string | undefined
}

/** What a suite's operator is started with. */
export interface SuiteContext {
  readonly mgmt: FakeApiServer
  /** The operator's client of the management server, with the run's perturbations. */
  readonly client: KubeClientShape
  /** The workload API server behind a server URL (made on first use). */
  readonly workload: (url: string) => FakeApiServer
  /** A client of another server (a workload cluster) with the run's perturbations but stale reads. */
  readonly perturbed: (server: FakeApiServer) => Effect.Effect<KubeClientShape>
  readonly controllers: ReadonlyArray<ControllerName>
  readonly mutant: Mutant | undefined
  /** The name of this process's clients (the servers count their watches under it). */
  readonly clientName: string
  /** Reports a safety violation the operator's own records show (e.g. a reconcile of a disengaged cluster). */
  readonly violation: (message: string) => void
  /** The process exits (e.g. its start failed): it is restarted as after a crash. */
  readonly exit: Effect.Effect<void>
}

export interface Suite {
  readonly name: string
  /** The `--controllers` names that select this suite. */
  readonly controllers: ReadonlyArray<ControllerName>
  readonly scenarios: ReadonlyArray<Scenario>
  /** Resources and CRDs, before the operator starts. */
  readonly install: (mgmt: FakeApiServer) => Effect.Effect<void, KubeError>
  /** Starts the operator in the scope (returns once its controllers started). */
  readonly start: (ctx: SuiteContext) => Effect.Effect<void, never, Scope.Scope>
  /** The safety invariants on every committed write; returns the unsubscribe. */
  readonly invariants: (
    mgmt: FakeApiServer,
    /** The workload servers made so far, by URL. */
    workloads: () => ReadonlyArray<readonly [string, FakeApiServer]>,
    violations: Array<string>,
  ) => () => void
  /** The third party's write before the operator's `n`-th write; undefined when it wrote nothing. */
  readonly thirdParty: (
    mgmt: FakeApiServer,
    target: WriteTarget,
    n: number,
  ) => Effect.Effect<ThirdPartyEdit | undefined>
  /**
   * The workload servers (by URL) the operator has a reason to watch in the state `mgmt` holds
   * now: those of its engaged clusters, or of its live accessors. Once a run settles, a watch the
   * live operator holds on any other workload server is a leak. Default: none.
   */
  readonly engagedServers?: ((mgmt: FakeApiServer) => ReadonlyArray<string>) | undefined
  /** Whether the workload servers' objects are part of the compared state. */
  readonly snapshotWorkloads: boolean
  /**
   * Whether the workload servers' namespaces have a lifecycle (`FakeApiServerOptions.namespaceLifecycle`:
   * content needs its namespace, deleting one deletes its content). Default false.
   */
  readonly workloadNamespaces?: boolean | undefined
  /**
   * Which of the operator's lists a `stale` run serves from the lagging view (default: every
   * list). A list the real API server answers with a consistent read can be left out.
   */
  readonly staleList?: ((options: ListAllOptions | undefined) => boolean) | undefined
  /**
   * Whether the management server collects garbage (owner references cascade, `shell/apiserver/gc.ts`),
   * as a real control plane with kube-controller-manager does. Default true; false only for a suite
   * that must show what happens without it.
   */
  readonly garbageCollection?: boolean | undefined
  /** Points per perturbation kind of the fast campaign (default `ChaosDefaults.fastPoints`). */
  readonly fastPoints?: FastPoints | undefined
  /** Masks what legitimately differs between equal runs of this suite (after the common masking). */
  readonly maskObject?: ((resource: string, object: KubeObject) => KubeObject) | undefined
}
