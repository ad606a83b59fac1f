/**
 * Every documented table the project implements, joined with its pure transition, its default
 * configuration and the schema of its input: what `krtt tables`, `krtt explain` and the
 * coverage report work from.
 *
 * @module
 */
import type { Schema } from "effect"
import * as cluster from "../../core/cluster/index.ts"
import { inputSchemas as clusterSchemas } from "../../core/cluster/schema.ts"
import * as clustercache from "../../core/clustercache/index.ts"
import * as inventory from "../../core/inventory/index.ts"
import * as ipam from "../../core/ipam/index.ts"
import type { AnyTableSpec, TransitionResult } from "../../core/krtt/index.ts"
import * as multicluster from "../../core/multicluster/index.ts"
import { inputSchemas as multiclusterSchemas } from "../../core/multicluster/schema.ts"
import * as propagate from "../../core/propagate/index.ts"
import * as scopedcache from "../../core/scopedcache/index.ts"
import * as clusterSpec from "../../spec/cluster/index.ts"
import * as clustercacheSpec from "../../spec/clustercache/index.ts"
import * as inventorySpec from "../../spec/inventory/index.ts"
import * as ipamSpec from "../../spec/ipam/index.ts"
import * as multiclusterSpec from "../../spec/multicluster/index.ts"
import * as propagateSpec from "../../spec/propagate/index.ts"
import * as scopedcacheSpec from "../../spec/scopedcache/index.ts"

/** A documented table and what implements it. */
export interface TableBinding {
  readonly spec: AnyTableSpec
  // biome-ignore lint/suspicious/noExplicitAny: each binding pairs a transition with its own input type
  readonly transition: (input: any, config: any) => TransitionResult<unknown, unknown>
  /** The configuration the operator runs with by default (the documented numbers). */
  readonly config: unknown
  /** Decodes a hand-written input. */
  readonly input: Schema.Top
  /** Where the input's JSON shape is documented. */
  readonly inputDocs: string
}

const bind = (
  spec: AnyTableSpec,
  transition: TableBinding["transition"],
  config: unknown,
  input: Schema.Top,
  inputDocs: string,
): TableBinding => {
  if (spec.id === "") throw new Error("a table needs an id")
  return { spec, transition, config, input, inputDocs }
}

const ccDocs = "docs/krtt/clustercache-inputs.md"
const clusterDocs = "docs/cluster-inputs.md"
const ipamDocs = "docs/ipam-inputs.md"
const ipamTransitions = {
  "ipam.trigger": ipam.triggerTransition,
  "ipam.reconcile": ipam.reconcileTransition,
} as const
const multiclusterDocs = "docs/multicluster-inputs.md"
const scopedcacheDocs = "docs/scopedcache-inputs.md"

export const bindings: ReadonlyArray<TableBinding> = [
  ...clustercacheSpec.tables.map((spec) => {
    const id = spec.id as keyof typeof clustercache.transitions
    return bind(
      spec,
      clustercache.transitions[id],
      clustercache.ClusterCacheDefaults,
      clustercache.inputSchemas[id],
      ccDocs,
    )
  }),
  ...clusterSpec.tables.map((spec) => {
    const id = spec.id as keyof typeof cluster.transitions
    return bind(
      spec,
      cluster.transitions[id],
      cluster.ClusterControllerDefaults,
      clusterSchemas[id],
      clusterDocs,
    )
  }),
  ...scopedcacheSpec.tables.map((spec) => {
    const id = spec.id as keyof typeof scopedcache.transitions
    return bind(
      spec,
      scopedcache.transitions[id],
      scopedcache.ScopedCacheDefaults,
      scopedcache.inputSchemas[id],
      scopedcacheDocs,
    )
  }),
  ...multiclusterSpec.tables.map((spec) => {
    const id = spec.id as keyof typeof multicluster.transitions
    return bind(
      spec,
      multicluster.transitions[id],
      multicluster.EngagementDefaults,
      multiclusterSchemas[id],
      multiclusterDocs,
    )
  }),
  ...ipamSpec.tables.map((spec) => {
    const id = spec.id as keyof typeof ipamTransitions
    return bind(spec, ipamTransitions[id], ipam.IpamDefaults, ipam.inputSchemas[id], ipamDocs)
  }),
  ...inventorySpec.tables.map((spec) => {
    const id = spec.id as keyof typeof inventory.transitions
    return bind(
      spec,
      inventory.transitions[id],
      inventory.InventoryDefaults,
      inventory.inputSchemas[id],
      "docs/fleet.md",
    )
  }),
  ...propagateSpec.tables.map((spec) => {
    const id = spec.id as keyof typeof propagate.transitions
    return bind(
      spec,
      propagate.transitions[id],
      propagate.PropagateDefaults,
      propagate.inputSchemas[id],
      "docs/fleet.md",
    )
  }),
]

/** The binding of a table id, if there is one. */
export const bindingOf = (id: string): TableBinding | undefined => bindings.find((b) => b.spec.id === id)
