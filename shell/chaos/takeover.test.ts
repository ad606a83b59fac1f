// The propagate suite's takeover (takeover.ts): a copy's label taken and given back with
// resourceVersion checks, and the give-back told apart from a write to an object that is not a copy.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FakeApiServer } from "../apiserver/server.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { givenBack, TAKEN_BACK_ANNOTATION, takeOver } from "./takeover.ts"

const LABEL = "krtt.io/propagated-from"
const key = { namespace: "team-a", name: "settings" }

const configMap = (labels: Record<string, string>, annotations: Record<string, string> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { ...key, labels, annotations },
})

describe("givenBack", () => {
  it("is the commit that puts the label back with the mark, nothing else", () => {
    const taken = configMap({})
    assert.isTrue(
      givenBack(taken, configMap({ [LABEL]: "team-a.settings" }, { [TAKEN_BACK_ANNOTATION]: "true" }), LABEL),
    )
    // An operator's update of the object while it was not a copy: no mark.
    assert.isFalse(givenBack(taken, configMap({ [LABEL]: "team-a.settings" }), LABEL))
    // A write to an object that already carried the mark, or to a copy.
    assert.isFalse(
      givenBack(
        configMap({}, { [TAKEN_BACK_ANNOTATION]: "true" }),
        configMap({ [LABEL]: "x" }, { [TAKEN_BACK_ANNOTATION]: "true" }),
        LABEL,
      ),
    )
    assert.isFalse(givenBack(configMap({ [LABEL]: "x" }), configMap({ [LABEL]: "x" }), LABEL))
  })
})

describe("takeOver", () => {
  it.effect("removes the label and its release puts it back, marked", () =>
    Effect.gen(function* () {
      const server = yield* FakeApiServer.make()
      const c = server.client()
      yield* c.create(Resources.namespaces, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "team-a" },
      })
      yield* c.create(Resources.configMaps, configMap({ [LABEL]: "team-a.settings", other: "kept" }))
      const back = yield* takeOver(c, Resources.configMaps, key, LABEL)
      const taken = yield* c.get(Resources.configMaps, key)
      assert.deepStrictEqual(taken.metadata.labels, { other: "kept" })
      yield* back
      const returned = yield* c.get(Resources.configMaps, key)
      assert.deepStrictEqual(returned.metadata.labels, { other: "kept", [LABEL]: "team-a.settings" })
      assert.strictEqual(returned.metadata.annotations?.[TAKEN_BACK_ANNOTATION], "true")
      assert.isTrue(givenBack(taken, returned, LABEL))
    }),
  )

  it.effect("leaves an object without the label alone", () =>
    Effect.gen(function* () {
      const server = yield* FakeApiServer.make()
      const c = server.client()
      yield* c.create(Resources.namespaces, {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: "team-a" },
      })
      const before = yield* c.create(Resources.configMaps, configMap({ mine: "yes" }))
      yield* yield* takeOver(c, Resources.configMaps, key, LABEL)
      const after = yield* c.get(Resources.configMaps, key)
      assert.deepStrictEqual(after.metadata.labels, { mine: "yes" })
      assert.strictEqual(after.metadata.resourceVersion, before.metadata.resourceVersion)
    }),
  )
})
