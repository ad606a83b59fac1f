// The limits a server of krtt is created with and keeps: controller-runtime's defaults where it
// has them, and every one of them taken from the limits given.
import { createServer } from "node:http"
import { describe, expect, it } from "vitest"
import { limitServer, ServerLimitDefaults, serverOptions } from "./limits.ts"

describe("HTTP server limits", () => {
  it("defaults: a 7 MiB body, 32 s for headers, 90 s idle, 1 MiB of headers, 60 s a request, 1,024 connections", () => {
    expect(ServerLimitDefaults).toEqual({
      maxRequestBytes: 7 * 1024 * 1024,
      headersTimeoutMs: 32_000,
      requestTimeoutMs: 60_000,
      idleTimeoutMs: 90_000,
      maxHeaderBytes: 1024 * 1024,
      maxConnections: 1024,
    })
  })

  it("a server takes every limit given, and checks its connections often enough to keep them", () => {
    const limits = {
      maxRequestBytes: 1,
      headersTimeoutMs: 500,
      requestTimeoutMs: 700,
      idleTimeoutMs: 300,
      maxHeaderBytes: 4096,
      maxConnections: 3,
    }
    expect(serverOptions(limits)).toEqual({
      maxHeaderSize: 4096,
      headersTimeout: 500,
      requestTimeout: 700,
      keepAliveTimeout: 300,
      connectionsCheckingInterval: 500,
    })
    expect(serverOptions().connectionsCheckingInterval).toBe(1_000)
    const server = limitServer(createServer(serverOptions(limits)), limits)
    expect([
      server.maxConnections,
      server.headersTimeout,
      server.requestTimeout,
      server.keepAliveTimeout,
    ]).toEqual([3, 500, 700, 300])
    expect(limitServer(createServer()).maxConnections).toBe(1024)
  })
})
