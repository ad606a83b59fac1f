// Per-watch engage options (seed 003's EngageWithDefaultCluster / EngageWithProviderClusters,
// taken per watch as upstream's builder does): properties of the engagement table's verdict.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type EngagementOptions,
  sourcesFor,
  verdict,
  type WatchSpec,
  watchEngagesLocal,
  watchEngagesProviderClusters,
} from "../../core/multicluster/index.ts"
import { optionsArb } from "./arbitraries.ts"

/** Every watch with its unset options written out as their effective values. */
const explicit = (o: EngagementOptions): EngagementOptions => ({
  ...o,
  watches: o.watches.map(
    (w): WatchSpec => ({
      ...w,
      engageWithLocalCluster: watchEngagesLocal(o, w),
      ...(o.hasProvider ? { engageWithProviderClusters: watchEngagesProviderClusters(o, w) } : {}),
    }),
  ),
})

describe("multicluster.engagement: engage options per watch", () => {
  it("writing out a watch's effective options changes nothing", () => {
    fc.assert(
      fc.property(optionsArb(), (o) => {
        expect(verdict(explicit(o))).toEqual(verdict(o))
      }),
      { numRuns: 3_000 },
    )
  })

  it("a watch's own options decide for it whatever the controller's say", () => {
    fc.assert(
      fc.property(optionsArb(), fc.boolean(), fc.boolean(), (o, local, providers) => {
        const own = explicit(o).watches
        const flipped: EngagementOptions = {
          ...o,
          engageWithLocalCluster: local,
          engageWithProviderClusters: providers,
          watches: own,
        }
        expect(sourcesFor(flipped)).toEqual(sourcesFor(o))
      }),
      { numRuns: 3_000 },
    )
  })

  it("rejecting a cluster in one watch's filter removes that watch only, and never on the hub", () => {
    fc.assert(
      fc.property(optionsArb(), fc.nat(), (o, pick) => {
        if (o.watches.length === 0) return
        const target = o.watches[pick % o.watches.length] as WatchSpec
        const rejected: EngagementOptions = {
          ...o,
          watches: o.watches.map((w) => (w.name === target.name ? { ...w, clusterFilter: "reject" } : w)),
        }
        const expected =
          o.cluster === "" ? sourcesFor(o) : sourcesFor(o).filter((name) => name !== target.name)
        expect(sourcesFor(rejected)).toEqual(expected)
      }),
      { numRuns: 3_000 },
    )
  })

  it("a cluster is engaged exactly when some watch applies to it, with those watches' sources", () => {
    fc.assert(
      fc.property(optionsArb(), (o) => {
        const v = verdict(o)
        const sources = sourcesFor(o)
        expect(v.engage).toBe(sources.length > 0)
        if (v.engage) expect(v.watches).toEqual(sources)
      }),
      { numRuns: 3_000 },
    )
  })
})
