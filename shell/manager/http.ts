/**
 * The manager's HTTP endpoints: `/metrics` in Prometheus text format on the metrics address,
 * `/healthz` and `/readyz` on the health-probe address (controller-runtime's split).
 *
 * An address is `host:port` or `:port` (all interfaces); `"0"` turns the server off, as with
 * controller-runtime's flags.
 *
 * @module
 */

import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as PrometheusMetrics from "effect/observability/PrometheusMetrics"
import { limitServer, ServerLimitDefaults, type ServerLimits, serverOptions } from "../http/limits.ts"

/** Parses `host:port`, `:port` or `"0"` (off). */
export const parseBindAddress = (
  flag: string,
  value: string,
): { readonly host: string; readonly port: number } | "off" => {
  if (value === "0") return "off"
  const at = value.lastIndexOf(":")
  const host = at <= 0 ? "0.0.0.0" : value.slice(0, at).replace(/^\[|\]$/g, "")
  const port = Number(value.slice(at + 1))
  if (at === -1 || !Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`--${flag}: "${value}" is not an address (host:port, :port, or 0 to turn it off)`)
  }
  return { host, port }
}

/** The routes of the health-probe server. `ready` says whether the manager is ready. */
export const healthRoutes = (ready: Effect.Effect<boolean>) =>
  Layer.mergeAll(
    HttpRouter.add("GET", "/healthz", HttpServerResponse.text("ok")),
    HttpRouter.add(
      "GET",
      "/readyz",
      Effect.map(ready, (ok) =>
        ok ? HttpServerResponse.text("ok") : HttpServerResponse.text("not ready", { status: 503 }),
      ),
    ),
  )

/** The routes of the metrics server. */
export const metricsRoutes = PrometheusMetrics.layerHttp({ path: "/metrics" })

/** Serves `routes` on an address; nothing when it is off. */
export const serveOn = <E, R>(
  address: { readonly host: string; readonly port: number } | "off",
  routes: Layer.Layer<never, E, R>,
  limits: ServerLimits = ServerLimitDefaults,
) =>
  address === "off"
    ? Layer.empty
    : HttpRouter.serve(routes, { disableLogger: true }).pipe(
        Layer.provide(
          NodeHttpServer.layer(() => limitServer(createServer(serverOptions(limits)), limits), {
            host: address.host,
            port: address.port,
          }),
        ),
      )
