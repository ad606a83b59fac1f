/**
 * Input generators of every documented table, by table id.
 *
 * @module
 */
import type fc from "fast-check"
import { inputs as clustercache } from "./clustercache/arbitraries.ts"

export const arbitraries: Readonly<Record<string, fc.Arbitrary<unknown>>> = {
  ...clustercache,
}
