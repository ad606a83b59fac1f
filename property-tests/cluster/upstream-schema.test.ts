/**
 * Every status the Cluster controller writes validates against upstream Cluster API's own
 * Cluster CRD of the release it is tested against (`core/config/crd/bases`, or
 * `config/crd/bases` before v1.14, of the Go module `sigs.k8s.io/cluster-api`, downloaded into
 * the cache by `testenv/clusterapi.ts`), so that no status patch is refused with a 422 such as
 * "status.conditions[0].message: Required value".
 *
 * Conditions of other writers are taken out before the check: they come from the API server,
 * which validated them when they were written; the controller only keeps them.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import {
  ClusterControllerDefaults,
  type ClusterStatus,
  reconcile,
  V1Beta1ConditionTypes,
  V1Beta2ConditionTypes,
} from "../../core/cluster/index.ts"
import { clusterApiCrd } from "../../testenv/clusterapi.ts"
import { anyInput, arbitraries } from "./arbitraries.ts"
import { fieldSchema, type Schema, validate } from "./openapi.ts"

let status: Schema
let upstreamSpec: Schema
const deployCrd = parse(
  readFileSync(
    fileURLToPath(new URL("../../config/crd/bases/cluster.x-k8s.io_clusters.yaml", import.meta.url)),
    "utf8",
  ),
) as Parameters<typeof fieldSchema>[0]
const deployStatus = fieldSchema(deployCrd, "v1beta2", "status")
const deploySpec = fieldSchema(deployCrd, "v1beta2", "spec")

beforeAll(async () => {
  const crd = await clusterApiCrd("cluster.x-k8s.io_clusters.yaml")
  status = fieldSchema(crd, "v1beta2", "status")
  upstreamSpec = fieldSchema(crd, "v1beta2", "spec")
}, 600_000)

/** The constraints the API server enforces, by field path (descriptions and defaults left out). */
const CONSTRAINTS = [
  "type",
  "required",
  "enum",
  "pattern",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "minProperties",
  "format",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
] as const
const constraints = (schema: Schema, path: string, out = new Map<string, unknown>()) => {
  const own: Record<string, unknown> = {}
  for (const k of CONSTRAINTS)
    if (schema[k] !== undefined)
      own[k] = k === "required" ? [...(schema[k] as Array<string>)].sort() : schema[k]
  out.set(path, own)
  for (const [k, v] of Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {}))
    constraints(v, `${path}.${k}`, out)
  if (schema.items !== undefined) constraints(schema.items as Schema, `${path}[]`, out)
  if (typeof schema.additionalProperties === "object")
    constraints(schema.additionalProperties as Schema, `${path}{}`, out)
  return out
}

const V2 = new Set<string>(V1Beta2ConditionTypes)
const V1 = new Set<string>(V1Beta1ConditionTypes)

/** The status as the controller owns it: other writers' conditions taken out. */
const owned = (s: ClusterStatus): ClusterStatus => ({
  ...s,
  ...(s.conditions === undefined ? {} : { conditions: s.conditions.filter((c) => V2.has(c.type)) }),
  ...(s.deprecated?.v1beta1?.conditions === undefined
    ? {}
    : {
        deprecated: {
          ...s.deprecated,
          v1beta1: {
            ...s.deprecated.v1beta1,
            conditions: s.deprecated.v1beta1.conditions.filter((c) => V1.has(c.type)),
          },
        },
      }),
})

const writtenStatuses = (input: Parameters<typeof reconcile>[0]) =>
  reconcile(input, ClusterControllerDefaults).actions.flatMap((a) =>
    a._tag === "PatchStatus" ? [a.status] : [],
  )

describe("statuses the Cluster controller writes validate against upstream Cluster API's Cluster CRD", () => {
  const inputs = [...Object.entries(arbitraries), ["any input", anyInput] as const]
  for (const [name, arb] of inputs) {
    it(`${name}: every PatchStatus`, () => {
      fc.assert(
        fc.property(arb, (input) => {
          for (const s of writtenStatuses(input)) {
            const violations = validate(status, owned(s), "status")
            expect(violations, JSON.stringify(s)).toEqual([])
          }
        }),
        { numRuns: 300 },
      )
    })
  }

  it("config/crd has upstream's constraints on every status field and on the spec fields krtt reads", () => {
    const ours = constraints(deployStatus, "status")
    for (const [path, theirs] of constraints(status, "status")) expect(ours.get(path), path).toEqual(theirs)
    const spec = constraints(deploySpec, "spec")
    const upstream = constraints(upstreamSpec, "spec")
    const read = [
      "spec.paused",
      "spec.controlPlaneEndpoint",
      "spec.infrastructureRef",
      "spec.controlPlaneRef",
      "spec.availabilityGates",
    ]
    for (const [path, theirs] of upstream)
      if (read.some((r) => path === r || path.startsWith(`${r}.`) || path.startsWith(`${r}[`)))
        expect(spec.get(path), path).toEqual(theirs)
  })

  it("every status the controller writes validates against config/crd too", () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        for (const s of writtenStatuses(input)) expect(validate(deployStatus, owned(s), "status")).toEqual([])
      }),
      { numRuns: 300 },
    )
  })

  it("the validator catches what the API server refused: a condition without a message, an empty failureDomains", () => {
    const bad = {
      conditions: [
        {
          type: "Available",
          status: "True",
          reason: "Available",
          lastTransitionTime: "2026-01-01T00:00:00Z",
        },
      ],
      failureDomains: [],
    }
    expect(validate(status, bad, "status").map((v) => v.path)).toEqual([
      "status.conditions[0].message",
      "status.failureDomains",
    ])
  })
})
