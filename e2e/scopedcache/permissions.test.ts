// The scoped cache on the shared real control plane (seed 002): a restricted identity whose Role
// and RoleBinding (or ClusterRole and ClusterRoleBinding) are created and deleted while the cache
// runs. Informers start when dependents appear, stop when the permission goes (a 403 on list, or
// the access recheck, since the API server does not re-authorize an open watch), reads then get
// the cache's InformerForbidden, and everything resumes once access is granted again. With the
// default options, a RoleBinding deleted under an open watch is noticed within 10 s.
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { INFORMERS_ROW } from "../../core/scopedcache/informers.ts"
import type { KubeClientShape } from "../../shell/kube/client.ts"
import { type KubeObject, type ResourceRef, Resources } from "../../shell/kube/resource.ts"
import { selfSubjectAccessReviewer } from "../../shell/scopedcache/accessReview.ts"
import { InformerForbidden } from "../../shell/scopedcache/errors.ts"
import { ScopedCacheDefaults } from "../../shell/scopedcache/options.ts"
import {
  makeScopedCache,
  type ScopedCache,
  type ScopedCacheEvent,
} from "../../shell/scopedcache/scopedCache.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import { clientOf, createNamespace, eventually, suffix, until } from "../shell/support.ts"

const shared = sharedControlPlane()
const hub = shared.clusters[0]
if (hub === undefined) throw new Error("the shared control plane has no cluster")

const cms = Resources.configMaps
const rbac = (resource: string, kind: string, namespaced: boolean): ResourceRef => ({
  group: "rbac.authorization.k8s.io",
  version: "v1",
  resource,
  kind,
  namespaced,
})
const Roles = rbac("roles", "Role", true)
const RoleBindings = rbac("rolebindings", "RoleBinding", true)
const ClusterRoles = rbac("clusterroles", "ClusterRole", false)
const ClusterRoleBindings = rbac("clusterrolebindings", "ClusterRoleBinding", false)
const readConfigMaps = [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "watch"] }]

/** Grants `user` read access to configmaps in `namespace` (a Role and RoleBinding), or cluster-wide. */
const grant = (admin: KubeClientShape, user: string, name: string, namespace?: string) =>
  Effect.gen(function* () {
    const metadata = namespace === undefined ? { name } : { name, namespace }
    const roleKind = namespace === undefined ? "ClusterRole" : "Role"
    yield* admin.create(namespace === undefined ? ClusterRoles : Roles, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: roleKind,
      metadata,
      rules: readConfigMaps,
    })
    yield* admin.create(namespace === undefined ? ClusterRoleBindings : RoleBindings, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: namespace === undefined ? "ClusterRoleBinding" : "RoleBinding",
      metadata,
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: roleKind, name },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: user }],
    })
  })

/** Deletes the binding of `grant` (the Role stays: the user just is not bound to it any more). */
const revoke = (admin: KubeClientShape, name: string, namespace?: string) =>
  Effect.asVoid(
    namespace === undefined
      ? admin.delete(ClusterRoleBindings, { name })
      : admin.delete(RoleBindings, { namespace, name }),
  )

/** Re-creates the binding that `revoke` deleted. */
const rebind = (admin: KubeClientShape, user: string, name: string, namespace?: string) =>
  Effect.asVoid(
    admin.create(namespace === undefined ? ClusterRoleBindings : RoleBindings, {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: namespace === undefined ? "ClusterRoleBinding" : "RoleBinding",
      metadata: namespace === undefined ? { name } : { name, namespace },
      roleRef: {
        apiGroup: "rbac.authorization.k8s.io",
        kind: namespace === undefined ? "ClusterRole" : "Role",
        name,
      },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: user }],
    }),
  )

/** Waits until the authorizer answers `allowed` for the user's list and watch there; returns when it did. */
const authorizerSays = (user: KubeClientShape, allowed: boolean, namespace: string | undefined) =>
  Effect.gen(function* () {
    const review = selfSubjectAccessReviewer(user)
    const deadline = Date.now() + 30_000
    for (;;) {
      const d = yield* review({ resource: cms, namespace })
      if (d.allowed === allowed) return Date.now()
      if (Date.now() > deadline)
        return yield* Effect.fail(`the authorizer did not turn allowed=${allowed} in time`)
      yield* Effect.sleep("50 millis")
    }
  })

const cm = (namespace: string, name: string): KubeObject => ({
  metadata: { namespace, name },
  data: { v: name },
})
const names = (objects: ReadonlyArray<KubeObject>) =>
  objects.map((o) => `${o.metadata.namespace}/${o.metadata.name}`).sort()

/** Collects the cache's events. */
const collect = (cache: ScopedCache) =>
  Effect.gen(function* () {
    const stream = yield* cache.subscribeEvents
    const events: Array<ScopedCacheEvent> = []
    yield* Effect.forkScoped(Stream.runForEach(stream, (e) => Effect.sync(() => events.push(e))))
    return events
  })

const dep = (uid: string) => ({ uid, kind: "Widget", name: uid })

describe("ScopedCache on the shared control plane: a restricted identity", () => {
  it.live(
    "namespace scope: informers start with dependents, stop within a second of the 403, reads get Forbidden, re-adding works",
    () =>
      Effect.gen(function* () {
        const admin = yield* clientOf(hub)
        const ns1 = yield* createNamespace(admin, "e2e-scoped-a")
        const ns2 = yield* createNamespace(admin, "e2e-scoped-b")
        yield* admin.create(cms, cm(ns1, "one"))
        yield* admin.create(cms, cm(ns2, "two"))
        const credentials = yield* Effect.promise(() => hub.newUser())
        const user = yield* clientOf(hub, { kubeconfig: credentials.kubeconfig })
        const role = `scoped-${suffix()}`
        yield* grant(admin, credentials.user, role, ns1)
        yield* authorizerSays(user, true, ns1)

        const cache = yield* makeScopedCache(user, {
          cluster: hub.name,
          permissionRecheckInterval: "200 millis",
          reflector: { backoff: { initial: "100 millis", max: "1 second" } },
        })
        const events = yield* collect(cache)
        yield* cache.start
        assert.strictEqual(yield* cache.runningCount, 0)

        // A dependent appears in ns1: its informer starts and serves reads.
        yield* cache.addInformer({ resource: cms, namespace: ns1, dependent: dep("w1") })
        yield* cache.addInformer({ resource: cms, namespace: ns1, dependent: dep("w2") })
        assert.strictEqual(yield* cache.runningCount, 1)
        assert.deepStrictEqual(names(yield* cache.list(cms, { namespace: ns1 })), [`${ns1}/one`])

        // ns2 is not granted: the list is answered 403 and the informer stops at once.
        yield* cache.addInformer({ resource: cms, namespace: ns2, dependent: dep("w3") })
        yield* until("the 403 on ns2", () => events.length === 1, 10_000)
        const denied = events[0]
        assert.strictEqual(denied?._tag, "PermissionLost")
        assert.strictEqual(denied?.ref.namespace, ns2)
        assert.strictEqual(denied?.row, INFORMERS_ROW.permissionLost)
        assert.deepStrictEqual(
          denied?.dependents.map((d) => d.uid),
          ["w3"],
        )
        assert.isAtMost(
          (denied?.stoppedAt ?? Infinity) - (denied?.observedAt ?? 0),
          1000,
          "stopped within 1 s of the 403",
        )
        const ns2Read = yield* Effect.flip(cache.list(cms, { namespace: ns2 }))
        assert.strictEqual(ns2Read._tag, "Forbidden")
        assert.instanceOf(ns2Read, InformerForbidden, "the cache's, not the API server's")
        assert.strictEqual(yield* cache.runningCount, 1)

        // Access to ns2 is granted: adding the informer again works; lists merge both namespaces.
        yield* grant(admin, credentials.user, role, ns2)
        yield* authorizerSays(user, true, ns2)
        yield* cache.addInformer({ resource: cms, namespace: ns2, dependent: dep("w3") })
        assert.deepStrictEqual(names(yield* cache.list(cms)), [`${ns1}/one`, `${ns2}/two`])
        assert.strictEqual(yield* cache.runningCount, 2)

        // The RoleBinding in ns1 is deleted while the informer watches: the recheck stops it.
        yield* revoke(admin, role, ns1)
        const deniedAt = yield* authorizerSays(user, false, ns1)
        yield* until("the revocation in ns1", () => events.length === 2, 10_000)
        const revoked = events[1]
        assert.strictEqual(revoked?.ref.namespace, ns1)
        assert.deepStrictEqual(
          revoked?.dependents.map((d) => d.uid),
          ["w1", "w2"],
        )
        assert.isAtMost(
          (revoked?.stoppedAt ?? Infinity) - deniedAt,
          1000,
          "stopped within 1 s of the authorizer's refusal",
        )
        assert.strictEqual(
          (yield* Effect.flip(cache.get(cms, { namespace: ns1, name: "one" })))._tag,
          "Forbidden",
        )
        assert.deepStrictEqual(
          names(yield* cache.list(cms, { namespace: ns2 })),
          [`${ns2}/two`],
          "ns2 goes on",
        )
        assert.strictEqual(yield* cache.runningCount, 1)

        // The RoleBinding comes back: the dependents re-add the informer and reads resume.
        yield* rebind(admin, credentials.user, role, ns1)
        yield* authorizerSays(user, true, ns1)
        yield* cache.addInformer({ resource: cms, namespace: ns1, dependent: dep("w1") })
        yield* admin.create(cms, cm(ns1, "later"))
        yield* eventually(
          Effect.flatMap(cache.list(cms, { namespace: ns1 }), (l) =>
            l.length === 2 ? Effect.void : Effect.fail("the new object is not in the cache yet"),
          ),
          10_000,
        )
        assert.strictEqual((yield* cache.get(cms, { namespace: ns1, name: "later" })).metadata.name, "later")

        // The last dependents go: the informers stop.
        yield* cache.removeInformer({ resource: cms, namespace: ns1, dependent: dep("w1") })
        yield* cache.removeInformer({ resource: cms, namespace: ns2, dependent: dep("w3") })
        assert.strictEqual(yield* cache.runningCount, 0)
        assert.strictEqual((yield* Effect.flip(cache.list(cms, { namespace: ns2 })))._tag, "InformerNotFound")
      }).pipe(Effect.scoped),
    120_000,
  )

  it.live(
    "default options: a RoleBinding deleted under an open watch is noticed within 10 s (the recheck) plus one review",
    () =>
      Effect.gen(function* () {
        assert.strictEqual(ScopedCacheDefaults.permissionRecheckInterval, "10 seconds")
        const admin = yield* clientOf(hub)
        const ns = yield* createNamespace(admin, "e2e-scoped-default")
        yield* admin.create(cms, cm(ns, "one"))
        const credentials = yield* Effect.promise(() => hub.newUser())
        const user = yield* clientOf(hub, { kubeconfig: credentials.kubeconfig })
        const role = `scoped-${suffix()}`
        yield* grant(admin, credentials.user, role, ns)
        yield* authorizerSays(user, true, ns)
        const cache = yield* makeScopedCache(user, { cluster: hub.name })
        const events = yield* collect(cache)
        yield* cache.start
        yield* cache.addInformer({ resource: cms, namespace: ns, dependent: dep("d1") })
        assert.isTrue(yield* cache.waitForCacheSync)
        // Somewhere in the recheck's 10 s cycle (the informer started a moment ago).
        yield* Effect.sleep("3 seconds")
        const revokedAt = Date.now()
        yield* revoke(admin, role, ns)
        yield* until("the revocation noticed", () => events.length === 1, 20_000)
        const noticed = events[0]
        assert.strictEqual(noticed?._tag, "PermissionLost")
        const after = (noticed?.observedAt ?? Infinity) - revokedAt
        assert.isAtMost(after, 10_000 + 1_000, `noticed ${after} ms after the revocation`)
        assert.isAtMost((noticed?.stoppedAt ?? Infinity) - (noticed?.observedAt ?? 0), 1000)
        assert.instanceOf(
          yield* Effect.flip(cache.get(cms, { namespace: ns, name: "one" })),
          InformerForbidden,
        )
      }).pipe(Effect.scoped),
    120_000,
  )

  it.live(
    "with access review on, an informer without permission is never started; granting lets it start",
    () =>
      Effect.gen(function* () {
        const admin = yield* clientOf(hub)
        const ns = yield* createNamespace(admin, "e2e-scoped-review")
        const credentials = yield* Effect.promise(() => hub.newUser())
        const user = yield* clientOf(hub, { kubeconfig: credentials.kubeconfig })
        const cache = yield* makeScopedCache(user, { cluster: hub.name, accessReview: true })
        yield* cache.start
        const refused = yield* Effect.flip(
          cache.addInformer({ resource: cms, namespace: ns, dependent: dep("w1") }),
        )
        assert.strictEqual(refused._tag, "Forbidden")
        assert.include(refused.message, "access review")
        assert.strictEqual(yield* cache.runningCount, 0)
        assert.deepStrictEqual(yield* cache.informers, [])
        const role = `scoped-${suffix()}`
        yield* grant(admin, credentials.user, role, ns)
        yield* authorizerSays(user, true, ns)
        yield* cache.addInformer({ resource: cms, namespace: ns, dependent: dep("w1") })
        assert.isTrue(yield* cache.waitForCacheSync)
        assert.deepStrictEqual(yield* cache.list(cms, { namespace: ns }), [])
      }).pipe(Effect.scoped),
    120_000,
  )

  it.live(
    "cluster scope with a ClusterRole: the cluster-level informer stops on revocation and resumes when granted again",
    () =>
      Effect.gen(function* () {
        const admin = yield* clientOf(hub)
        const ns = yield* createNamespace(admin, "e2e-scoped-cluster")
        yield* admin.create(cms, cm(ns, "c1"))
        const credentials = yield* Effect.promise(() => hub.newUser())
        const user = yield* clientOf(hub, { kubeconfig: credentials.kubeconfig })
        const role = `scoped-${suffix()}`
        yield* grant(admin, credentials.user, role)
        yield* authorizerSays(user, true, undefined)

        const cache = yield* makeScopedCache(user, {
          cluster: hub.name,
          permissionRecheckInterval: "200 millis",
        })
        const events = yield* collect(cache)
        yield* cache.start
        yield* cache.addInformer({ resource: cms, dependent: dep("cw1") })
        assert.strictEqual((yield* cache.get(cms, { namespace: ns, name: "c1" })).metadata.name, "c1")
        assert.strictEqual((yield* cache.informers)[0]?.ref.namespace, "", "a cluster-level informer")

        yield* revoke(admin, role)
        const deniedAt = yield* authorizerSays(user, false, undefined)
        yield* until("the revocation at cluster scope", () => events.length === 1, 10_000)
        assert.strictEqual(events[0]?._tag, "PermissionLost")
        assert.strictEqual(events[0]?.ref.namespace, "")
        assert.deepStrictEqual(
          events[0]?.dependents.map((d) => d.uid),
          ["cw1"],
        )
        assert.isAtMost((events[0]?.stoppedAt ?? Infinity) - deniedAt, 1000)
        assert.strictEqual(
          (yield* Effect.flip(cache.get(cms, { namespace: ns, name: "c1" })))._tag,
          "Forbidden",
        )
        assert.strictEqual(yield* cache.runningCount, 0)

        yield* rebind(admin, credentials.user, role)
        yield* authorizerSays(user, true, undefined)
        yield* cache.addInformer({ resource: cms, dependent: dep("cw1") })
        assert.strictEqual((yield* cache.get(cms, { namespace: ns, name: "c1" })).metadata.name, "c1")
        yield* admin.delete(ClusterRoleBindings, { name: role })
        yield* admin.delete(ClusterRoles, { name: role })
      }).pipe(Effect.scoped),
    120_000,
  )
})
