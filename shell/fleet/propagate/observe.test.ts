import { describe, expect, it } from "vitest"
import { PropagateDefaults } from "../../../core/propagate/index.ts"
import { targetOf } from "./observe.ts"

describe("targetOf (krtt.io/propagation)", () => {
  it("no annotation selects; a selector on krtt.io/cluster-name selects or not; a bad one is Invalid", () => {
    expect(targetOf({}, "east")).toEqual({ _tag: "Selected" })
    expect(targetOf({ "krtt.io/propagation": "krtt.io/cluster-name=east" }, "east")).toEqual({
      _tag: "Selected",
    })
    expect(targetOf({ "krtt.io/propagation": "krtt.io/cluster-name!=east" }, "east")).toEqual({
      _tag: "NotSelected",
    })
    expect(targetOf({ "krtt.io/propagation": "krtt.io/cluster-name in (a" }, "east")._tag).toBe("Invalid")
  })
  it("matches the cluster's labels too", () => {
    const sel = { "krtt.io/propagation": "env=prod,region in (eu, us)" }
    expect(targetOf(sel, "east", { env: "prod", region: "eu" })).toEqual({ _tag: "Selected" })
    expect(targetOf(sel, "east", { env: "dev", region: "eu" })).toEqual({ _tag: "NotSelected" })
    expect(targetOf(sel, "east")).toEqual({ _tag: "NotSelected" })
  })
  it("the documented defaults are the controller's", () => {
    expect(PropagateDefaults.retryInterval).toBe(5_000)
  })
})
