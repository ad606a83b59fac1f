/**
 * The KRTT kernel: row ids, transition inputs and results, documented tables as data,
 * deciding and explaining.
 *
 * @module
 */
export * from "./compare.ts"
export * from "./duration.ts"
export * from "./run.ts"
export * from "./table.ts"
export * from "./types.ts"
