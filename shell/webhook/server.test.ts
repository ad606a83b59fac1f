import { describe, expect, it } from "vitest"
import { review } from "./server.ts"

const resolve = (group: string) => (group === "infrastructure.example.com" ? "v1alpha1" : undefined)
const cluster = (spec: Record<string, unknown>) => ({
  apiVersion: "cluster.x-k8s.io/v1beta2",
  kind: "Cluster",
  metadata: { name: "c", namespace: "n" },
  spec,
})

describe("review (POST /convert)", () => {
  it("converts every object to the desired version and echoes the request's uid", () => {
    const r = review(
      {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "ConversionReview",
        request: {
          uid: "u-1",
          desiredAPIVersion: "cluster.x-k8s.io/v1beta1",
          objects: [
            cluster({ infrastructureRef: { apiGroup: "infrastructure.example.com", kind: "K", name: "c" } }),
          ],
        },
      },
      resolve,
    ) as {
      response: {
        uid: string
        result: { status: string }
        convertedObjects: Array<{ apiVersion: string; spec: unknown }>
      }
    }
    expect(r.response.uid).toBe("u-1")
    expect(r.response.result.status).toBe("Success")
    expect(r.response.convertedObjects[0]?.apiVersion).toBe("cluster.x-k8s.io/v1beta1")
    expect(r.response.convertedObjects[0]?.spec).toEqual({
      infrastructureRef: { apiVersion: "infrastructure.example.com/v1alpha1", kind: "K", name: "c" },
    })
  })

  it("fails naming the object and the field, or the desired version", () => {
    const bad = review(
      {
        request: {
          uid: "u-2",
          desiredAPIVersion: "cluster.x-k8s.io/v1beta1",
          objects: [cluster({ controlPlaneRef: { apiGroup: "unknown.io", kind: "K", name: "c" } })],
        },
      },
      resolve,
    ) as { response: { uid: string; result: { status: string; message: string } } }
    expect(bad.response).toMatchObject({ uid: "u-2", result: { status: "Failure" } })
    expect(bad.response.result.message).toMatch(/^Cluster n\/c: spec\.controlPlaneRef: /)
    const version = review(
      { request: { uid: "u-3", desiredAPIVersion: "cluster.x-k8s.io/v1alpha3", objects: [] } },
      resolve,
    ) as {
      response: { result: { message: string } }
    }
    expect(version.response.result.message).toContain("request.desiredAPIVersion")
  })
})

describe("mutate and validate (upstream's Cluster admission paths)", () => {
  it("defaults a topology version with a JSON patch", async () => {
    const { mutate } = await import("./server.ts")
    const r = mutate({
      request: {
        uid: "m",
        object: {
          metadata: { name: "c" },
          spec: { topology: { classRef: { name: "q" }, version: "1.34.0" } },
        },
      },
    }) as { response: { uid: string; allowed: boolean; patchType: string; patch: string } }
    expect(r.response).toMatchObject({ uid: "m", allowed: true, patchType: "JSONPatch" })
    expect(JSON.parse(Buffer.from(r.response.patch, "base64").toString())).toEqual([
      { op: "replace", path: "/spec/topology/version", value: "v1.34.0" },
    ])
  })
  it("refuses an invalid update with 422 and a message naming the field; allows deletes", async () => {
    const { validate } = await import("./server.ts")
    const refs = { infrastructureRef: { apiGroup: "g", kind: "K", name: "c" } }
    const r = validate(
      {
        request: {
          uid: "v",
          operation: "UPDATE",
          oldObject: { metadata: { name: "c" }, spec: refs },
          object: { metadata: { name: "c" }, spec: {} },
        },
      },
      { clusterTopology: false },
    ) as { response: { allowed: boolean; status: { code: number; message: string } } }
    expect(r.response.allowed).toBe(false)
    expect(r.response.status.code).toBe(422)
    expect(r.response.status.message).toContain("spec.infrastructureRef: Forbidden: cannot be removed")
    const d = validate({ request: { uid: "d", operation: "DELETE" } }, { clusterTopology: false }) as {
      response: { allowed: boolean }
    }
    expect(d.response.allowed).toBe(true)
  })
})
