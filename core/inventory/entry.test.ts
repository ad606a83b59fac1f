import { describe, expect, it } from "vitest"
import {
  EntryRow,
  entryKey,
  entryTransition,
  InventoryDefaults,
  inventoryConfig,
  parseEntry,
  renderEntry,
} from "./index.ts"

const NOW = Date.parse("2026-11-24T07:00:00.000Z")
const facts = { kubernetesVersion: "v1.34.1", nodes: 3, readyNodes: 2 }
const input = (
  view: Parameters<typeof entryTransition>[0]["observed"]["view"],
  stored?: string,
  pendingSince?: number,
) => ({
  observed: { cluster: "east", view, stored, pendingSince },
  desired: {},
  trigger: { _tag: "Reconcile" as const },
  now: NOW,
})

describe("InventoryDefaults", () => {
  it("documents a 2 s debounce, a 1 s cluster poll, a 10 min version refresh and a 1 s retry", () => {
    expect(InventoryDefaults).toEqual({
      debounce: 2_000,
      clusterPollInterval: 1_000,
      versionRefresh: 600_000,
      retry: 1_000,
    })
  })

  it("inventoryConfig overrides a value and refuses an unknown key naming the closest", () => {
    expect(inventoryConfig({ debounce: 0 }).debounce).toBe(0)
    expect(() => inventoryConfig({ debounse: 5 } as never)).toThrow(
      /unknown key debounse; did you mean "debounce"/,
    )
    expect(() => inventoryConfig({ debounce: -1 })).toThrow(/debounce must be a non-negative/)
  })

  it("inventoryConfig accepts 0 for every field and refuses a negative, non-finite or non-numeric value, naming it", () => {
    for (const key of Object.keys(InventoryDefaults) as Array<keyof typeof InventoryDefaults>) {
      expect(inventoryConfig({ [key]: 0 })[key]).toBe(0)
      for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, "5"])
        expect(() => inventoryConfig({ [key]: bad } as never), `${key}=${String(bad)}`).toThrow(
          `inventory config: ${key} must be a non-negative number of milliseconds, got ${String(bad)}`,
        )
    }
    expect(inventoryConfig()).toEqual(InventoryDefaults)
  })
})

describe("entryKey", () => {
  it("is the cluster's name when that is a valid ConfigMap key", () => {
    expect(entryKey("east")).toBe("east")
    expect(entryKey("a.b-c_d")).toBe("a.b-c_d")
  })

  it("sanitizes other names and keeps them apart with a hash suffix", () => {
    const a = entryKey("fleet/prod-1")
    const b = entryKey("fleet#prod-1")
    expect(a).toMatch(/^fleet-prod-1\.[0-9a-f]{8}$/)
    expect(b).toMatch(/^fleet-prod-1\.[0-9a-f]{8}$/)
    expect(a).not.toBe(b)
    expect(entryKey("x/".repeat(200)).length).toBeLessThanOrEqual(253)
  })
})

describe("parseEntry", () => {
  const doc = {
    cluster: "east",
    ...facts,
    engagedSince: "2026-11-24T06:00:00.000Z",
    lastChange: "2026-11-24T06:30:00.000Z",
    reachable: true,
  }
  it("round-trips a rendered entry", () => {
    expect(parseEntry("east", renderEntry(doc))).toEqual(doc)
  })
  it("refuses another cluster's document, junk and wrong types", () => {
    expect(parseEntry("west", renderEntry(doc))).toBeUndefined()
    expect(parseEntry("east", "{")).toBeUndefined()
    expect(parseEntry("east", JSON.stringify({ ...doc, nodes: "3" }))).toBeUndefined()
    expect(parseEntry("east", undefined)).toBeUndefined()
  })
})

describe("entryTransition", () => {
  const stored = renderEntry({
    cluster: "east",
    ...facts,
    engagedSince: "2026-11-24T06:00:00.000Z",
    lastChange: "2026-11-24T06:30:00.000Z",
    reachable: true,
  })

  it("inventory.entry#1: a first engagement writes the whole document at once", () => {
    const r = entryTransition(input({ _tag: "Engaged", facts }), InventoryDefaults)
    expect(r.row).toBe(EntryRow.firstEngaged)
    expect(r.actions).toEqual([
      {
        _tag: "PutEntry",
        key: "east",
        value:
          '{"cluster":"east","kubernetesVersion":"v1.34.1","nodes":3,"readyNodes":2,"engagedSince":"2026-11-24T07:00:00.000Z","lastChange":"2026-11-24T07:00:00.000Z","reachable":true}',
      },
    ])
  })

  it("inventory.entry#4, #5, #6: a change waits the 2 s debounce from its first sight, then is written", () => {
    const more = { _tag: "Engaged" as const, facts: { ...facts, nodes: 4 } }
    const first = entryTransition(input(more, stored), InventoryDefaults)
    expect(first).toMatchObject({
      row: EntryRow.changeStartsWaiting,
      actions: [{ _tag: "RequeueAfter", delay: 2_000 }],
    })
    expect(first.status.pendingSince).toBe(NOW)
    const later = entryTransition(input(more, stored, NOW - 1_500), InventoryDefaults)
    expect(later).toMatchObject({
      row: EntryRow.changeStillWaiting,
      actions: [{ _tag: "RequeueAfter", delay: 500 }],
    })
    const due = entryTransition(input(more, stored, NOW - 2_000), InventoryDefaults)
    expect(due.row).toBe(EntryRow.changeWritten)
    const written = parseEntry("east", (due.actions[0] as { value: string }).value)
    expect(written).toMatchObject({
      nodes: 4,
      engagedSince: "2026-11-24T06:00:00.000Z",
      lastChange: "2026-11-24T07:00:00.000Z",
    })
  })

  it("inventory.entry#7, #8, #2: unreachable at once, kept, reachable again with a new engagement", () => {
    const reason = "probe failed 5 times in a row (threshold 5): connect ECONNREFUSED"
    const down = entryTransition(input({ _tag: "Unhealthy", reason }, stored), InventoryDefaults)
    expect(down.row).toBe(EntryRow.markedUnreachable)
    const value = (down.actions[0] as { value: string }).value
    expect(parseEntry("east", value)).toMatchObject({ reachable: false, reason, nodes: 3, readyNodes: 2 })
    expect(
      entryTransition(input({ _tag: "Unhealthy", reason: "other" }, value), InventoryDefaults).actions,
    ).toEqual([])
    const back = entryTransition(input({ _tag: "Engaged", facts }, value), InventoryDefaults)
    expect(back.row).toBe(EntryRow.engagedAgain)
    expect(parseEntry("east", (back.actions[0] as { value: string }).value)).toMatchObject({
      reachable: true,
      engagedSince: "2026-11-24T07:00:00.000Z",
    })
  })

  it("inventory.entry#10: a cluster that left loses its key; #12: a waiting cluster changes nothing", () => {
    expect(entryTransition(input({ _tag: "Absent" }, stored), InventoryDefaults).actions).toEqual([
      { _tag: "RemoveEntry", key: "east" },
    ])
    expect(entryTransition(input({ _tag: "Waiting" }, stored), InventoryDefaults).actions).toEqual([])
  })
})

describe("entryKey and parseEntry at their edges (one key per cluster, a stored value that is not this cluster's document counts as none)", () => {
  const doc = {
    cluster: "east",
    kubernetesVersion: "v1.34.4",
    nodes: 3,
    readyNodes: 2,
    engagedSince: "2026-01-01T00:00:00.000Z",
    lastChange: "2026-01-01T00:00:01.000Z",
    reachable: true,
  }
  const raw = (o: Record<string, unknown>) => JSON.stringify(o)
  it("a valid key of exactly 253 characters is kept, one of 254 is hashed", () => {
    expect(entryKey("a".repeat(253))).toBe("a".repeat(253))
    expect(entryKey("a".repeat(254))).toMatch(/^a{200}\.[0-9a-f]{8}$/)
  })
  it("the hash suffix is always 8 hex digits and differs for names that sanitize alike", () => {
    for (const name of ["a/b", "x#y", "/", "é", "capi/east"]) expect(entryKey(name)).toMatch(/\.[0-9a-f]{8}$/)
    expect(entryKey("a/b")).not.toBe(entryKey("a#b"))
    expect(entryKey("a/bc")).not.toBe(entryKey("a/b"))
  })
  it("reads a document of this cluster, the reason when unreachable", () => {
    expect(parseEntry("east", raw(doc))).toEqual(doc)
    const down = { ...doc, reachable: false, reason: "probe failed" }
    expect(parseEntry("east", raw(down))).toEqual(down)
    expect(parseEntry("east", raw({ ...doc, reason: undefined }))).not.toHaveProperty("reason")
  })
  it("counts as none: no value, not JSON, not an object, a field missing or of the wrong type, another cluster", () => {
    expect(parseEntry("east", undefined)).toBeUndefined()
    for (const bad of ["{", "[]", "null", "3", '"east"']) expect(parseEntry("east", bad), bad).toBeUndefined()
    for (const [field, value] of [
      ["cluster", "west"],
      ["kubernetesVersion", 134],
      ["nodes", -1],
      ["nodes", 1.5],
      ["nodes", "3"],
      ["readyNodes", -1],
      ["engagedSince", "yesterday"],
      ["engagedSince", 5],
      ["lastChange", "soon"],
      ["reachable", "true"],
      ["reason", 7],
    ] as const)
      expect(parseEntry("east", raw({ ...doc, [field]: value })), `${field}=${String(value)}`).toBeUndefined()
  })
  it("renders the reason only for an unreachable entry", () => {
    expect(JSON.parse(renderEntry({ ...doc, reachable: true, reason: "stale" }))).not.toHaveProperty("reason")
    expect(JSON.parse(renderEntry({ ...doc, reachable: false, reason: "down" })).reason).toBe("down")
    expect(JSON.parse(renderEntry({ ...doc, reachable: false }))).not.toHaveProperty("reason")
  })
})

describe("entryKey's suffix is FNV-1a, 32 bits, 8 hex digits (a stable name for a sanitized key)", () => {
  it("matches FNV-1a of the whole name, zero-padded", () => {
    expect(entryKey("a/b")).toBe("a-b.3a8e75c1")
    expect(entryKey("n/608")).toBe("n-608.0c2ea1cc")
  })
  it("the unknown-key error lists the known keys", () => {
    expect(() => inventoryConfig({ x: 1 } as never)).toThrow(
      "(known: debounce, clusterPollInterval, versionRefresh, retry)",
    )
  })
})
