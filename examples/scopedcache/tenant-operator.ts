/**
 * An operator that may read only the namespaces it was granted, built on the scoped cache
 * (docs/scopedcache.md). Each tenant is a namespace; the operator adds informers for the tenant's
 * ConfigMaps with the tenant as their dependent, reports what it sees, and keeps working when
 * access to a tenant is revoked (the informer stops, the tenant is marked `no access`) and when
 * it comes back (the informer is added again by a retry loop).
 *
 * Run it:
 * - `node examples/scopedcache/tenant-operator.ts` plays a scripted story on the in-memory API
 *   server (a 403 injected on one tenant, then lifted; another tenant revoked while watched);
 * - `node examples/scopedcache/tenant-operator.ts --kubeconfig ~/.kube/config --tenants a,b`
 *   runs against a real cluster until Ctrl-C, with access reviews and a 1 s access recheck.
 *
 * @module
 */
import { parseArgs } from "node:util"
import { KubeConfig } from "@kubernetes/client-node"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import { type KubeClientShape, makeRestClient, Resources } from "krtt/kube"
import { makeScopedCache, type ScopedCacheOptions } from "krtt/scopedcache"
import { FakeApiServer, makeMemoryClient } from "krtt/testing"

const configMaps = Resources.configMaps

/** What the operator knows about one tenant. */
export type TenantStatus = "no access" | "watching"

export interface TenantOperatorOptions {
  readonly cluster: string
  readonly tenants: ReadonlyArray<string>
  /** How often tenants without access are tried again. */
  readonly retryEvery: Duration.Input
  /** Options of the scoped cache (access review, recheck interval, …). */
  readonly cache?: ScopedCacheOptions | undefined
  readonly log: (line: string) => void
}

/** Starts the operator in the current scope; returns its report function. */
export const tenantOperator = (client: KubeClientShape, options: TenantOperatorOptions) =>
  Effect.gen(function* () {
    const cache = yield* makeScopedCache(client, { cluster: options.cluster, ...options.cache })
    const status = yield* Ref.make(
      new Map<string, TenantStatus>(options.tenants.map((t) => [t, "no access"])),
    )
    const dependentOf = (tenant: string) => ({ uid: `tenant-${tenant}`, kind: "Tenant", name: tenant })

    /**
     * Adds the tenant's informer (one dependent: the tenant) and waits for its first list: a 403
     * (or a refusing access review) leaves the tenant without access until the next retry.
     */
    const watchTenant = (tenant: string) =>
      Effect.gen(function* () {
        yield* cache.addInformer({ resource: configMaps, namespace: tenant, dependent: dependentOf(tenant) })
        const informer = yield* cache.getInformer(configMaps, { namespace: tenant })
        // waitForSync also returns when the informer stops; hasSynced tells the two apart.
        yield* informer.waitForSync
        if (yield* informer.hasSynced) yield* Ref.update(status, (m) => new Map(m).set(tenant, "watching"))
      }).pipe(
        Effect.catch((e) =>
          Effect.sync(() => options.log(`tenant ${tenant}: no access yet (${e._tag}: ${e.message})`)),
        ),
      )

    // Dependents are told when their informer stops: the tenant loses access until a retry works.
    const events = yield* cache.subscribeEvents
    yield* Effect.forkScoped(
      Stream.runForEach(events, (event) =>
        Effect.forEach(event.dependents, (d) =>
          Effect.andThen(
            Ref.update(status, (m) => new Map(m).set(d.name ?? "", "no access")),
            Effect.sync(() => options.log(`tenant ${d.name}: ${event._tag} (${event.row})`)),
          ),
        ),
      ),
    )

    yield* cache.start
    yield* Effect.forEach(options.tenants, watchTenant, { discard: true })

    // Tenants without access are tried again.
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.andThen(
          Effect.sleep(options.retryEvery),
          Effect.flatMap(Ref.get(status), (m) =>
            Effect.forEach(
              [...m].filter(([, s]) => s === "no access").map(([t]) => t),
              watchTenant,
              { discard: true },
            ),
          ),
        ),
      ),
    )

    /** One line per tenant: what the cache holds for it, or why it cannot read it. */
    const report = Effect.forEach(options.tenants, (tenant) =>
      cache.list(configMaps, { namespace: tenant }).pipe(
        Effect.map((items) => `${tenant}: ${items.map((o) => o.metadata.name).join(", ") || "(empty)"}`),
        Effect.catch((e) => Effect.succeed(`${tenant}: ${e._tag}`)),
      ),
    )
    return { cache, report, status: Ref.get(status) }
  })

/**
 * The scripted story on the in-memory API server; returns the log. Tenant `c` is forbidden from
 * the start and granted later; tenant `b` is revoked while it is watched, then granted again.
 */
export const story = Effect.scoped(
  Effect.gen(function* () {
    const lines: Array<string> = []
    const log = (line: string) => lines.push(line)
    const fake = yield* FakeApiServer.make()
    const api = fake.client()
    for (const [ns, name] of [
      ["a", "settings"],
      ["b", "flags"],
      ["c", "limits"],
    ] as const)
      yield* api.create(configMaps, { metadata: { namespace: ns, name } })
    fake.inject({ verb: ["list", "watch"], namespace: "c", error: "Forbidden" })
    const client = yield* makeMemoryClient(fake)
    const op = yield* tenantOperator(client, {
      cluster: "demo",
      tenants: ["a", "b", "c"],
      retryEvery: "100 millis",
      cache: { reflector: { backoff: { initial: "50 millis", max: "200 millis" } } },
      log,
    })
    /** Waits until the operator sees `tenant` as `expected` (10 s at most: a story must not hang). */
    const until = (tenant: string, expected: TenantStatus) =>
      Effect.gen(function* () {
        for (let i = 0; i < 500; i++) {
          if ((yield* op.status).get(tenant) === expected) return
          yield* Effect.sleep("20 millis")
        }
        return yield* Effect.die(new Error(`tenant ${tenant} never became "${expected}"`))
      })
    const report = (title: string) =>
      Effect.flatMap(op.report, (r) => Effect.sync(() => log(`${title}: ${r.join("; ")}`)))

    yield* until("a", "watching")
    yield* until("b", "watching")
    yield* report("start")
    log("-- access to c is granted")
    fake.clearFaults()
    yield* until("c", "watching")
    yield* report("granted")
    log("-- access to b is revoked while its informer watches")
    fake.inject({ verb: ["list", "watch"], namespace: "b", error: "Forbidden" })
    fake.closeWatches()
    yield* until("b", "no access")
    yield* report("revoked")
    log("-- access to b comes back")
    fake.clearFaults()
    yield* until("b", "watching")
    yield* report("back")
    return lines
  }),
)

const main = Effect.gen(function* () {
  const { values } = parseArgs({
    options: { kubeconfig: { type: "string" }, tenants: { type: "string", default: "default" } },
  })
  if (values.kubeconfig === undefined) {
    for (const line of yield* story) console.log(line)
    return
  }
  const kc = new KubeConfig()
  kc.loadFromFile(values.kubeconfig)
  const client = yield* makeRestClient(kc)
  const tenants = values.tenants.split(",").filter((t) => t !== "")
  yield* Effect.scoped(
    Effect.gen(function* () {
      const op = yield* tenantOperator(client, {
        cluster: kc.getCurrentContext(),
        tenants,
        retryEvery: "5 seconds",
        cache: { accessReview: true, permissionRecheckInterval: "1 second" },
        log: (line) => console.log(line),
      })
      yield* Effect.forever(
        Effect.andThen(
          Effect.flatMap(op.report, (r) => Effect.sync(() => console.log(r.join("; ")))),
          Effect.sleep("10 seconds"),
        ),
      )
    }),
  )
})

if (import.meta.url === `file://${process.argv[1]}`) Effect.runPromise(main)
