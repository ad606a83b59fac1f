/**
 * clusterAccessor Connect/Disconnect (`accessor.ts`): the steps of a connect that are still
 * under way, whole results. A step that asks for the next one leaves the connect `pending`.
 */
import { describe, expect, it } from "vitest"
import { type AccessorInput, accessorTransition } from "./accessor.ts"
import { ClusterCacheDefaults } from "./config.ts"
import { newAccessor } from "./state.ts"

const input = (trigger: AccessorInput["trigger"]): AccessorInput => ({
  observed: newAccessor,
  desired: { clientCertificatePrivateKey: "disabled" },
  trigger,
  now: 1_000,
})

describe("clusterAccessor Connect/Disconnect, a connect under way", () => {
  it("row 1: Connect asks for the REST config from the kubeconfig Secret", () => {
    expect(accessorTransition(input({ _tag: "Connect" }))).toEqual({
      actions: [{ _tag: "CreateConnection", secretKey: "value" }],
      status: { accessor: newAccessor, connect: "pending" },
      row: "clustercache.accessor#1",
    })
  })

  it("row 2: a created connection asks for the clients and a started cache, with the client options", () => {
    const { timeout, qps, burst, userAgent } = ClusterCacheDefaults.client
    expect(accessorTransition(input({ _tag: "ConnectionCreated" }))).toEqual({
      actions: [{ _tag: "CreateClientsAndStartCache", timeout, qps, burst, userAgent }],
      status: { accessor: newAccessor, connect: "pending" },
      row: "clustercache.accessor#2",
    })
  })

  it("row 3: a started cache asks to wait for its sync, at most the initial sync timeout", () => {
    expect(accessorTransition(input({ _tag: "CacheStarted" }))).toEqual({
      actions: [{ _tag: "WaitForCacheSync", timeout: ClusterCacheDefaults.initialSyncTimeout }],
      status: { accessor: newAccessor, connect: "pending" },
      row: "clustercache.accessor#3",
    })
  })
})
