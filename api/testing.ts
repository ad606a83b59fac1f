/**
 * `krtt/testing`: what krtt's own tests run on, for testing your controllers the way
 * controller-runtime's users do with its fake client and envtest. `FakeApiServer` is an
 * in-memory Kubernetes API server (resourceVersions, watches with bookmarks, finalizers,
 * garbage collection, namespaces, discovery) with injectable faults; `makeMemoryClient` gives a
 * `KubeClient` on it and `serveHttp` serves it over HTTP for code that needs a kubeconfig.
 * `makeMemoryProvider` engages clusters by hand for the multi-cluster runtime. Everything runs on
 * Effect's clock, so `TestClock` (re-exported here) moves its time.
 *
 * @module
 */
export { TestClock } from "effect/testing"
export { errorOfTag, type Fault, type FaultTarget, type Verb } from "../shell/apiserver/faults.ts"
export { GarbageCollectorDefaults, type GarbageCollectorLimits } from "../shell/apiserver/gc.ts"
export { type FakeHttpServer, serveHttp, tokenKubeConfig } from "../shell/apiserver/http.ts"
export { makeMemoryClient, memoryClientLayer } from "../shell/apiserver/memoryClient.ts"
export { FakeApiServer, type FakeApiServerOptions } from "../shell/apiserver/server.ts"
export { type MemoryProvider, makeMemoryProvider } from "../shell/multicluster/memoryProvider.ts"
