import { describe, expect, it } from "vitest"
import { copyTransition } from "./copy.ts"
import type { Content, CopyInput, Source } from "./types.ts"

const content: Content = { data: { a: "1" }, binaryData: {}, labels: {}, annotations: {}, type: undefined }
const source: Source = {
  kind: "ConfigMap",
  namespace: "team",
  name: "cfg",
  labelled: true,
  deleting: false,
  content,
}
const input = (observed: Partial<CopyInput["observed"]>): CopyInput => ({
  observed: { source, copy: null, access: "Allowed", namespace: "Present", ...observed },
  desired: { cluster: "east", target: { _tag: "Selected" } },
  trigger: { _tag: "SourceChanged" },
  now: 0,
})
const message = (i: CopyInput) => {
  const a = copyTransition(i).actions[0]
  return a?._tag === "SourceEvent" ? a.message : `no event: ${JSON.stringify(a)}`
}

describe("copyTransition's Events name the cluster, the object and the cause (propagate.copy rows 7 and 9)", () => {
  it("row 7: a missing permission names the source, or the copy when the source is gone", () => {
    expect(message(input({ access: "Forbidden" }))).toMatch(
      /^cluster east: no permission to watch ConfigMap team\/cfg's namespace/,
    )
    expect(message(input({ access: "Forbidden", source: null }))).toMatch(
      /^cluster east: no permission to watch the copy's namespace/,
    )
  })
  it("row 9: a conflicting object says whether our label is absent or holds another source", () => {
    expect(message(input({ copy: { propagatedFrom: undefined, content } }))).toMatch(
      /^cluster east: ConfigMap team\/cfg exists and is not a copy of this source \(label krtt\.io\/propagated-from is absent\)/,
    )
    expect(message(input({ copy: { propagatedFrom: "other.src", content } }))).toMatch(
      /\(label krtt\.io\/propagated-from is "other\.src"\); it is left alone$/,
    )
  })
})
