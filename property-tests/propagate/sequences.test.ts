/**
 * `propagate.copy` over sequences: one source and its copy in one cluster,
 * driven by random events in the hub (edits, unlabelled, labelled again, deleted), in the
 * cluster (the copy edited or deleted, an object of someone else in the way, the namespace
 * missing) and of the runtime (permission revoked and restored, the selector changed). After
 * every event the model shell decides and applies the actions as `shell/fleet/propagate/` does
 * (a create that finds no namespace is decided again with the namespace missing: row 1), then
 * checks the promises: a wanted, selected source has its copy exactly as
 * `desiredContent` says; otherwise no copy of ours is left; nothing is written while forbidden;
 * an object that is not ours is never touched; the status says which.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type Content,
  type Copy,
  type CopyAction,
  copyTransition,
  desiredContent,
  PropagateDefaults,
  type Source,
  sameContent,
  sourceKey,
  type Target,
} from "../../core/propagate/index.ts"

interface World {
  source: Source | null
  copy: Copy | null
  namespaceExists: boolean
  access: "Allowed" | "Forbidden"
  target: Target
}

type Event =
  | { readonly _tag: "EditSource"; readonly value: string }
  | { readonly _tag: "Unlabel" }
  | { readonly _tag: "Relabel" }
  | { readonly _tag: "DeleteSource" }
  | { readonly _tag: "EditCopy"; readonly value: string }
  | { readonly _tag: "DeleteCopy" }
  | { readonly _tag: "ForeignObject" }
  | { readonly _tag: "DeleteNamespace" }
  | { readonly _tag: "Forbid" }
  | { readonly _tag: "Allow" }
  | { readonly _tag: "Select"; readonly selected: boolean }

const eventArb: fc.Arbitrary<Event> = fc.oneof(
  fc.record({ _tag: fc.constant("EditSource" as const), value: fc.constantFrom("a", "b", "c") }),
  fc.constant({ _tag: "Unlabel" as const }),
  fc.constant({ _tag: "Relabel" as const }),
  fc.constant({ _tag: "DeleteSource" as const }),
  fc.record({ _tag: fc.constant("EditCopy" as const), value: fc.constantFrom("x", "y") }),
  fc.constant({ _tag: "DeleteCopy" as const }),
  fc.constant({ _tag: "ForeignObject" as const }),
  fc.constant({ _tag: "DeleteNamespace" as const }),
  fc.constant({ _tag: "Forbid" as const }),
  fc.constant({ _tag: "Allow" as const }),
  fc.record({ _tag: fc.constant("Select" as const), selected: fc.boolean() }),
)

const content = (value: string): Content => ({
  data: { value },
  binaryData: {},
  labels: { "krtt.io/propagate": "true", app: "web" },
  annotations: { "krtt.io/propagated-to": "1/1", note: "n" },
  type: undefined,
})

const fresh = (): World => ({
  source: {
    kind: "ConfigMap",
    namespace: "team-a",
    name: "settings",
    labelled: true,
    deleting: false,
    content: content("a"),
  },
  copy: null,
  namespaceExists: false,
  access: "Allowed",
  target: { _tag: "Selected" },
})

/** What happens in the world, before the controller looks. */
const happen = (w: World, e: Event): void => {
  switch (e._tag) {
    case "EditSource":
      if (w.source !== null && !w.source.deleting) w.source = { ...w.source, content: content(e.value) }
      return
    case "Unlabel":
      if (w.source !== null) w.source = { ...w.source, labelled: false }
      return
    case "Relabel":
      if (w.source !== null && !w.source.deleting) w.source = { ...w.source, labelled: true }
      return
    case "DeleteSource":
      if (w.source !== null) w.source = { ...w.source, deleting: true }
      return
    case "EditCopy":
      if (w.copy !== null) w.copy = { ...w.copy, content: { ...w.copy.content, data: { value: e.value } } }
      return
    case "DeleteCopy":
      w.copy = null
      return
    case "ForeignObject":
      if (w.copy === null && w.namespaceExists)
        w.copy = { propagatedFrom: undefined, content: content("theirs") }
      return
    case "DeleteNamespace":
      w.namespaceExists = false
      w.copy = null
      return
    case "Forbid":
      w.access = "Forbidden"
      return
    case "Allow":
      w.access = "Allowed"
      return
    case "Select":
      w.target = e.selected ? { _tag: "Selected" } : { _tag: "NotSelected" }
      return
  }
}

/** The shell's part: decide, apply; a create without namespace is decided again (row 1). */
const reconcile = (w: World, transition: typeof copyTransition) => {
  const decide = (namespace: "Unknown" | "Missing") =>
    transition(
      {
        observed: { source: w.source, copy: w.copy, access: w.access, namespace },
        desired: { cluster: "east", target: w.target },
        trigger: { _tag: "Resync" },
        now: 0,
      },
      PropagateDefaults,
    )
  const apply = (a: CopyAction): "ok" | "namespace-missing" => {
    switch (a._tag) {
      case "CreateNamespace":
        w.namespaceExists = true
        return "ok"
      case "CreateCopy":
        if (!w.namespaceExists) return "namespace-missing"
        if (w.copy !== null) throw new Error("create over an existing object")
        w.copy = { propagatedFrom: a.content.labels["krtt.io/propagated-from"], content: a.content }
        return "ok"
      case "UpdateCopy":
      case "ReplaceCopy":
        w.copy = { propagatedFrom: a.content.labels["krtt.io/propagated-from"], content: a.content }
        return "ok"
      case "DeleteCopy":
        w.copy = null
        return "ok"
      case "SourceEvent":
        return "ok"
    }
  }
  let result = decide("Unknown")
  for (const a of result.actions) {
    if (apply(a) === "namespace-missing") {
      result = decide("Missing")
      for (const again of result.actions) apply(again)
      break
    }
  }
  // The finalizer: a source no longer wanted goes once its cluster is clean.
  if (w.source?.deleting && result.status === "Clean") w.source = null
  return result
}

const promises = (transition: typeof copyTransition) =>
  fc.property(fc.array(eventArb, { minLength: 1, maxLength: 40 }), (events) => {
    const w = fresh()
    for (const e of events) {
      happen(w, e)
      const before = w.copy
      const foreignBefore =
        before !== null && (w.source === null || before.propagatedFrom !== sourceKey(w.source))
      const result = reconcile(w, transition)
      const source = w.source
      const wanted = source?.labelled === true && !source.deleting && w.target._tag === "Selected"
      const ours = w.copy !== null && source !== null && w.copy.propagatedFrom === sourceKey(source)
      if (w.access === "Forbidden") {
        if (w.copy !== before) throw new Error(`${e._tag}: written while forbidden`)
        if (result.status !== "Blocked") throw new Error(`${e._tag}: forbidden but ${result.status}`)
        continue
      }
      if (foreignBefore && w.copy !== before)
        throw new Error(`${e._tag}: an object that is not ours was touched`)
      if (wanted && !foreignBefore) {
        if (!ours || !sameContent((w.copy as Copy).content, desiredContent(source as Source)))
          throw new Error(`${e._tag}: wanted, but the copy is ${JSON.stringify(w.copy)}`)
        if (result.status !== "Synced") throw new Error(`${e._tag}: in sync but ${result.status}`)
      }
      if (!wanted && ours) throw new Error(`${e._tag}: not wanted, but a copy of ours is left`)
      if (!wanted && result.status !== "Clean") throw new Error(`${e._tag}: not wanted but ${result.status}`)
    }
  })

describe("propagate.copy over sequences of hub, cluster and permission events", () => {
  it("keeps the issue's promises after every event", () => {
    fc.assert(promises(copyTransition), { numRuns: 2_000 })
  })

  it("catches a core that leaves an edited copy alone, or forgets the copies of an unlabelled source", () => {
    const lazy: typeof copyTransition = (i, c) => {
      const r = copyTransition(i, c)
      return r.row === "propagate.copy#3" ? { ...r, actions: [] } : r
    }
    const forgetful: typeof copyTransition = (i, c) => {
      const r = copyTransition(i, c)
      return r.row === "propagate.copy#5" && i.observed.source?.labelled === false ? { ...r, actions: [] } : r
    }
    for (const broken of [lazy, forgetful])
      expect(() => fc.assert(promises(broken), { numRuns: 2_000 })).toThrow()
  })
})
