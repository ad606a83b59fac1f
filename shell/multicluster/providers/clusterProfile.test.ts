import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import { makeMemoryClient } from "../../apiserver/memoryClient.ts"
import { FakeApiServer } from "../../apiserver/server.ts"
import { makeClusterProfileProvider, readAccessConfig } from "./clusterProfile.ts"
import {
  type AccessConfig,
  type AccessProviderConfig,
  type ClusterProfile,
  ClusterProfiles,
  checkAccessConfig,
  isReady,
  ProfileAccessError,
  profileKubeconfig,
} from "./clusterProfileAccess.ts"
import { recordingAware, until, workloads } from "./testing.ts"

const tokenPlugin: AccessProviderConfig = {
  name: "token-plugin",
  execConfig: { apiVersion: "client.authentication.k8s.io/v1", command: "/bin/token", args: ["--fixed"] },
  profileSourcedCLIArgsPolicy: "Append",
  profileSourcedEnvVarsPolicy: "AppendIfNotExists",
}
const access: AccessConfig = { providers: [tokenPlugin] }

/** The message `checkAccessConfig` refuses `u` with (labelled `cfg`), or `""`. */
const problem = (u: unknown): string => {
  const r = checkAccessConfig(u, "cfg")
  return Result.isFailure(r) ? r.failure.message : ""
}

/** A ClusterProfile as a cluster manager publishes it, with the API's field names. */
const profile = (
  name: string,
  options: { server?: string; ready?: boolean; provider?: string; args?: ReadonlyArray<string> } = {},
): ClusterProfile => ({
  apiVersion: "multicluster.x-k8s.io/v1alpha1",
  kind: "ClusterProfile",
  metadata: { namespace: "fleet", name, labels: { "x-k8s.io/cluster-manager": "test" } },
  spec: { displayName: name, clusterManager: { name: "test" } },
  status: {
    conditions: [
      {
        type: "ControlPlaneHealthy",
        status: options.ready === false ? "False" : "True",
        reason: "Probed",
        message: "",
        lastTransitionTime: "2026-01-01T00:00:00Z",
      } as { type: string; status: string },
    ],
    accessProviders: [
      {
        name: options.provider ?? "token-plugin",
        cluster: {
          server: options.server ?? `https://${name}.example`,
          "certificate-authority-data": "Q0E=",
          extensions: [
            {
              name: "clusterprofiles.multicluster.x-k8s.io/exec/additional-args",
              extension: options.args ?? [name],
            },
            {
              name: "clusterprofiles.multicluster.x-k8s.io/exec/additional-envs",
              extension: { REGION: "eu" },
            },
            { name: "client.authentication.k8s.io/exec", extension: { audience: name } },
          ],
        },
      },
    ],
  },
})

describe("ClusterProfile access (cluster-inventory-api's access providers)", () => {
  it("builds a kubeconfig: the profile's endpoint, the provider's plugin with the profile's extra args and env", () => {
    const r = profileKubeconfig(profile("east"), access)
    assert.isTrue(Result.isSuccess(r))
    if (Result.isFailure(r)) return
    const [cluster] = r.success.clusters
    assert.deepStrictEqual(cluster, { name: "profile", server: "https://east.example", caData: "Q0E=" })
    const exec = (r.success.users[0] as { exec: { args: Array<string>; env: Array<{ name: string }> } }).exec
    assert.deepStrictEqual(exec.args, ["--fixed", "east"])
    assert.deepStrictEqual(
      exec.env.map((e) => e.name),
      ["REGION"],
    )
    assert.include(String((r.success.users[0] as { name: string }).name), "fleet/east")
  })

  it("provideClusterInfo passes KUBERNETES_EXEC_INFO with the cluster and the exec extension", () => {
    const withInfo: AccessConfig = {
      providers: [
        {
          ...tokenPlugin,
          execConfig: { ...tokenPlugin.execConfig, provideClusterInfo: true },
        },
      ],
    }
    const r = profileKubeconfig(profile("east"), withInfo)
    assert.isTrue(Result.isSuccess(r))
    if (Result.isFailure(r)) return
    const env = (r.success.users[0] as { exec: { env: Array<{ name: string; value: string }> } }).exec.env
    const info = JSON.parse(env.find((e) => e.name === "KUBERNETES_EXEC_INFO")?.value ?? "{}")
    assert.strictEqual(info.spec.cluster.server, "https://east.example")
    assert.deepStrictEqual(info.spec.cluster.config, { audience: "east" })
    assert.strictEqual(info.spec.interactive, false)
  })

  it("the generation changes with the endpoint or the plugin invocation, not with other fields", () => {
    const gen = (p: ClusterProfile) => Result.getOrThrow(profileKubeconfig(p, access)).generation
    const a = gen(profile("east"))
    assert.strictEqual(gen({ ...profile("east"), metadata: { ...profile("east").metadata, labels: {} } }), a)
    assert.notStrictEqual(gen(profile("east", { server: "https://moved.example" })), a)
    assert.notStrictEqual(gen(profile("east", { args: ["rotated"] })), a)
  })

  it("refuses a profile without a configured provider, or without a server, naming the field", () => {
    const reasonOf = (p: ClusterProfile) => {
      const r = profileKubeconfig(p, access)
      assert.isTrue(Result.isFailure(r))
      if (Result.isSuccess(r)) return ""
      assert.instanceOf(r.failure, ProfileAccessError)
      return r.failure.message
    }
    assert.include(
      reasonOf(profile("east", { provider: "oidc" })),
      "ClusterProfile fleet/east: status.accessProviders offers none",
    )
    assert.include(reasonOf(profile("east", { server: "" })), "cluster.server is empty")
  })

  it("the deprecated credentialProviders are read, an accessProviders entry of the same name wins", () => {
    const p = profile("east")
    const old: ClusterProfile = {
      ...p,
      status: {
        ...p.status,
        credentialProviders: [{ name: "token-plugin", cluster: { server: "https://old.example" } }],
      },
    }
    const serverOf = (q: ClusterProfile) => {
      const r = profileKubeconfig(q, access)
      return Result.isSuccess(r) ? r.success.clusters[0]?.server : r.failure.message
    }
    assert.strictEqual(serverOf(old), "https://east.example")
    const onlyOld: ClusterProfile = {
      ...old,
      status: { credentialProviders: old.status?.credentialProviders ?? [] },
    }
    assert.strictEqual(serverOf(onlyOld), "https://old.example")
  })

  it("readiness is the ControlPlaneHealthy condition (upstream's default)", () => {
    assert.isTrue(isReady(profile("east")))
    assert.isFalse(isReady(profile("east", { ready: false })))
    assert.isFalse(isReady({ metadata: { name: "x" } }))
  })

  it("the access configuration is strict: unknown keys and missing fields are named", () => {
    assert.include(
      problem({ providers: [{ name: "a", execConfig: { command: "c", apiVersion: "v" }, polcy: 1 }] }),
      'cfg: providers[0].polcy: unknown key "polcy"',
    )
    assert.include(
      problem({ providers: [{ name: "a", execConfig: { comand: "c" } }] }),
      'did you mean "command"?',
    )
    assert.include(problem({ providers: [{ name: "a", execConfig: {} }] }), "execConfig.command: required")
    assert.include(problem({}), "cfg: providers: expected a list")
  })

  it.effect("reading the access file: missing flag, unreadable file, bad JSON name the flag", () =>
    Effect.gen(function* () {
      const none = yield* Effect.flip(readAccessConfig(undefined))
      assert.strictEqual(none.flag, "--provider-access-config")
      const missing = yield* Effect.flip(readAccessConfig("/nonexistent/access.json"))
      assert.include(missing.message, "cannot be read (ENOENT)")
      const dir = mkdtempSync(join(tmpdir(), "krtt-access-"))
      writeFileSync(join(dir, "bad.json"), "{")
      assert.include((yield* Effect.flip(readAccessConfig(join(dir, "bad.json")))).message, "not JSON")
      writeFileSync(join(dir, "ok.json"), JSON.stringify(access))
      assert.deepStrictEqual(yield* readAccessConfig(join(dir, "ok.json")), access)
    }),
  )
})

describe("cluster-inventory-api provider", () => {
  it.effect("engages ready profiles as <namespace>/<name>; not ready, no access or deleted disengage", () =>
    Effect.gen(function* () {
      const hubFake = yield* FakeApiServer.make()
      const hub = yield* makeMemoryClient(hubFake)
      const w = workloads()
      const provider = yield* makeClusterProfileProvider(hub, {
        accessConfig: access,
        clientFactory: w.factory,
      })
      const aware = recordingAware()
      const scope = yield* Scope.make()
      yield* Scope.provide(provider.run(aware), scope)
      // The status is a subresource: a cluster manager creates the profile, then writes its status.
      const publish = (p: ClusterProfile) =>
        Effect.gen(function* () {
          const created = yield* hub.create(ClusterProfiles, p)
          yield* hub.updateStatus(ClusterProfiles, { ...created, status: p.status })
        })
      yield* publish(profile("east"))
      yield* publish(profile("west", { ready: false }))
      yield* until("east engaged", () => aware.open().has("fleet/east"))
      const west = (yield* provider.clusters).find((c) => c.name === "fleet/west")
      assert.include(west?.reason ?? "", "not ready: ControlPlaneHealthy is not True")
      const current = yield* hub.get(ClusterProfiles, { namespace: "fleet", name: "west" })
      yield* hub.updateStatus(ClusterProfiles, { ...current, status: profile("west").status })
      yield* until("west engaged once ready", () => aware.open().has("fleet/west"))
      yield* hub.delete(ClusterProfiles, { namespace: "fleet", name: "east" })
      yield* until("east disengaged", () => !aware.open().has("fleet/east"))
      const bad = yield* Effect.flip(
        makeClusterProfileProvider(hub, { accessConfig: { providers: [{}] } as never }),
      )
      assert.strictEqual(bad.flag, "--provider-access-config")
      yield* Scope.close(scope, { _tag: "Success", value: undefined } as never)
    }),
  )
})

describe("ClusterProfile access: policies and malformed input", () => {
  const withPolicies = (
    args: AccessProviderConfig["profileSourcedCLIArgsPolicy"],
    envs: AccessProviderConfig["profileSourcedEnvVarsPolicy"],
    env: ReadonlyArray<{ name: string; value: string }> = [{ name: "REGION", value: "us" }],
  ): AccessConfig => ({
    providers: [
      {
        ...tokenPlugin,
        execConfig: { ...tokenPlugin.execConfig, env },
        profileSourcedCLIArgsPolicy: args,
        profileSourcedEnvVarsPolicy: envs,
      },
    ],
  })
  const execOf = (config: AccessConfig, p: ClusterProfile = profile("east")) => {
    const r = profileKubeconfig(p, config)
    if (Result.isFailure(r)) return r.failure.message
    return (
      r.success.users[0] as { exec: { args: Array<string>; env: Array<{ name: string; value: string }> } }
    ).exec
  }

  it("Ignore (or no policy) leaves the provider's arguments and variables as they are", () => {
    for (const policy of [undefined, "", "Ignore"] as const) {
      const exec = execOf(withPolicies(policy, policy))
      assert.deepStrictEqual(typeof exec === "string" ? exec : [exec.args, exec.env], [
        ["--fixed"],
        [{ name: "REGION", value: "us" }],
      ])
    }
  })

  it("AppendIfNotExists keeps the provider's value, Replace takes the profile's", () => {
    const keep = execOf(withPolicies("Append", "AppendIfNotExists"))
    const replace = execOf(withPolicies("Append", "Replace"))
    assert.deepStrictEqual(typeof keep === "string" ? keep : keep.env, [{ name: "REGION", value: "us" }])
    assert.deepStrictEqual(typeof replace === "string" ? replace : replace.env, [
      { name: "REGION", value: "eu" },
    ])
    const both = execOf(withPolicies("Append", "Replace", [{ name: "HOME_DIR", value: "/h" }]))
    assert.deepStrictEqual(typeof both === "string" ? both : both.env, [
      { name: "HOME_DIR", value: "/h" },
      { name: "REGION", value: "eu" },
    ])
  })

  it("unsupported policies and extensions of the wrong shape are refused, naming the profile", () => {
    assert.include(
      String(execOf(withPolicies("Prepend" as never, undefined))),
      'ClusterProfile fleet/east: unsupported profileSourcedCLIArgsPolicy "Prepend"',
    )
    assert.include(
      String(execOf(withPolicies(undefined, "Merge" as never))),
      'unsupported profileSourcedEnvVarsPolicy "Merge"',
    )
    assert.include(
      String(execOf(withPolicies("Append", undefined), profile("east", { args: "--x" as never }))),
      "additional-args must be a list of strings",
    )
    const badEnv: ClusterProfile = {
      ...profile("east"),
      status: {
        accessProviders: [
          {
            name: "token-plugin",
            cluster: {
              server: "https://east.example",
              extensions: [
                { name: "clusterprofiles.multicluster.x-k8s.io/exec/additional-envs", extension: ["A"] },
              ],
            },
          },
        ],
      },
    }
    assert.include(
      String(execOf(withPolicies(undefined, "Replace"), badEnv)),
      "additional-envs must be a map of strings",
    )
  })

  it("without provideClusterInfo the plugin gets no KUBERNETES_EXEC_INFO; TLS server name, proxy and skip-verify are carried", () => {
    const p: ClusterProfile = {
      ...profile("east"),
      status: {
        accessProviders: [
          {
            name: "token-plugin",
            cluster: {
              server: "https://east.example",
              "tls-server-name": "api.east",
              "proxy-url": "http://proxy:3128",
              "insecure-skip-tls-verify": true,
            },
          },
        ],
      },
    }
    const r = profileKubeconfig(p, access)
    assert.isTrue(Result.isSuccess(r))
    if (Result.isFailure(r)) return
    assert.deepStrictEqual(r.success.clusters[0], {
      name: "profile",
      server: "https://east.example",
      skipTLSVerify: true,
      tlsServerName: "api.east",
      proxyUrl: "http://proxy:3128",
    })
    const exec = (r.success.users[0] as { exec: { env: Array<{ name: string }>; interactiveMode: string } })
      .exec
    assert.isFalse(exec.env.some((e) => e.name === "KUBERNETES_EXEC_INFO"))
    assert.strictEqual(exec.interactiveMode, "Never")
    const none = profileKubeconfig({ metadata: { namespace: "fleet", name: "bare" } }, access)
    assert.include(Result.isFailure(none) ? none.failure.message : "", "offered: none")
  })

  it("the access configuration names each missing field", () => {
    const check = (p: unknown) => problem({ providers: [p] })
    assert.include(check(null), "cfg: providers[0]: expected an object")
    assert.include(check({ execConfig: { command: "c", apiVersion: "v" } }), "providers[0].name: required")
    assert.include(check({ name: "a" }), "providers[0].execConfig: required")
    assert.include(check({ name: "a", execConfig: { command: "c" } }), "execConfig.apiVersion: required")
    assert.include(problem({ providers: [], extra: 1 }), 'cfg.extra: unknown key "extra"')
    assert.isTrue(
      Result.isSuccess(
        checkAccessConfig(
          { providers: [{ name: "a", execConfig: { command: "c", apiVersion: "v" } }] },
          "cfg",
        ),
      ),
    )
  })
})
