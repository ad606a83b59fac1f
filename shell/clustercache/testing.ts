import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { KubeClient } from "../kube/client.ts"
import { Resources } from "../kube/resource.ts"
import { ClusterResource, type ConnectionFactory, make } from "./service.ts"

export const cluster = { namespace: "default", name: "c1" }

export const kubeconfig = (server: string, extra = "") =>
  Buffer.from(
    `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${server}"}}]
users: [{name: u, user: {token: secret-token${extra}}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`,
  ).toString("base64")

/** A management fake with the Cluster and its kubeconfig Secret, and one workload fake per server URL. */
export const setup = Effect.gen(function* () {
  const mgmt = yield* FakeApiServer.make()
  mgmt.register(ClusterResource)
  const workload = yield* FakeApiServer.make()
  const mc = yield* makeMemoryClient(mgmt)
  yield* mc.create(ClusterResource, {
    apiVersion: "cluster.x-k8s.io/v1beta2",
    kind: "Cluster",
    metadata: { namespace: "default", name: "c1" },
  })
  yield* mc.patchStatus(ClusterResource, cluster, {
    type: "merge",
    body: { status: { initialization: { infrastructureProvisioned: true } } },
  })
  yield* mc.create(Resources.secrets, {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { namespace: "default", name: "c1-kubeconfig" },
    data: { value: kubeconfig("https://workload.example") },
  })
  const factory: ConnectionFactory = (kc) =>
    kc.getCurrentCluster()?.server === "https://workload.example"
      ? makeMemoryClient(workload)
      : Effect.die(new Error("unknown server"))
  const cc = yield* make({ connectionFactory: factory }).pipe(Effect.provideService(KubeClient, mc))
  return { mgmt, workload, mc, cc }
})

export const metricValue = (name: string, attrs: Record<string, string>) =>
  Effect.map(Metric.snapshot, (snap) => {
    const m = snap.find(
      (s) =>
        s.id === name &&
        Object.entries(attrs).every(
          ([k, v]) => (s.attributes as Record<string, string> | undefined)?.[k] === v,
        ),
    )
    return m === undefined
      ? undefined
      : ((m.state as { value?: number; count?: number }).value ?? (m.state as { count?: number }).count)
  })
