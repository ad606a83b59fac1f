import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { eventObject } from "../kube/events.ts"
import { Resources } from "../kube/resource.ts"
import { aboutOf, malformedEvent } from "./events.ts"
import { makeRunServers } from "./servers.ts"
import { Suites } from "./suites.ts"

const involved = { apiVersion: "v1", kind: "ConfigMap", namespace: "team-a", name: "settings", uid: "u1" }
const good = eventObject(
  involved,
  { type: "Warning", reason: "PropagationFailed", message: "cluster east: Timeout" },
  "krtt-propagate",
  new Date(0),
)
const with_ = (patch: Record<string, unknown>) => ({ ...good, ...patch }) as typeof good

describe("the Event oracle", () => {
  it("takes an Event as krtt's recorder writes it", () => {
    assert.isUndefined(malformedEvent(good))
    assert.isUndefined(malformedEvent(with_({ type: "Normal", reason: "Provisioned" })))
    assert.strictEqual(aboutOf(good), "ConfigMap team-a/settings")
  })

  it("names the first rule an Event breaks", () => {
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      [{ type: "Error" }, 'type "Error" is neither Normal nor Warning'],
      [{ reason: "" }, 'reason "" is not UpperCamelCase'],
      [{ reason: "propagation failed" }, 'reason "propagation failed" is not UpperCamelCase'],
      [{ reason: "bad Reason" }, 'reason "bad Reason" is not UpperCamelCase'],
      [{ reason: "Reason bad" }, 'reason "Reason bad" is not UpperCamelCase'],
      [{ message: "" }, "no message"],
      [{ involvedObject: { ...involved, kind: "" } }, "involvedObject has no kind"],
      [{ involvedObject: { ...involved, apiVersion: undefined } }, "involvedObject has no apiVersion"],
      [{ involvedObject: { ...involved, name: "" } }, "involvedObject has no name"],
      [
        { involvedObject: { ...involved, namespace: "other" } },
        `involvedObject's namespace "other" is not the Event's "team-a"`,
      ],
      [{ reportingComponent: "" }, "no reporting component"],
      [{ source: {} }, "no reporting component"],
    ]
    for (const [patch, rule] of cases)
      assert.strictEqual(malformedEvent(with_(patch)), rule, JSON.stringify(patch))
    // A cluster-scoped object's Event may live in any namespace.
    const { namespace: _, ...clusterScoped } = involved
    assert.isUndefined(malformedEvent(with_({ involvedObject: clusterScoped })))
  })

  it.effect("reports a malformed Event committed to a run's server as a safety violation", () =>
    Effect.gen(function* () {
      const suite = Suites.find((s) => s.name === "propagate")
      assert.isDefined(suite)
      if (suite === undefined) return
      const servers = yield* makeRunServers(suite)
      yield* servers.mgmt.client().create(Resources.events, good)
      yield* servers.mgmt.client().create(Resources.events, with_({ reason: "" }))
      servers.close()
      assert.deepStrictEqual(
        servers.violations.map((v) => v.replace(/settings\.\S+/, "settings.<generated>")),
        [
          'Event team-a/settings.<generated> about ConfigMap team-a/settings: reason "" is not UpperCamelCase',
        ],
      )
    }),
  )
})
