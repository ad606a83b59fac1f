/**
 * Where seed 004 is silent, openmcp's platform-service-gardener-ipam (and the controller-utils
 * library it uses) is the reference: what krtt takes from it, from where, and why. Each entry is
 * checked by spec/ipam/upstream.test.ts or by the test it names.
 *
 * @module
 */

/** One behaviour taken from upstream. */
export interface UpstreamReference {
  readonly topic: string
  /** What krtt does. */
  readonly decision: string
  /** Where upstream says or does it. */
  readonly source: string
  /** Why upstream is followed here (or where krtt departs, and why). */
  readonly reason: string
}

/**
 * controller-utils' "Path Notation" examples (docs/libs/jsonpatch.md and the ConvertPath tests):
 * a JSON Path and the JSON Pointer it stands for. Every one must normalize as listed.
 */
export const pathNotationExamples: ReadonlyArray<readonly [jsonPath: string, pointer: string]> = [
  [".metadata.annotations.foo\\.bar\\.baz/foobar", "/metadata/annotations/foo.bar.baz~1foobar"],
  ["metadata.annotations.foo\\.bar\\.baz/foobar", "/metadata/annotations/foo.bar.baz~1foobar"],
  [".metadata.annotations[foo\\.bar\\.baz/foobar]", "/metadata/annotations/foo.bar.baz~1foobar"],
  ['metadata.annotations["foo.bar.baz/foobar"]', "/metadata/annotations/foo.bar.baz~1foobar"],
  [".metadata[annotations]['foo.bar.baz/foobar']", "/metadata/annotations/foo.bar.baz~1foobar"],
  [".mylist[0].asdf", "/mylist/0/asdf"],
  ["mylist.0.asdf", "/mylist/0/asdf"],
  ["a[b.c].d", "/a/b.c/d"],
  ["a['b\\c']", "/a/b\\c"],
  ["a\\[b\\]", "/a[b]"],
  ["a.\\'b\\'.c", "/a/'b'/c"],
  [".a~b.c/d", "/a~0b/c~1d"],
]

/** JSON Paths upstream's ConvertPath refuses; krtt refuses them too, naming position and reason. */
export const pathNotationRefusals: ReadonlyArray<string> = [
  "a[",
  "a[foo",
  "a['foo]",
  'a["foo]',
  "a]",
  'a"',
  "a'",
  "a\\",
]

export const upstreamReferences: ReadonlyArray<UpstreamReference> = [
  {
    topic: "injection path notation",
    decision:
      "`path` and `paths` take a JSON Pointer (kept as written) or a JSON Path in controller-utils' notation: optional leading '.', '\\' escaping '\\ . [ ] \\' \"', bracket segments quoted with ' or \" or unquoted, numeric segments as plain segments; both become JSON Pointers. A refused path names the position and the reason.",
    source:
      "controller-utils docs/libs/jsonpatch.md 'Path Notation' and pkg/jsonpatch ConvertPath; IPAMConfig field `path` links there",
    reason:
      "Seed 004 only says the rules inject CIDRs; an IPAMConfig written for upstream must mean the same under krtt. Three departures: inside unquoted brackets an escape takes the escaped character only, as the documentation's example `[foo\\.bar\\.baz/foobar]` shows (upstream's code also skips the character after it); a JSON Pointer with '~' not followed by 0 or 1 is refused (RFC 6901 forbids it, upstream passes it on to fail when the patch is applied); the empty path is refused (upstream turns it into '/', which the IPAMConfig's own rule 'either path or paths' excludes).",
  },
]
