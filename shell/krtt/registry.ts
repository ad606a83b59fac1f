/**
 * Every documented table the project implements, joined with its pure transition, its default
 * configuration and the schema of its input: what `krtt tables`, `krtt explain` and the
 * coverage report work from.
 *
 * @module
 */
import type * as Schema from "effect/Schema"
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

/**
 * Binds every table of one area: each spec table to the transition and input schema of the same
 * id, with the area's defaults and input docs. A table without a transition or a schema is a
 * wiring mistake and fails at load.
 */
const area = (
  tables: ReadonlyArray<AnyTableSpec>,
  transitions: Readonly<Record<string, TableBinding["transition"]>>,
  config: unknown,
  schemas: Readonly<Record<string, Schema.Top>>,
  inputDocs: string,
): ReadonlyArray<TableBinding> =>
  tables.map((spec) => {
    const transition = transitions[spec.id]
    const input = schemas[spec.id]
    if (transition === undefined || input === undefined)
      throw new Error(`table ${spec.id} has no transition or no input schema`)
    return bind(spec, transition, config, input, inputDocs)
  })

/** Every documented table with its transition, default configuration and input schema. */
export const bindings: ReadonlyArray<TableBinding> = [
  ...area(
    clustercacheSpec.tables,
    clustercache.transitions,
    clustercache.ClusterCacheDefaults,
    clustercache.inputSchemas,
    "docs/krtt/clustercache-inputs.md",
  ),
  ...area(
    clusterSpec.tables,
    cluster.transitions,
    cluster.ClusterControllerDefaults,
    clusterSchemas,
    "docs/cluster-inputs.md",
  ),
  ...area(
    scopedcacheSpec.tables,
    scopedcache.transitions,
    scopedcache.ScopedCacheDefaults,
    scopedcache.inputSchemas,
    "docs/scopedcache-inputs.md",
  ),
  ...area(
    multiclusterSpec.tables,
    multicluster.transitions,
    multicluster.EngagementDefaults,
    multiclusterSchemas,
    "docs/multicluster-inputs.md",
  ),
  ...area(
    ipamSpec.tables,
    { "ipam.trigger": ipam.triggerTransition, "ipam.reconcile": ipam.reconcileTransition },
    ipam.IpamDefaults,
    ipam.inputSchemas,
    "docs/ipam-inputs.md",
  ),
  ...area(
    inventorySpec.tables,
    inventory.transitions,
    inventory.InventoryDefaults,
    inventory.inputSchemas,
    "docs/fleet.md",
  ),
  ...area(
    propagateSpec.tables,
    propagate.transitions,
    propagate.PropagateDefaults,
    propagate.inputSchemas,
    "docs/fleet.md",
  ),
]

/** The binding of a table id, if there is one. */
export const bindingOf = (id: string): TableBinding | undefined => bindings.find((b) => b.spec.id === id)
