import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as References from "effect/References"
import { ClusterName } from "../../workqueue/request.ts"
import { KubeconfigFileDefaults, makeKubeconfigFileProvider } from "./kubeconfigFile.ts"
import { DefaultKubeconfigGlobs, matchesGlob } from "./kubeconfigSources.ts"
import { eventually, multiContextYaml, recordingAware, workloads } from "./testing.ts"

/** Writes like editors that save a new file and rename it over the old one. */
const renameOnWrite = (path: string, text: string) =>
  Effect.promise(async () => {
    await writeFile(`${path}.tmp`, text)
    await rename(`${path}.tmp`, path)
  })

const tempDir = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "krtt-kubeconfig-file-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true })),
)

const started = (pollInterval: Duration.Input) =>
  Effect.gen(function* () {
    const dir = yield* tempDir
    const path = join(dir, "config")
    yield* Effect.promise(() =>
      writeFile(
        path,
        multiContextYaml([
          { name: "east", server: "https://east.example", token: "e1" },
          { name: "west", server: "https://west.example", token: "w1" },
        ]),
      ),
    )
    const w = workloads()
    const provider = yield* makeKubeconfigFileProvider({
      paths: [path],
      clientFactory: w.factory,
      pollInterval,
    })
    const aware = recordingAware()
    yield* provider.run(aware)
    return { path, w, provider, aware }
  })

describe("kubeconfig-file provider", () => {
  it("polls every 5 s besides fs.watch (a derived default)", () => {
    assert.strictEqual(KubeconfigFileDefaults.pollInterval, "5 seconds")
  })

  it.live("engages every context under its name; live edits add, remove and re-credential contexts", () =>
    Effect.gen(function* () {
      // A poll of an hour: only fs.watch can notice the edits within the test.
      const { path, w, provider, aware } = yield* started("1 hour")
      yield* eventually("east and west engaged", () => aware.open().size === 2)
      assert.deepStrictEqual([...aware.open().keys()].sort(), ["east", "west"])
      const east = yield* provider.get(ClusterName("east"))
      yield* renameOnWrite(
        path,
        multiContextYaml([
          { name: "east", server: "https://east.example", token: "e2" },
          { name: "north", server: "https://north.example", token: "n1" },
        ]),
      )
      yield* eventually(
        "west gone, north engaged, east re-engaged",
        () =>
          !aware.open().has("west") &&
          aware.open().has("north") &&
          aware.open().get("east")?.cluster.generation !== east.generation,
      )
      assert.isTrue(w.built.some((b) => b.server === "https://east.example" && b.token === "e2"))
      assert.deepStrictEqual(
        aware.engagements.filter((e) => e.cluster.name === "east").map((e) => e.closed),
        [1, 0],
      )
      assert.deepStrictEqual(
        (yield* provider.clusters).map((c) => c.name),
        ["east", "north"],
      )
    }).pipe(Effect.scoped),
  )

  it.live(
    "a file that does not parse keeps the last good contexts, unquoted in logs; the poll picks up the fix",
    () => {
      const lines: Array<string> = []
      const logger = Logger.make((o) => {
        lines.push(JSON.stringify({ m: o.message, a: o.fiber.getRef(References.CurrentLogAnnotations) }))
      })
      return Effect.gen(function* () {
        const { path, aware } = yield* started("20 millis")
        yield* eventually("engaged", () => aware.open().size === 2)
        yield* Effect.promise(() => writeFile(path, "contexts: [ {{ broken SECRET-TOKEN"))
        yield* Effect.sleep("100 millis")
        assert.strictEqual(aware.open().size, 2)
        assert.strictEqual(aware.engagements.length, 2)
        yield* Effect.promise(() =>
          writeFile(path, multiContextYaml([{ name: "east", server: "https://east.example", token: "e1" }])),
        )
        yield* eventually("west removed", () => aware.open().size === 1 && aware.open().has("east"))
        assert.strictEqual(aware.engagements.length, 2)
        assert.isTrue(lines.some((l) => l.includes("does not parse")))
        assert.isFalse(lines.some((l) => l.includes("SECRET-TOKEN")))
      }).pipe(Effect.scoped, Effect.provide(Logger.layer([logger])))
    },
  )

  it.effect("without --provider-kubeconfig it names the flag", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(makeKubeconfigFileProvider({}))
      assert.strictEqual(e.flag, "--provider-kubeconfig")
      const unknown = yield* Effect.flip(
        makeKubeconfigFileProvider({ paths: ["/x"], pollIntervall: "1s" } as never),
      )
      assert.include(unknown.message, '"pollInterval"')
    }),
  )
})

describe("kubeconfig-file provider over several files, directories and globs", () => {
  const write = (path: string, contexts: ReadonlyArray<{ name: string; token: string }>) =>
    renameOnWrite(
      path,
      multiContextYaml(contexts.map((c) => ({ ...c, server: `https://${c.name}.example` }))),
    )

  it.live("names clusters <file>+<context>; files added, changed and removed live engage and disengage", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const fleet = join(dir, "fleet")
      const other = join(dir, "other")
      yield* Effect.promise(() => mkdir(fleet))
      yield* Effect.promise(() => mkdir(other))
      const single = join(dir, "hub.yaml")
      yield* write(single, [{ name: "hub", token: "h" }])
      yield* write(join(fleet, "a.kubeconfig"), [{ name: "east", token: "e" }])
      yield* write(join(fleet, "ignored.txt"), [{ name: "nope", token: "n" }])
      yield* write(join(other, "x.conf"), [{ name: "east", token: "x" }])
      const w = workloads()
      const provider = yield* makeKubeconfigFileProvider({
        paths: [single, fleet, join(other, "*.conf")],
        clientFactory: w.factory,
        pollInterval: "1 hour",
      })
      const aware = recordingAware()
      yield* provider.run(aware)
      const names = () => [...aware.open().keys()].sort()
      yield* eventually("three engaged", () => aware.open().size === 3)
      assert.deepStrictEqual(
        names(),
        [
          `${join(dir, "hub.yaml")}+hub`,
          `${join(fleet, "a.kubeconfig")}+east`,
          `${join(other, "x.conf")}+east`,
        ].sort(),
      )
      // Added: a new file in the directory.
      yield* write(join(fleet, "kubeconfig.yaml"), [{ name: "west", token: "w" }])
      yield* eventually("west added", () => aware.open().has(`${join(fleet, "kubeconfig.yaml")}+west`))
      // Changed: new credentials re-engage that context.
      const before = aware.engagements.length
      yield* write(join(fleet, "a.kubeconfig"), [{ name: "east", token: "e2" }])
      yield* eventually("east re-engaged", () => aware.engagements.length === before + 1)
      // A file found by a glob and then deleted takes its clusters with it.
      yield* Effect.promise(() => rm(join(other, "x.conf")))
      yield* eventually("x.conf gone", () => !aware.open().has(`${join(other, "x.conf")}+east`))
      assert.strictEqual(aware.open().size, 3)
    }).pipe(Effect.scoped),
  )

  it.live("the poll notices what fs.watch does not", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const w = workloads()
      const provider = yield* makeKubeconfigFileProvider({
        paths: [join(dir, "*.kubeconfig"), join(dir, "missing-dir")],
        clientFactory: w.factory,
        pollInterval: "50 millis",
      })
      const aware = recordingAware()
      yield* provider.run(aware)
      yield* write(join(dir, "late.kubeconfig"), [{ name: "late", token: "l" }])
      yield* eventually("late engaged", () => aware.open().has(`${join(dir, "late.kubeconfig")}+late`))
    }).pipe(Effect.scoped),
  )

  it.effect("a wildcard in a folder is refused, naming the flag and the path", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(makeKubeconfigFileProvider({ paths: ["/etc/*/config"] }))
      assert.strictEqual(e.flag, "--provider-kubeconfig")
      assert.include(e.message, "/etc/*/config: wildcards are allowed in the file name only")
    }),
  )

  it("globs match file names as upstream's filepath.Glob does", () => {
    assert.isTrue(matchesGlob("a.kubeconfig", "*.kubeconfig"))
    assert.isFalse(matchesGlob(".hidden.kubeconfig", "*.kubeconfig"))
    assert.isTrue(matchesGlob("c1.yaml", "c[0-9].yaml"))
    assert.isTrue(matchesGlob("cx.yaml", "c[!0-9].yaml"))
    assert.isFalse(matchesGlob("c12.yaml", "c?.yaml"))
    assert.isTrue(matchesGlob("a+b(1).yaml", "a+b(1).yaml"))
    assert.deepStrictEqual(DefaultKubeconfigGlobs, [
      "kubeconfig.yaml",
      "kubeconfig.yml",
      "*.kubeconfig",
      "*.kubeconfig.yaml",
      "*.kubeconfig.yml",
    ])
  })
})
