/**
 * Connection pools shared by TLS identity. Clients whose kubeconfigs differ only in credentials
 * sent as headers (bearer tokens, basic auth, impersonation) reach the same API server over the
 * same keep-alive sockets; the CA, client certificate and key are parsed once per pool into one
 * `SecureContext` (`tls.createSecureContext`), which every handshake of the pool reuses, and the
 * pool's TLS sessions are resumed across its connections. client-go shares its transports the same
 * way (its TLS transport cache is keyed by TLS configuration, not by token).
 *
 * Expected flow: the transport applies a kubeconfig to its request options (client-node's
 * `applyToHTTPSOptions`), then `pooled(url, options)` answers the request options to send with:
 * the agent of the pool of that identity (made on first use) and the per-request fields (headers,
 * basic auth), without the TLS material that now lives in the pool's context.
 *
 * # Guarantees
 * - The identity is the server's origin plus everything that shapes the TLS session: CA, client
 *   certificate and key (a client certificate is a credential, so clusters with different
 *   certificates never share a socket), PFX and passphrase, server name, verification, ciphers and
 *   protocol settings. Headers are never part of it and never stored in a pool.
 * - A pool is released (dropped from the table) once it holds no socket and no queued request:
 *   when its last client's watches end and its idle sockets close after `idleTimeoutMs`, or right
 *   after it was made if no request reached it. A later request of the same identity makes a new
 *   pool. The table thus never outgrows the connections in use.
 *
 * @module
 */
import { createHash } from "node:crypto"
import * as http from "node:http"
import * as https from "node:https"
import type * as net from "node:net"
import * as tls from "node:tls"

/**
 * How long an idle keep-alive socket stays open. Below the 90 s after which kube-apiserver closes
 * an idle connection, so the client closes first and never writes to a socket the server is
 * closing.
 */
export const idleTimeoutMs = 60_000

/** The TLS fields of request options that make a pool's identity and its `SecureContext`. */
const contextFields = [
  "ca",
  "cert",
  "key",
  "pfx",
  "passphrase",
  "ciphers",
  "honorCipherOrder",
  "ecdhCurve",
  "crl",
  "dhparam",
  "secureOptions",
  "secureProtocol",
  "sessionIdContext",
  "minVersion",
  "maxVersion",
] as const
/** The TLS fields that are options of the connection, not of the context. */
const connectionFields = ["servername", "rejectUnauthorized"] as const
/** Request fields that belong to the pool and are not sent with each request. */
const pooledFields: ReadonlySet<string> = new Set<string>([...contextFields, ...connectionFields, "agent"])

const digest = (value: unknown): string => {
  if (value === undefined || value === null) return ""
  const hash = createHash("sha256")
  const add = (v: unknown): void => {
    if (Array.isArray(v)) for (const item of v) add(item)
    else if (Buffer.isBuffer(v) || typeof v === "string") hash.update(v).update("\0")
    else hash.update(JSON.stringify(v) ?? "").update("\0")
  }
  add(value)
  return hash.digest("hex")
}

/** The key of the pool that `options` to `url` belong to. */
export const identityOf = (url: URL, options: Readonly<Record<string, unknown>>): string =>
  JSON.stringify([
    url.protocol,
    url.host,
    ...contextFields.map((f) => digest(options[f])),
    ...connectionFields.map((f) => (options[f] === undefined ? null : String(options[f]))),
  ])

interface Pool {
  readonly agent: http.Agent
}

const pools = new Map<string, Pool>()

/** The number of pools in use (for tests and diagnostics). */
export const poolCount = (): number => pools.size

/** The agent of `identity`'s pool, if it has one now. */
export const poolAgent = (identity: string): http.Agent | undefined => pools.get(identity)?.agent

const isEmpty = (agent: http.Agent): boolean =>
  Object.keys(agent.sockets).length === 0 &&
  Object.keys(agent.freeSockets).length === 0 &&
  Object.keys(agent.requests).length === 0

const makePool = (identity: string, url: URL, options: Readonly<Record<string, unknown>>): Pool => {
  const secure = url.protocol === "https:"
  const connection: Record<string, unknown> = { keepAlive: true, timeout: idleTimeoutMs }
  for (const f of connectionFields) if (options[f] !== undefined) connection[f] = options[f]
  if (secure) {
    const context: Record<string, unknown> = {}
    for (const f of contextFields) if (options[f] !== undefined) context[f] = options[f]
    connection.secureContext = tls.createSecureContext(context as tls.SecureContextOptions)
  }
  const agent = secure ? new https.Agent(connection) : new http.Agent(connection)
  const pool: Pool = { agent }
  // Release: once the pool's last socket has closed and the agent has forgotten it (its own
  // `close` listener runs after this one), drop the pool unless it is in use again.
  const release = () =>
    setImmediate(() => {
      if (pools.get(identity) === pool && isEmpty(agent)) pools.delete(identity)
    })
  const create = agent.createConnection.bind(agent) as (
    options: object,
    callback?: (err: Error | null, socket: net.Socket) => void,
  ) => net.Socket
  Object.assign(agent, {
    createConnection: (o: object, callback?: (err: Error | null, socket: net.Socket) => void) => {
      const socket = create(o, callback)
      socket?.once("close", release)
      return socket
    },
  })
  // A pool whose first request never reached the agent (it failed before) is dropped as well.
  release()
  return pool
}

/**
 * The request options to send `options` (a kubeconfig applied by client-node) to `url` with: the
 * shared agent of their TLS identity and the per-request fields. Options whose agent is not a
 * plain `http(s).Agent` (a proxy agent) are answered as they are.
 */
export const pooled = (url: URL, options: https.RequestOptions): https.RequestOptions => {
  const agent = options.agent
  const plain =
    agent === undefined ||
    (agent instanceof https.Agent && agent.constructor === https.Agent) ||
    (agent instanceof http.Agent && agent.constructor === http.Agent)
  if (!plain) return options
  const fields = options as Readonly<Record<string, unknown>>
  const identity = identityOf(url, fields)
  let pool = pools.get(identity)
  if (pool === undefined) {
    pool = makePool(identity, url, fields)
    pools.set(identity, pool)
  }
  const request: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(fields)) if (!pooledFields.has(k)) request[k] = v
  request.agent = pool.agent
  return request as https.RequestOptions
}
