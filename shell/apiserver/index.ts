/**
 * Package apiserver: an in-memory Kubernetes API server on virtual time, shared by the shell's
 * tests, the simulator's live mode and `krtt chaos`. It keeps the semantics that controllers
 * depend on: resourceVersion conflicts, finalizers and deletion timestamps, the status
 * subresource, watches with bookmarks and 410 Gone after compaction, owner-reference garbage
 * collection (`gc.ts`) and namespace lifecycle (`namespaces.ts`) as options, server-side faults
 * (`faults.ts`), and an HTTP front end (`http.ts`) that real clients can talk to.
 *
 * `makeMemoryClient`/`memoryClientLayer` implement `KubeClient` (`shell/kube/client.ts`) over it;
 * the interface module imports none of this.
 *
 * @module
 */
export { errorOfTag, type Fault, type FaultTarget, type Verb } from "./faults.ts"
export { GarbageCollectorDefaults, type GarbageCollectorLimits } from "./gc.ts"
export { type FakeHttpServer, serveHttp, tokenKubeConfig } from "./http.ts"
export { makeMemoryClient, memoryClientLayer } from "./memoryClient.ts"
export { InitialNamespaces, KubernetesFinalizer } from "./namespaces.ts"
export { ForegroundFinalizer, OrphanFinalizer, type PropagationPolicy } from "./objects.ts"
export { FakeApiServer, type FakeApiServerOptions, type OpenWatch } from "./server.ts"
