import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { PropagateDefaults, PropagatedFromLabel, type Source } from "../../../core/propagate/index.ts"
import { makeMemoryClient } from "../../apiserver/memoryClient.ts"
import { FakeApiServer } from "../../apiserver/server.ts"
import type { Cache } from "../../cache/types.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import { Conflict, Forbidden } from "../../kube/errors.ts"
import { type KubeObject, Resources } from "../../kube/resource.ts"
import type { Cluster } from "../../multicluster/index.ts"
import type { Follow } from "./observe.ts"
import { type PairDeps, runPair } from "./pair.ts"
import { makeRefusals } from "./refusals.ts"

const content = { data: { color: "blue" }, binaryData: {}, labels: {}, annotations: {}, type: undefined }
const source = (labelled = true): Source => ({
  kind: "ConfigMap",
  namespace: "team-a",
  name: "settings",
  labelled,
  deleting: false,
  content,
})
const noFollow: Follow = {
  cache: () => Effect.void,
  informer: () => Effect.void,
  refusals: makeRefusals(PropagateDefaults.permissionRecheckInterval),
}
const deps: PairDeps = {
  config: PropagateDefaults,
  labels: {},
  follow: noFollow,
  namespaceOf: (_c, ns) => ns,
}
const refused = (tag: "Forbidden" | "Conflict") => {
  const fields = { verb: "x", path: "/x", message: `refused: ${tag}` }
  return tag === "Forbidden" ? new Forbidden(fields) : new Conflict(fields)
}

/** A cluster on an in-memory API server; `cache` reads through `cached` (default: the server). */
const clusterOf = (client: KubeClientShape, cached: KubeClientShape = client): Cluster => ({
  name: "east" as Cluster["name"],
  client,
  generation: "1",
  cache: { get: (r: never, k: never) => cached.get(r, k) } as unknown as Cache,
})
const place = (cluster: Cluster, s: Source = source()) => ({
  cluster,
  source: s,
  uid: "u1",
  namespace: "team-a",
})
const server = Effect.gen(function* () {
  const s = yield* FakeApiServer.make({ namespaceLifecycle: true })
  return { server: s, client: yield* makeMemoryClient(s) }
})
const copyIn = (client: KubeClientShape) =>
  client
    .get(Resources.configMaps, { namespace: "team-a", name: "settings" })
    .pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))

describe("runPair: propagate.copy for one source in one cluster through the table runner", () => {
  it("row 2's create finds no namespace: the table answers with row 1, which creates it and the copy", async () => {
    const run = await Effect.runPromise(
      Effect.gen(function* () {
        const { client } = yield* server
        const run = yield* runPair(place(clusterOf(client)), deps)
        return { run, copy: yield* copyIn(client) }
      }),
    )
    expect(run.run).toMatchObject({
      outcome: { cluster: "east", targeted: true, status: "Synced" },
      row: "propagate.copy#1",
    })
    expect(run.copy?.metadata.labels?.[PropagatedFromLabel]).toBe("team-a.settings")
  })

  it("a write refused for want of permission is answered by row 7: Blocked, with its Event", async () => {
    const run = await Effect.runPromise(
      Effect.gen(function* () {
        const { client } = yield* server
        const denying = { ...client, create: () => Effect.fail(refused("Forbidden")) } as KubeClientShape
        return yield* runPair(place(clusterOf(denying, client)), deps)
      }),
    )
    expect(run.outcome.status).toBe("Blocked")
    expect(run.row).toBe("propagate.copy#7")
    expect(run.events.map((e) => e.reason)).toEqual(["PropagationForbidden"])
  })

  it("a refusal that comes back after a live read fails the pair with it", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.gen(function* () {
        const { client } = yield* server
        yield* client.create(Resources.namespaces, { metadata: { name: "team-a" } } as KubeObject)
        const conflicting = { ...client, create: () => Effect.fail(refused("Conflict")) } as KubeClientShape
        return yield* runPair(place(clusterOf(conflicting, client)), deps)
      }),
    )
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).toContain("refused: Conflict")
  })

  it("a refusal for want of permission after another refusal still ends Blocked (row 7)", async () => {
    const run = await Effect.runPromise(
      Effect.gen(function* () {
        const { client } = yield* server
        yield* client.create(Resources.namespaces, { metadata: { name: "team-a" } } as KubeObject)
        const answers = [refused("Conflict"), refused("Forbidden")]
        const refusing = {
          ...client,
          create: () => Effect.fail(answers.shift() ?? refused("Forbidden")),
        } as KubeClientShape
        return yield* runPair(place(clusterOf(refusing, client)), deps)
      }),
    )
    expect(run).toMatchObject({ outcome: { status: "Blocked" }, row: "propagate.copy#7" })
  })

  it("a Clean answer from a cache that is behind is checked on a live read, which removes our copy", async () => {
    const run = await Effect.runPromise(
      Effect.gen(function* () {
        const { client } = yield* server
        const empty = yield* server
        yield* client.create(Resources.namespaces, { metadata: { name: "team-a" } } as KubeObject)
        yield* client.create(Resources.configMaps, {
          metadata: {
            namespace: "team-a",
            name: "settings",
            labels: { [PropagatedFromLabel]: "team-a.settings" },
          },
        } as KubeObject)
        const run = yield* runPair(place(clusterOf(client, empty.client), source(false)), deps)
        return { run, copy: yield* copyIn(client) }
      }),
    )
    expect(run.run).toMatchObject({ outcome: { status: "Clean" }, row: "propagate.copy#5" })
    expect(run.copy).toBeUndefined()
  })
})
