/**
 * Input generators of every documented table, by table id.
 *
 * @module
 */
import type fc from "fast-check"
import { arbitraries as cluster } from "./cluster/arbitraries.ts"
import { inputs as clustercache } from "./clustercache/arbitraries.ts"
import { inputs as inventory } from "./inventory/arbitraries.ts"
import { arbitraries as ipam } from "./ipam/arbitraries.ts"
import { inputs as multicluster } from "./multicluster/arbitraries.ts"
import { inputs as propagate } from "./propagate/arbitraries.ts"
import { inputs as scopedcache } from "./scopedcache/arbitraries.ts"

export const arbitraries: Readonly<Record<string, fc.Arbitrary<unknown>>> = {
  ...clustercache,
  ...cluster,
  ...multicluster,
  ...scopedcache,
  ...ipam,
  ...inventory,
  ...propagate,
}
