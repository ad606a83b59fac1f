import { describe, expect, it } from "vitest"
import { Outcome } from "../../../core/krtt/run.ts"
import type { CopyAction } from "../../../core/propagate/index.ts"
import type { KubeClientShape } from "../../kube/client.ts"
import { AlreadyExists, Forbidden, NotFound, Unreachable } from "../../kube/errors.ts"
import { type CopyWriter, objectOf, refusal } from "./interpret.ts"

const fields = { verb: "create", path: "/api/v1/namespaces/team-a/configmaps", message: "no" }
const writer = (namespaceMissing: boolean): CopyWriter => ({
  client: {} as KubeClientShape,
  namespaceOf: (ns) => ns,
  resourceVersion: undefined,
  namespaceMissing,
})
const content = { data: { a: "1" }, binaryData: {}, labels: { l: "v" }, annotations: {}, type: undefined }
const create: CopyAction = {
  _tag: "CreateCopy",
  cluster: "east",
  kind: "ConfigMap",
  namespace: "team-a",
  name: "cfg",
  content,
}
const remove: CopyAction = {
  _tag: "DeleteCopy",
  cluster: "east",
  kind: "ConfigMap",
  namespace: "team-a",
  name: "cfg",
}

describe("refusal: what a refused write tells the pair's table", () => {
  it("a create without namespace asks again with the namespace missing (row 1), once", () => {
    expect(refusal(writer(false), create, new NotFound(fields))).toEqual(
      Outcome.next({ _tag: "NamespaceMissing" }),
    )
    const again = refusal(writer(true), create, new NotFound(fields))
    expect(again).toMatchObject({ _tag: "Failed", trigger: { _tag: "Observe", live: true } })
  })
  it("a refusal for want of permission is answered by row 7; anything else by a live read", () => {
    expect(refusal(writer(false), remove, new Forbidden(fields))).toMatchObject({
      _tag: "Failed",
      trigger: { _tag: "Refused" },
    })
    for (const e of [new AlreadyExists(fields), new Unreachable(fields), new NotFound(fields)])
      expect(refusal(writer(false), remove, e)).toMatchObject({
        _tag: "Failed",
        trigger: { _tag: "Observe", live: true },
        failure: e,
      })
  })
})

describe("objectOf", () => {
  it("writes binaryData, type and resourceVersion only when there are some", () => {
    expect(objectOf("ConfigMap", "ns", "n", content)).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { namespace: "ns", name: "n", labels: { l: "v" }, annotations: {} },
      data: { a: "1" },
    })
    const secret = { ...content, binaryData: { b: "Yg==" }, type: "Opaque" }
    expect(objectOf("Secret", "ns", "n", secret, "7")).toMatchObject({
      metadata: { resourceVersion: "7" },
      binaryData: { b: "Yg==" },
      type: "Opaque",
    })
  })
})
