import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { scopedcache } from "krtt/core"
import { story } from "./tenant-operator.js"

describe("examples/scopedcache/tenant-operator", () => {
  it.live("keeps working while access to tenants is granted, revoked and granted again", () =>
    Effect.gen(function* () {
      const log = yield* story
      const reports = Object.fromEntries(
        log
          .filter((l) => /^(start|granted|revoked|back):/.test(l))
          .map((l) => l.split(": ", 2) as [string, string]),
      )
      const line = (title: string) => log.find((l) => l.startsWith(`${title}:`))
      assert.strictEqual(line("start"), "start: a: settings; b: flags; c: Forbidden")
      assert.strictEqual(line("granted"), "granted: a: settings; b: flags; c: limits")
      assert.strictEqual(line("revoked"), "revoked: a: settings; b: Forbidden; c: limits")
      assert.strictEqual(line("back"), "back: a: settings; b: flags; c: limits")
      assert.isAtLeast(Object.keys(reports).length, 4)
      const revokedAt = log.indexOf("-- access to b is revoked while its informer watches")
      assert.include(
        log.slice(revokedAt),
        `tenant b: PermissionLost (${scopedcache.INFORMERS_ROW.permissionLost})`,
      )
      assert.notInclude(
        log.slice(0, revokedAt),
        `tenant b: PermissionLost (${scopedcache.INFORMERS_ROW.permissionLost})`,
      )
    }),
  )
})
