import { describe, expect, it } from "vitest"
import { pendingAfterRelease, summarize } from "./summary.ts"

const wanted = { labelled: true, deleting: false, hasFinalizer: true, propagatedTo: undefined }

describe("summarize (the finalizer and krtt.io/propagated-to)", () => {
  it("counts synced over targeted engaged clusters; untargeted clusters are in neither", () => {
    const d = summarize(wanted, [
      { cluster: "a", targeted: true, status: "Synced" },
      { cluster: "b", targeted: true, status: "Blocked" },
      { cluster: "c", targeted: false, status: "Clean" },
    ])
    expect(d).toEqual({
      addFinalizer: false,
      removeFinalizer: false,
      propagatedTo: "1/2",
      writeAnnotation: true,
      settled: false,
    })
  })
  it("adds the finalizer to a wanted source without it, and writes nothing when the count is unchanged", () => {
    const d = summarize({ ...wanted, hasFinalizer: false, propagatedTo: "1/1" }, [
      { cluster: "a", targeted: true, status: "Synced" },
    ])
    expect(d).toMatchObject({ addFinalizer: true, writeAnnotation: false, settled: true })
  })
  it("no engaged cluster: 0/0, settled", () => {
    expect(summarize(wanted, [])).toMatchObject({ propagatedTo: "0/0", settled: true })
  })
  it("a deleted source is released only when every engaged cluster is clean", () => {
    const deleting = { ...wanted, deleting: true, propagatedTo: "2/2" }
    expect(
      summarize(deleting, [
        { cluster: "a", targeted: true, status: "Clean" },
        { cluster: "b", targeted: true, status: "Failed" },
      ]),
    ).toMatchObject({ removeFinalizer: false, settled: false, writeAnnotation: false })
    expect(
      summarize(deleting, [
        { cluster: "a", targeted: true, status: "Clean" },
        { cluster: "b", targeted: true, status: "Clean" },
      ]),
    ).toMatchObject({ removeFinalizer: true, settled: true })
  })
  it("an unlabelled source loses the annotation and the finalizer once clean", () => {
    expect(
      summarize({ ...wanted, labelled: false, propagatedTo: "1/1" }, [
        { cluster: "a", targeted: true, status: "Clean" },
      ]),
    ).toEqual({
      addFinalizer: false,
      removeFinalizer: true,
      propagatedTo: undefined,
      writeAnnotation: true,
      settled: true,
    })
  })
  it("pendingAfterRelease: the known clusters that are not engaged, sorted", () => {
    expect(pendingAfterRelease(["c", "a", "b"], ["b"])).toEqual(["a", "c"])
  })
})

describe("summarize at the edges", () => {
  it("a wanted source is not settled while an untargeted cluster still holds a copy", () => {
    const d = summarize(wanted, [
      { cluster: "a", targeted: true, status: "Synced" },
      { cluster: "c", targeted: false, status: "Failed" },
    ])
    expect(d).toMatchObject({ propagatedTo: "1/1", settled: false })
    expect(
      summarize(wanted, [
        { cluster: "a", targeted: true, status: "Synced" },
        { cluster: "c", targeted: false, status: "Clean" },
      ]).settled,
    ).toBe(true)
  })
  it("an unlabelled source loses its annotation only when it has one; a deleted one keeps it", () => {
    const unlabelled = { ...wanted, labelled: false }
    expect(summarize(unlabelled, []).writeAnnotation).toBe(false)
    expect(summarize({ ...unlabelled, propagatedTo: "1/1" }, [])).toMatchObject({
      writeAnnotation: true,
      propagatedTo: undefined,
    })
    expect(summarize({ ...wanted, deleting: true, propagatedTo: "1/1" }, []).writeAnnotation).toBe(false)
  })
})
