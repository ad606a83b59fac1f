import { describe, expect, it } from "vitest"
import { IpamDefaults } from "../ipam/run.ts"
import { IpamFlagDefaults } from "./ipamCommand.ts"

describe("krtt ipam's flags", () => {
  it("show and take the IPAM controller's defaults", () => {
    expect(IpamFlagDefaults).toEqual(IpamDefaults)
  })
})
