/**
 * Package kube: access to a Kubernetes API server as an Effect service (`KubeClient`), the real
 * REST implementation over a client-node KubeConfig, an in-memory server for tests, typed errors,
 * selectors, patches, watch events and discovery.
 *
 * @module
 */
export * from "./client.ts"
export * from "./discovery.ts"
export * from "./errors.ts"
export { errorOfTag, type Fault, type FaultTarget, type Verb } from "./fake/faults.ts"
export { type FakeHttpServer, serveHttp, tokenKubeConfig } from "./fake/http.ts"
export { FakeApiServer, type FakeApiServerOptions } from "./fake/server.ts"
export { makeMemoryClient } from "./memoryClient.ts"
export * from "./options.ts"
export { DefaultPageSize, listAllPages } from "./pages.ts"
export * from "./patch.ts"
export { makeTokenBucket, type RateLimiter, unlimited } from "./rateLimiter.ts"
export * from "./resource.ts"
export { makeRestClient } from "./restClient.ts"
export * from "./selector.ts"
export * from "./watch.ts"
