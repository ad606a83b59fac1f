/**
 * Property tests run with a fixed seed so that `npm test` is deterministic; set FC_SEED to
 * explore other inputs (and to replay a failure that another seed found).
 */
import fc from "fast-check"

const seed = Number(process.env.FC_SEED ?? 20_261_121)
fc.configureGlobal({
  seed: Number.isFinite(seed) ? seed : 20_261_121,
  // Under mutation testing (vitest.mutation.config.ts) a failing property only has to fail: no
  // shrinking, so that a killed mutant costs one counterexample, not a search for the smallest.
  ...(process.env.KRTT_MUTATION === "1" ? { endOnFailure: true } : {}),
})
