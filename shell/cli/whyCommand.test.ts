/** `krtt why cluster` through the built binary, against the in-memory API server served over HTTP. */
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { serveHttp } from "../apiserver/http.ts"
import { FakeApiServer } from "../apiserver/server.ts"
import { CONTROL_PLANE, INFRA, installProviders } from "../chaos/scenarios.ts"
import { ClusterResource } from "../clustercache/service.ts"
import type { KubeObject } from "../kube/resource.ts"

const krtt = (args: ReadonlyArray<string>) =>
  Effect.promise(
    () =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const p = spawn(process.execPath, ["bin/krtt.js", ...args], { stdio: ["ignore", "pipe", "pipe"] })
        let stdout = ""
        let stderr = ""
        p.stdout.on("data", (d) => {
          stdout += String(d)
        })
        p.stderr.on("data", (d) => {
          stderr += String(d)
        })
        p.on("close", (status) => resolve({ status, stdout, stderr }))
      }),
  )

describe("krtt why cluster (the binary)", () => {
  it.live(
    "diagnoses a Cluster over HTTP; an unknown flag and a missing Cluster exit 2",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const fake = yield* FakeApiServer.make()
          yield* installProviders(fake)
          const c = fake.client()
          const key = { namespace: "fleet", name: "c1" }
          yield* c.create(INFRA, {
            apiVersion: `${INFRA.group}/${INFRA.version}`,
            kind: INFRA.kind,
            metadata: key,
            spec: {},
          } as KubeObject)
          yield* c.create(ClusterResource, {
            apiVersion: "cluster.x-k8s.io/v1beta2",
            kind: "Cluster",
            metadata: { ...key, finalizers: ["cluster.cluster.x-k8s.io"] },
            spec: {
              infrastructureRef: { apiGroup: INFRA.group, kind: INFRA.kind, name: "c1" },
              controlPlaneRef: { apiGroup: CONTROL_PLANE.group, kind: CONTROL_PLANE.kind, name: "c1" },
            },
          } as KubeObject)
          const server = yield* serveHttp(fake)
          const file = join(mkdtempSync(join(tmpdir(), "krtt-why-")), "kubeconfig")
          writeFileSync(file, server.kubeConfig().exportConfig())

          const ok = yield* krtt(["why", "cluster", "fleet/c1", "--kubeconfig", file])
          assert.strictEqual(ok.status, 0, ok.stderr)
          assert.include(ok.stdout, "Cluster fleet/c1")
          assert.include(ok.stdout, "cluster.normal#")

          const all = yield* krtt(["why", "cluster", "--all", "--kubeconfig", file, "--json"])
          assert.strictEqual(all.status, 0, all.stderr)
          assert.deepStrictEqual(
            (JSON.parse(all.stdout) as { clusters: Array<{ name: string }> }).clusters.map((x) => x.name),
            ["fleet/c1"],
          )

          const typo = yield* krtt(["why", "cluster", "fleet/c1", "--kubeconfg", file])
          assert.strictEqual(typo.status, 2)
          assert.match(typo.stdout + typo.stderr, /did you mean --kubeconfig\?/)

          const missing = yield* krtt(["why", "cluster", "fleet/nope", "--kubeconfig", file])
          assert.strictEqual(missing.status, 2)
          assert.include(missing.stderr, "NAMESPACE/NAME: Cluster fleet/nope not found")
        }),
      ),
    60_000,
  )
})
