import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as References from "effect/References"
import { PropagatedFromLabel, PropagateFinalizer, PropagationAnnotation } from "../../core/propagate/index.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { mergePatch } from "../kube/patch.ts"
import { Resources } from "../kube/resource.ts"
import { FOREIGN_FINALIZER } from "./foreignFinalizer.ts"
import type { Mutant } from "./mutants.ts"
import { noCopyWhileMalformed, PropagateMoreSuite } from "./propagateMore.ts"
import { runOnce } from "./runPlan.ts"

const cm = (namespace: string, name: string, metadata: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { namespace, name, ...metadata },
  data: {},
})

describe("propagate-more oracles", () => {
  it.effect("a copy created or deleted while its source's selector does not parse is a violation", () =>
    Effect.gen(function* () {
      const mgmt = yield* FakeApiServer.make()
      const workload = yield* FakeApiServer.make()
      const violations: Array<string> = []
      const off = noCopyWhileMalformed(mgmt, workload, "https://east", violations)
      const source = (selector: string) => ({ annotations: { [PropagationAnnotation]: selector } })
      yield* mgmt.client().create(Resources.configMaps, cm("team-a", "good", source("env=prod")))
      yield* mgmt.client().create(Resources.configMaps, cm("team-a", "bad", source("env in (prod")))
      const copy = (name: string) =>
        cm("team-a", name, { labels: { [PropagatedFromLabel]: `team-a.${name}` } })
      yield* workload.client().create(Resources.configMaps, copy("good"))
      yield* workload.client().create(Resources.configMaps, copy("other"))
      assert.deepStrictEqual(violations, [])
      yield* workload.client().create(Resources.configMaps, copy("bad"))
      yield* workload.client().delete(Resources.configMaps, { namespace: "team-a", name: "bad" })
      off()
      assert.deepStrictEqual(violations, [
        `https://east: copy team-a/bad created while its source's ${PropagationAnnotation} "env in (prod" does not parse`,
        `https://east: copy team-a/bad deleted while its source's ${PropagationAnnotation} "env in (prod" does not parse`,
      ])
    }),
  )

  /** A propagation that releases a source by clearing all its finalizers, not only its own. */
  const clearsAllFinalizers: Mutant = {
    name: "propagate-clears-finalizers",
    bug: "releasing a source clears every finalizer it holds, another controller's too",
    wrap: (client) => ({
      ...client,
      patch: (ref, key, p, o) => {
        const body = p.body as { metadata?: { finalizers?: ReadonlyArray<string> } }
        const finalizers = body.metadata?.finalizers
        if (p.type !== "merge" || finalizers === undefined || finalizers.includes(PropagateFinalizer))
          return client.patch(ref, key, p, o)
        return client.patch(
          ref,
          key,
          mergePatch({ ...body, metadata: { ...body.metadata, finalizers: [] } }),
          o,
        )
      },
    }),
  }

  it.effect(
    "propagate-warnings catches a propagation that removes another controller's finalizer",
    () =>
      Effect.gen(function* () {
        const scenario = PropagateMoreSuite.scenarios[0]
        assert.isDefined(scenario)
        if (scenario === undefined) return
        const plan = {
          suite: PropagateMoreSuite,
          scenario,
          perturbation: { kind: "none" as const },
          controllers: ["propagate" as const],
        }
        const quiet = <A, E>(e: Effect.Effect<A, E>) =>
          e.pipe(Effect.provideService(References.MinimumLogLevel, "None"))
        const broken = yield* quiet(runOnce({ ...plan, mutant: clearsAllFinalizers }))
        assert.isTrue(
          broken.violations.some((v) =>
            v.includes(`another controller's finalizer ${FOREIGN_FINALIZER} lost`),
          ),
          broken.violations.join("\n"),
        )
        const real = yield* quiet(runOnce(plan))
        assert.deepStrictEqual(real.violations, [])
      }),
    60_000,
  )
})
