/**
 * fast-check generators for `propagate.copy`'s inputs, biased so that every row decides a good
 * share (the coverage report asks for 50 of 2,000): the copy is drawn as absent, the source's
 * exact copy, a copy edited one way or another, another source's or an unlabelled object; the
 * access, namespace and selector verdicts are drawn with weights.
 *
 * @module
 */
import fc from "fast-check"
import { desiredContent, sourceKey } from "../../core/propagate/copy.ts"
import type { Content, Copy, CopyInput, Source, Target } from "../../core/propagate/types.ts"

const NOW = { min: 1_700_000_000_000, max: 1_800_000_000_000 }
const keyArb = fc.constantFrom("a", "b", "app", "krtt.io/propagate", "team", "owner")
const valueArb = fc.constantFrom("", "1", "x", "true", "blue")
const mapArb = fc.dictionary(keyArb, valueArb, { maxKeys: 3 })
const annotationKeyArb = fc.constantFrom(
  "note",
  "krtt.io/propagation",
  "krtt.io/propagated-to",
  "kubectl.kubernetes.io/last-applied-configuration",
)
const annotationsArb = fc.dictionary(annotationKeyArb, valueArb, { maxKeys: 3 })

export const contentArb = (kind: "ConfigMap" | "Secret"): fc.Arbitrary<Content> =>
  fc.record({
    data: mapArb,
    binaryData: fc.dictionary(fc.constantFrom("bin", "blob"), fc.constantFrom("AA==", "AQI="), {
      maxKeys: 1,
    }),
    labels: mapArb,
    annotations: annotationsArb,
    type: kind === "Secret" ? fc.constantFrom("Opaque", "kubernetes.io/tls") : fc.constant(undefined),
  })

export const sourceArb: fc.Arbitrary<Source> = fc
  .record({
    kind: fc.constantFrom("ConfigMap" as const, "Secret" as const),
    namespace: fc.constantFrom("team-a", "team-b", "kube-public"),
    name: fc.constantFrom("settings", "tls", "a.b"),
    labelled: fc.constantFrom(true, true, true, false),
    deleting: fc.constantFrom(false, false, false, true),
  })
  .chain((s) => contentArb(s.kind).map((content) => ({ ...s, content })))

const targetArb: fc.Arbitrary<Target> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ _tag: "Selected" as const }) },
  { weight: 2, arbitrary: fc.constant({ _tag: "NotSelected" as const }) },
  {
    weight: 1,
    arbitrary: fc.constant({ _tag: "Invalid" as const, message: 'unable to parse requirement: "env in (a"' }),
  },
)

/** A copy for `source`: its exact copy, an edited one, another owner's, or an unlabelled object. */
const copyFor = (source: Source): fc.Arbitrary<Copy | null> => {
  const exact = desiredContent(source)
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    { weight: 3, arbitrary: fc.constant({ propagatedFrom: sourceKey(source), content: exact }) },
    {
      weight: 3,
      arbitrary: fc
        .record({
          data: mapArb,
          annotations: annotationsArb,
          type:
            source.kind === "Secret"
              ? fc.constantFrom(exact.type, "kubernetes.io/dockerconfigjson")
              : fc.constant(undefined),
        })
        .map((edit) => ({
          propagatedFrom: sourceKey(source),
          content: { ...exact, data: edit.data, annotations: edit.annotations, type: edit.type },
        })),
    },
    {
      weight: source.kind === "Secret" ? 3 : 0,
      arbitrary: fc.constant({
        propagatedFrom: sourceKey(source),
        content: { ...exact, type: exact.type === "Opaque" ? "kubernetes.io/tls" : "Opaque" },
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(undefined, "other.settings", `${source.name}.${source.namespace}`)
        .chain((from) => contentArb(source.kind).map((content) => ({ propagatedFrom: from, content }))),
    },
  )
}

export const copyInputArb: fc.Arbitrary<CopyInput> = fc
  .record({
    source: fc.oneof({ weight: 12, arbitrary: sourceArb }, { weight: 1, arbitrary: fc.constant(null) }),
    access: fc.constantFrom("Allowed", "Allowed", "Allowed", "Allowed", "Allowed", "Allowed", "Forbidden"),
    namespace: fc.constantFrom("Present", "Missing", "Missing", "Unknown"),
    cluster: fc.constantFrom("east", "west", "fleet#prod-1"),
    target: targetArb,
    trigger: fc.constantFrom(
      { _tag: "SourceChanged" as const },
      { _tag: "CopyChanged" as const },
      { _tag: "ClusterEngaged" as const },
      { _tag: "Resync" as const },
    ),
    now: fc.integer(NOW),
  })
  .chain((r) =>
    (r.source === null ? fc.constant(null) : copyFor(r.source)).map(
      (copy): CopyInput => ({
        observed: {
          source: r.source,
          copy,
          access: r.access as "Allowed" | "Forbidden",
          namespace: r.namespace as "Present" | "Missing" | "Unknown",
        },
        desired: { cluster: r.cluster, target: r.target },
        trigger: r.trigger,
        now: r.now,
      }),
    ),
  )

/** Input generators by table id. */
export const inputs: Readonly<Record<string, fc.Arbitrary<unknown>>> = { "propagate.copy": copyInputArb }
