/**
 * The synchronous driver (`driver.ts`) that the simulator, the sequence tests and
 * `krtt explain --reconcile` embed: one whole reconcile, transition after transition, with
 * everything it reports (rows, metrics, events, connects, disconnects, accessor lifecycle).
 */
import { describe, expect, it } from "vitest"
import { TableLoopError } from "../krtt/run.ts"
import {
  type AccessorState,
  ClusterCacheDefaults,
  clusterCacheConfig,
  type ReconcilerDesired,
  reconcilerTransition,
  runConnect,
  runReconcile,
  type SyncWorld,
} from "./index.ts"

const NOW = 1_700_000_000_000
const found: ReconcilerDesired = {
  cluster: { _tag: "Found", infrastructureProvisioned: true, deleting: false },
  sources: [{ name: "machine", probeFailureDurations: [] }],
}
const connectedAccessor = (o: Partial<AccessorState> = {}): AccessorState => ({
  connected: true,
  lastConnectionCreationErrorTime: undefined,
  lastProbeTime: NOW - 10_000,
  lastProbeSuccessTime: NOW - 10_000,
  consecutiveFailures: 0,
  watches: [],
  lastEventSent: {},
  privateKeyGenerated: true,
  ...o,
})
const world = (w: Partial<SyncWorld> = {}): SyncWorld => ({
  connect: () => ({ ok: true }),
  probe: () => "success",
  ...w,
})

describe("runReconcile()", () => {
  it("a new Cluster: creates the accessor, connects through the accessor table, sends one connect event", () => {
    const r = runReconcile(undefined, found, NOW, world())
    expect(r.accessorCreated).toBe(true)
    expect(r.accessorRemoved).toBe(false)
    expect(r.connectAttempt).toBe("succeeded")
    expect(r.connected).toBe(true)
    expect(r.disconnected).toBe(false)
    expect(r.accessor?.connected).toBe(true)
    expect(r.rows[0]).toBe("clustercache.reconciler#1")
    expect(r.rows.filter((x) => x.startsWith("clustercache.accessor#")).length).toBeGreaterThan(0)
    expect(r.events).toEqual([{ _tag: "SendEvent", source: "machine", reasons: ["connect"] }])
    expect(r.metrics).toEqual([{ _tag: "SetConnectionUp", value: 1 }])
    expect(r.requeueAfter).toBe(ClusterCacheDefaults.healthProbe.interval)
  })

  it("a failed connect: the failure's step decides, the reconcile requeues after the retry interval", () => {
    for (const step of ["createConnection", "createClients", "cacheSync"] as const) {
      const r = runReconcile(
        undefined,
        found,
        NOW,
        world({ connect: () => ({ ok: false, step, error: "boom" }) }),
      )
      expect(r.connectAttempt, step).toBe("failed")
      expect(r.connected, step).toBe(false)
      expect(r.accessor?.lastConnectionCreationErrorTime, step).toBe(NOW)
      expect(r.requeueAfter, step).toBe(ClusterCacheDefaults.connectionCreationRetryInterval)
      expect(r.events, step).toEqual([])
    }
  })

  it("a probe: metrics of a success, no connect, no event", () => {
    const r = runReconcile(connectedAccessor(), found, NOW, world())
    expect(r.probe).toBe("success")
    expect(r.connectAttempt).toBe("none")
    expect(r.accessorCreated).toBe(false)
    expect(r.metrics).toContainEqual({ _tag: "SetHealthCheck", value: 1 })
    expect(r.metrics).toContainEqual({ _tag: "IncHealthChecksTotal", status: "success" })
    expect(r.events).toEqual([])
  })

  it("the fifth failed probe disconnects and tells the sources once", () => {
    const r = runReconcile(
      connectedAccessor({ consecutiveFailures: 4 }),
      found,
      NOW,
      world({ probe: () => "failure" }),
    )
    expect(r.disconnected).toBe(true)
    expect(r.accessor?.connected).toBe(false)
    expect(r.events).toEqual([{ _tag: "SendEvent", source: "machine", reasons: ["disconnect"] }])
    expect(r.metrics).toContainEqual({ _tag: "IncHealthChecksTotal", status: "error" })
  })

  it("a deleted Cluster removes an accessor that existed, and only then", () => {
    const gone: ReconcilerDesired = { cluster: { _tag: "NotFound" }, sources: [] }
    const withAccessor = runReconcile(connectedAccessor(), gone, NOW, world())
    expect(withAccessor.accessorRemoved).toBe(true)
    expect(withAccessor.accessor).toBeUndefined()
    expect(withAccessor.requeueAfter).toBeUndefined()
    const without = runReconcile(undefined, gone, NOW, world())
    expect(without.accessorRemoved).toBe(false)
    expect(without.accessorCreated).toBe(false)
  })

  it("stops when a transition is done (the probe is not due: row 15, then row 12 completes)", () => {
    const r = runReconcile(
      connectedAccessor({ lastProbeTime: NOW - 1_000 }),
      found,
      NOW,
      world({
        probe: () => {
          throw new Error("no probe may run")
        },
      }),
    )
    expect(r.rows).toEqual(["clustercache.reconciler#15", "clustercache.reconciler#12"])
    expect(r.requeueAfter).toBe(9_000)
  })
})

describe("runReconcile(), metrics and flags of a probe", () => {
  it("a 401 from the probe: error health metrics and the connection gauge down, disconnected but not 'connected' by this run (rows 7, 11, 12)", () => {
    const r = runReconcile(connectedAccessor(), found, NOW, world({ probe: () => "unauthorized" }))
    expect(r.rows).toEqual([
      "clustercache.reconciler#7",
      "clustercache.reconciler#11",
      "clustercache.reconciler#12",
    ])
    expect(r.metrics).toEqual([
      { _tag: "SetHealthCheck", value: 0 },
      { _tag: "IncHealthChecksTotal", status: "error" },
      { _tag: "SetConnectionUp", value: 0 },
    ])
    expect(r.disconnected).toBe(true)
    expect(r.connected).toBe(false)
    expect(r.connectAttempt).toBe("none")
  })
})

describe("runReconcile() and loops", () => {
  it("no documented path takes more than 4 Reconciler transitions, well under the bound of 16", () => {
    expect(ClusterCacheDefaults.maxTransitionsPerReconcile).toBe(16)
    const paths = [
      runReconcile(undefined, found, NOW, world()),
      runReconcile(connectedAccessor(), found, NOW, world()),
      runReconcile(connectedAccessor(), found, NOW, world({ probe: () => "unauthorized" })),
      runReconcile(
        undefined,
        found,
        NOW,
        world({ connect: () => ({ ok: false, step: "cacheSync", error: "x" }) }),
      ),
    ]
    for (const r of paths)
      expect(r.rows.filter((x) => x.startsWith("clustercache.reconciler#")).length).toBeLessThanOrEqual(4)
  })

  it("a Reconciler that never ends its reconcile fails after exactly 16 transitions, naming the row that looped", () => {
    // Each transition names a row of its own, so the error's rows can be told apart.
    let n = 0
    const looping: typeof reconcilerTransition = (input, config) => ({
      ...reconcilerTransition(input, config),
      actions: [{ _tag: "Continue", trigger: { _tag: "Reconcile" } }],
      status: { accessor: input.observed.accessor, done: false },
      row: `loop#${++n}`,
    })
    let error: unknown
    try {
      runReconcile(connectedAccessor(), found, NOW, world(), ClusterCacheDefaults, looping)
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(TableLoopError)
    const rows = Array.from({ length: 16 }, (_, i) => `loop#${i + 1}`)
    expect((error as TableLoopError).rows).toEqual(rows)
    expect((error as TableLoopError)._tag).toBe("TableLoopError")
    expect((error as TableLoopError).message).toBe(
      `clustercache.reconciler: a run did not end within 16 transitions (the table loops); rows ${rows.join(" ")}`,
    )
  })

  it("the bound is the configured maxTransitionsPerReconcile", () => {
    const looping: typeof reconcilerTransition = (input, config) => ({
      ...reconcilerTransition(input, config),
      actions: [{ _tag: "Continue", trigger: { _tag: "Reconcile" } }],
      status: { accessor: input.observed.accessor, done: false },
    })
    const config = clusterCacheConfig({ maxTransitionsPerReconcile: 5 })
    expect(() => runReconcile(connectedAccessor(), found, NOW, world(), config, looping)).toThrow(
      expect.objectContaining({ _tag: "TableLoopError", bound: 5, table: "clustercache.reconciler" }),
    )
    // The documented paths stay well within a small bound.
    expect(runReconcile(undefined, found, NOW, world(), config).connectAttempt).toBe("succeeded")
  })
})

describe("runConnect()", () => {
  const fresh = connectedAccessor({
    connected: false,
    lastProbeTime: undefined,
    lastProbeSuccessTime: undefined,
  })
  it("walks the accessor table through creation, clients and sync, and reports the connection-up metric", () => {
    const rows: Array<`${string}#${number}`> = []
    const metrics: Array<{ readonly _tag: string }> = []
    const c = runConnect(fresh, world(), NOW, ClusterCacheDefaults, rows, metrics as never)
    expect(c.ok).toBe(true)
    expect(c.accessor.connected).toBe(true)
    expect(rows.length).toBeGreaterThanOrEqual(3)
    expect(metrics).toEqual([{ _tag: "SetConnectionUp", value: 1 }])
  })
  it("fails at exactly the step the world names", () => {
    const lengths = (["createConnection", "createClients", "cacheSync"] as const).map((step) => {
      const rows: Array<`${string}#${number}`> = []
      const c = runConnect(
        fresh,
        world({ connect: () => ({ ok: false, step, error: "x" }) }),
        NOW,
        ClusterCacheDefaults,
        rows,
        [],
      )
      expect(c.ok, step).toBe(false)
      expect(c.accessor.connected, step).toBe(false)
      return rows.length
    })
    // A later failing step walks through more of the table before it fails.
    expect(lengths[0]).toBeLessThan(lengths[1] as number)
    expect(lengths[1]).toBeLessThan(lengths[2] as number)
  })
  it("generates the client certificate key when asked, and keeps it afterwards", () => {
    const noKey = { ...fresh, privateKeyGenerated: false }
    const a = runConnect(noKey, world(), NOW, ClusterCacheDefaults, [], [], "enabled")
    expect(a.accessor.privateKeyGenerated).toBe(true)
    const b = runConnect(noKey, world(), NOW, ClusterCacheDefaults, [], [], "disabled")
    expect(b.accessor.privateKeyGenerated).toBe(false)
    const kept = runConnect(
      { ...fresh, privateKeyGenerated: true },
      world(),
      NOW,
      ClusterCacheDefaults,
      [],
      [],
      "disabled",
    )
    expect(kept.accessor.privateKeyGenerated).toBe(true)
  })
})
