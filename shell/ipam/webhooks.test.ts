// The IPAM webhook server's answers: AdmissionReview responses for the decisions of
// core/ipam/admission.ts, the config read per request, and the refusal to start without a
// certificate (naming the flags).
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { makeMemoryClient } from "../apiserver/memoryClient.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { Resources } from "../kube/resource.ts"
import { IpamConfigResource } from "./resources.ts"
import { admissionReview, readConfig, serveIpamWebhooks } from "./webhooks.ts"

describe("IPAM webhook server", () => {
  it("answers an allowed decision with its JSON patch in base64, a refusal with its code and message", () => {
    const patch = [{ op: "add" as const, path: "/spec/clusterConfigs", value: [{ name: "c--ipam--r" }] }]
    const allowed = admissionReview("u1", { allowed: true, patch }) as {
      response: { uid: string; allowed: boolean; patchType: string; patch: string }
    }
    assert.strictEqual(allowed.response.uid, "u1")
    assert.strictEqual(allowed.response.patchType, "JSONPatch")
    assert.deepStrictEqual(JSON.parse(Buffer.from(allowed.response.patch, "base64").toString("utf8")), patch)
    assert.deepStrictEqual(admissionReview("u2", { allowed: true, patch: [] }), {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: "u2", allowed: true },
    })
    assert.deepStrictEqual(admissionReview("u3", { allowed: false, code: 422, message: "spec.x: bad" }), {
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: {
        uid: "u3",
        allowed: false,
        status: { status: "Failure", code: 422, reason: "Invalid", message: "spec.x: bad" },
      },
    })
  })

  it.effect("reads the IPAMConfig as the controller takes it: absent or invalid is none", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make({ resources: [...Object.values(Resources), IpamConfigResource] })
      const client = yield* makeMemoryClient(fake)
      assert.isUndefined(yield* readConfig(client, "ipam"))
      yield* client.create(IpamConfigResource, {
        apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
        kind: "IPAMConfig",
        metadata: { name: "ipam" },
        spec: { parentCIDRs: { a: ["10.0.0.0/16"] } },
      })
      assert.deepStrictEqual((yield* readConfig(client, "ipam"))?.parentCIDRs, { a: ["10.0.0.0/16"] })
      yield* client.create(IpamConfigResource, {
        apiVersion: "gardener.clusters.openmcp.cloud/v1alpha1",
        kind: "IPAMConfig",
        metadata: { name: "bad" },
        spec: { parentCIDRs: { a: ["10.0.0.0/99"] } },
      })
      assert.isUndefined(yield* readConfig(client, "bad"))
    }),
  )

  it.effect("does not start without its certificate, naming the flags", () =>
    Effect.gen(function* () {
      const fake = yield* FakeApiServer.make({ resources: [...Object.values(Resources), IpamConfigResource] })
      const client = yield* makeMemoryClient(fake)
      const exit = yield* Effect.exit(
        Effect.scoped(
          serveIpamWebhooks(client, "ipam", {
            port: 0,
            certPath: "/nonexistent/certs",
            certName: "tls.crt",
            keyName: "tls.key",
          }),
        ),
      )
      assert.isTrue(Exit.isFailure(exit))
      const message = Exit.isFailure(exit) ? String(exit.cause) : ""
      assert.include(message, "/nonexistent/certs/tls.crt")
      assert.include(message, "--webhook-cert-path")
      assert.include(message, "--disable-webhooks")
    }),
  )
})
