// Minimal HTTPS access to a kube-apiserver for the harness and its tests: a request and a watch,
// authenticated with a bearer token and verified against the apiserver's self-signed certificate.
import type { IncomingHttpHeaders, IncomingMessage } from "node:http"
import { request as httpsRequest } from "node:https"

export interface Endpoint {
  /** `https://127.0.0.1:<port>` */
  readonly server: string
  /** PEM of the certificate authority; omitted only while waiting for a fresh apiserver. */
  readonly ca?: string
  readonly token?: string
}

export interface RequestOptions {
  /** JSON-encoded unless it is a string already. */
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>>
  readonly timeoutMs?: number
}

export interface KubeResponse {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly text: string
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly body: unknown
}

const open = (
  endpoint: Endpoint,
  method: string,
  path: string,
  options: RequestOptions,
): Promise<{ readonly response: IncomingMessage; readonly abort: () => void }> =>
  new Promise((resolve, reject) => {
    const url = new URL(path, endpoint.server)
    const headers: Record<string, string> = { accept: "application/json", ...options.headers }
    if (endpoint.token !== undefined) headers.authorization = `Bearer ${endpoint.token}`
    let payload: string | undefined
    if (options.body !== undefined) {
      payload = typeof options.body === "string" ? options.body : JSON.stringify(options.body)
      headers["content-type"] ??= "application/json"
      headers["content-length"] = String(Buffer.byteLength(payload))
    }
    const req = httpsRequest(url, {
      method,
      headers,
      agent: false,
      ...(endpoint.ca === undefined ? { rejectUnauthorized: false } : { ca: endpoint.ca }),
    })
    if (options.timeoutMs !== undefined) {
      req.setTimeout(options.timeoutMs, () => req.destroy(new Error(`${method} ${url} timed out`)))
    }
    req.on("error", reject)
    req.on("response", (response) => resolve({ response, abort: () => req.destroy() }))
    req.end(payload)
  })

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export const kubeRequest = async (
  endpoint: Endpoint,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<KubeResponse> => {
  const { response } = await open(endpoint, method, path, { timeoutMs: 30_000, ...options })
  const chunks: Array<Buffer> = []
  for await (const chunk of response) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString("utf8")
  return { status: response.statusCode ?? 0, headers: response.headers, text, body: parse(text) }
}

export interface WatchEvent {
  readonly type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR"
  // biome-ignore lint/suspicious/noExplicitAny: a Kubernetes object of any kind, read by tests
  readonly object: any
}

export interface Watch {
  /** The HTTP status; a watch that failed before streaming (e.g. 410, 403) has no events. */
  readonly status: number
  /** The error body when `status` is not 200. */
  readonly body: unknown
  /** One event per line, until the server or `close` ends the stream. */
  readonly events: AsyncIterableIterator<WatchEvent>
  readonly close: () => void
}

async function* lines(response: IncomingMessage): AsyncGenerator<WatchEvent> {
  let buffered = ""
  try {
    for await (const chunk of response) {
      buffered += (chunk as Buffer).toString("utf8")
      let newline = buffered.indexOf("\n")
      while (newline >= 0) {
        const line = buffered.slice(0, newline).trim()
        buffered = buffered.slice(newline + 1)
        if (line !== "") yield JSON.parse(line) as WatchEvent
        newline = buffered.indexOf("\n")
      }
    }
  } catch (e) {
    // closing the watch aborts the response; that is its normal end
    if ((e as NodeJS.ErrnoException).code !== "ECONNRESET" && (e as Error).message !== "aborted") throw e
  }
}

/** Starts a watch; `path` carries the query (`?watch=1&resourceVersion=...`). */
export const kubeWatch = async (endpoint: Endpoint, path: string): Promise<Watch> => {
  const { response, abort } = await open(endpoint, "GET", path, {})
  const status = response.statusCode ?? 0
  if (status !== 200) {
    const chunks: Array<Buffer> = []
    for await (const chunk of response) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString("utf8")
    const empty = (async function* (): AsyncGenerator<WatchEvent> {})()
    return { status, body: parse(text), events: empty, close: () => {} }
  }
  return { status, body: undefined, events: lines(response), close: abort }
}
