/**
 * Package kube: access to a Kubernetes API server as an Effect service (`KubeClient`), the real
 * REST implementation over a client-node KubeConfig, typed errors,
 * selectors, patches, watch events and discovery. The in-memory API server is `shell/apiserver`.
 *
 * @module
 */
export * from "./client.ts"
export * from "./discovery.ts"
export * from "./errors.ts"
export * from "./options.ts"
export { DefaultPageSize, listAllPages } from "./pages.ts"
export * from "./patch.ts"
export { makeTokenBucket, type RateLimiter, unlimited } from "./rateLimiter.ts"
export * from "./resource.ts"
export { makeRestClient, restClientLayer } from "./restClient.ts"
export * from "./selector.ts"
export * from "./watch.ts"
