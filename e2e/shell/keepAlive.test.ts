// The REST client keeps its connection to an API server alive: many requests, one socket and one
// TLS handshake (client-node's cached agent does not keep alive by itself; shell/kube/transport.ts).
// bench/compare.ts found a third of the operator's CPU in TLS before this.
import dc from "node:diagnostics_channel"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import { clientOf } from "./support.ts"

const controlPlane = sharedControlPlane()
const hub = controlPlane.clusters[0]
if (hub === undefined) throw new Error("the shared control plane has no cluster")

describe("REST KubeClient connections", () => {
  it.live("50 sequential requests to one API server open at most one socket", () =>
    Effect.gen(function* () {
      const client = yield* clientOf(hub)
      yield* client.probe() // the first connection
      let sockets = 0
      const count = () => {
        sockets++
      }
      dc.subscribe("net.client.socket", count)
      try {
        for (let i = 0; i < 50; i++) yield* client.probe()
      } finally {
        dc.unsubscribe("net.client.socket", count)
      }
      // Other tests of this file's worker may open sockets too; 50 requests must not open 50.
      assert.isAtMost(sockets, 1)
    }),
  )
})
