// Fuzzed inputs through the real API server while the operator runs: 10,000
// (`KRTT_CHAOS_LONG=1`; 4,000 in `npm test`) inputs from fast-check with a fixed seed — Cluster objects (names, references, endpoints,
// labels, unknown fields, wrong types) and kubeconfig Secrets (garbage, truncated YAML, a wrong CA,
// missing keys, a huge value, a refused token). The API server rejects many of the Clusters (CRD
// validation, strict field validation): they are counted. What it accepts, the operator gets:
// 0 crashes (the same process, exit code 0 at SIGTERM); each accepted Cluster gets the conditions
// the Cluster controller owes it (Paused always; InfrastructureReady, with a reason, once it is
// not paused); each bad kubeconfig a clear log line naming its Cluster; and no token or key that
// went into a Secret ever shows in the operator's output (stdout and stderr share the log file).
//
// IPAMConfig inputs are not part of this file: `krtt run` does not run the IPAM controller, and
// its e2e tests (e2e/ipam) start `krtt ipam` on their own.
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Cluster, renderKubeconfig } from "../../testenv/index.ts"
import { sharedControlPlane } from "../../testenv/vitest-context.ts"
import {
  CLUSTER_API_VERSION,
  CLUSTER_FINALIZER,
  CONTROL_PLANE_GROUP,
  CONTROL_PLANE_KIND,
  createNamespace,
  endpointOf,
  INFRA_GROUP,
  INFRA_KIND,
  type KubeObject,
  type OperatorProcess,
  paths,
  startOperator,
  waitFor,
} from "../fixtures/index.ts"
import {
  chaosSettings,
  conditionOf,
  leakedSecrets,
  type Management,
  messageOf,
  pool,
  startManagement,
  steady,
  steadyCluster,
  steadyList,
} from "./support.ts"

/** The seed of every fuzzed input here (property-tests use 20_261_121; FC_SEED overrides both). */
const SEED = Number(process.env.FC_SEED ?? 20_261_124)
const settings = chaosSettings()
/** A quarter of the inputs are kubeconfig Secrets, spread over this many Clusters. */
const SECRET_SHARE = 0.25
const SECRET_HOSTS = 100
/** The padding of a huge kubeconfig (a Secret holds at most 1 MiB; a kubeconfig is about 3 KB). */
const HUGE_BYTES = 200_000
/** Requests in flight at once. */
const CONCURRENCY = 32

const [w0, w1] = sharedControlPlane().clusters as unknown as [Cluster, Cluster]

let m: Management
let op: OperatorProcess

beforeAll(async () => {
  m = await startManagement("fuzz")
  op = await startOperator({ kubeconfigPath: m.identity.kubeconfigPath, dir: m.dir })
}, 300_000)

afterAll(async () => {
  await op?.kill()
  await m?.stop()
})

const context = () => op.tail(30)

// ---------------------------------------------------------------------------------------------
// Cluster objects

const dnsLabel = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}[a-z0-9]$/)
/** Mostly valid names, some not (upper case, dots, too long, empty). */
/** Each field valid most of the time and wrong now and then: about a third of the Clusters pass. */
const nameArb = fc.oneof(
  { weight: 12, arbitrary: dnsLabel },
  { weight: 1, arbitrary: fc.string({ maxLength: 70 }) },
  { weight: 1, arbitrary: fc.constantFrom("UPPER", "dot.ted", "x".repeat(260), "") },
)
const refArb = (group: string, kind: string) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    {
      weight: 4,
      arbitrary: fc.record({ apiGroup: fc.constant(group), kind: fc.constant(kind), name: dnsLabel }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        apiGroup: fc.string({ maxLength: 30 }),
        kind: fc.string({ maxLength: 20 }),
        name: fc.string(),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant(kind), name: dnsLabel }, { requiredKeys: [] }) },
    {
      weight: 1,
      arbitrary: fc.record({
        apiVersion: fc.constant(`${group}/v1alpha1`),
        kind: fc.constant(kind),
        name: dnsLabel,
      }),
    },
  )
const endpointArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  {
    weight: 4,
    arbitrary: fc.record({
      host: fc.oneof(fc.ipV4(), fc.domain()),
      port: fc.integer({ min: 1, max: 65_535 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ host: fc.string(), port: fc.integer({ min: -5, max: 70_000 }) }) },
  { weight: 1, arbitrary: fc.record({ host: fc.integer(), port: fc.string() }) },
)
const labelsArb = fc.dictionary(
  fc.oneof({ weight: 12, arbitrary: dnsLabel }, { weight: 1, arbitrary: fc.string({ maxLength: 80 }) }),
  fc.oneof({ weight: 12, arbitrary: dnsLabel }, { weight: 1, arbitrary: fc.string({ maxLength: 70 }) }),
  { maxKeys: 3 },
)
const clusterArb = fc.record(
  {
    name: nameArb,
    labels: labelsArb,
    infrastructureRef: refArb(INFRA_GROUP, INFRA_KIND),
    controlPlaneRef: refArb(CONTROL_PLANE_GROUP, CONTROL_PLANE_KIND),
    controlPlaneEndpoint: endpointArb,
    paused: fc.oneof({ weight: 8, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constant("yes") }),
    unknownField: fc.oneof(
      { weight: 14, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.string() },
    ),
    clusterNetwork: fc.oneof(
      fc.constant(undefined),
      fc.record({
        pods: fc.record({ cidrBlocks: fc.array(fc.oneof(fc.ipV4(), fc.string()), { maxLength: 2 }) }),
      }),
    ),
  },
  { requiredKeys: ["name"] },
)
type FuzzedCluster = typeof clusterArb extends fc.Arbitrary<infer A> ? A : never

const clusterBody = (ns: string, i: number, c: FuzzedCluster) => {
  const spec: Record<string, unknown> = {}
  for (const key of [
    "infrastructureRef",
    "controlPlaneRef",
    "controlPlaneEndpoint",
    "paused",
    "clusterNetwork",
  ] as const)
    if (c[key] !== undefined) spec[key] = c[key]
  if (c.unknownField !== undefined) spec.bogusField = c.unknownField
  return {
    apiVersion: CLUSTER_API_VERSION,
    kind: "Cluster",
    // An index keeps valid names unique; an invalid name stays invalid.
    metadata: {
      name: `${c.name}-${i}`,
      namespace: ns,
      ...(c.labels === undefined ? {} : { labels: c.labels }),
    },
    spec,
  }
}

// ---------------------------------------------------------------------------------------------
// kubeconfig Secrets

type SecretInput =
  | { readonly kind: "garbage"; readonly bytes: Uint8Array }
  | { readonly kind: "truncated"; readonly at: number }
  | { readonly kind: "wrong-ca" }
  | { readonly kind: "missing-key"; readonly key: string }
  | { readonly kind: "not-a-kubeconfig"; readonly yaml: string }
  | { readonly kind: "refused-token" }
  | { readonly kind: "huge" }

const secretArb: fc.Arbitrary<SecretInput> = fc.oneof(
  {
    weight: 40,
    arbitrary: fc.record({ kind: fc.constant("garbage" as const), bytes: fc.uint8Array({ maxLength: 300 }) }),
  },
  {
    weight: 40,
    arbitrary: fc.record({ kind: fc.constant("truncated" as const), at: fc.nat({ max: 1_000 }) }),
  },
  { weight: 30, arbitrary: fc.constant({ kind: "wrong-ca" as const }) },
  {
    weight: 20,
    arbitrary: fc.record({
      kind: fc.constant("missing-key" as const),
      key: fc.constantFrom("kubeconfig", "config", ""),
    }),
  },
  {
    weight: 20,
    arbitrary: fc.record({
      kind: fc.constant("not-a-kubeconfig" as const),
      yaml: fc.constantFrom(
        "[]",
        "42",
        "clusters: 7",
        "apiVersion: v1\nkind: Config\n",
        "{{{",
        "users: [{name: x}]",
      ),
    }),
  },
  { weight: 30, arbitrary: fc.constant({ kind: "refused-token" as const }) },
  // Rare: each is HUGE_BYTES through etcd and every watcher of Secrets.
  { weight: 1, arbitrary: fc.constant({ kind: "huge" as const }) },
)

/** Every token and key put into a Secret: none may appear in the operator's output. */
const credentials: Array<string> = []
const credential = (): string => {
  const c = `fuzz${randomBytes(18).toString("hex")}`
  credentials.push(c)
  return c
}

/** The `data` of the Secret for one input (merge patch: null removes the key). */
const secretData = (input: SecretInput): Record<string, string | null> => {
  const b64 = (s: string | Uint8Array) => Buffer.from(s).toString("base64")
  // A kubeconfig of a real workload cluster with a token of our own (never valid there).
  const kubeconfig = (ca: string) =>
    renderKubeconfig({ cluster: "fuzzed", server: w1.server, ca, user: "fuzzed", token: credential() })
  switch (input.kind) {
    case "garbage":
      return { value: b64(input.bytes) }
    case "truncated": {
      const text = kubeconfig(w1.info.ca)
      return { value: b64(text.slice(0, input.at % text.length)) }
    }
    case "wrong-ca":
      return { value: b64(kubeconfig(w0.info.ca)) }
    case "missing-key":
      return input.key === "" ? { value: null } : { value: null, [input.key]: b64(kubeconfig(w1.info.ca)) }
    case "not-a-kubeconfig":
      return { value: b64(input.yaml) }
    case "refused-token":
      return { value: b64(kubeconfig(w1.info.ca)) }
    case "huge": {
      // A valid kubeconfig padded with a secret and HUGE_BYTES: big, and a secret.
      const key = credential()
      const text = `${kubeconfig(w1.info.ca)}# ${key}${"x".repeat(HUGE_BYTES)}\n`
      return { value: b64(text) }
    }
  }
}

describe(`${settings.fuzzInputs.toLocaleString("en")} fuzzed inputs through the API server while the operator runs`, () => {
  it("0 crashes, every rejection counted, every accepted bad input answered, no credential in a log", async () => {
    const mgmt = m.mgmt
    const ns = await createNamespace(mgmt, `chaos-fuzz-${Date.now().toString(36)}`)
    const total = settings.fuzzInputs
    const secretInputs = Math.round(total * SECRET_SHARE)
    const clusterInputs = total - secretInputs
    const clusters = fc.sample(clusterArb, { seed: SEED, numRuns: clusterInputs })
    const secrets = fc.sample(secretArb, { seed: SEED + 1, numRuns: secretInputs })
    const started = Date.now()

    // The hosts of the Secrets: provisioned Clusters whose kubeconfig the inputs replace.
    const hosts = Array.from({ length: SECRET_HOSTS }, (_, h) => `kc-${h}`)
    await pool(hosts, 16, (name) =>
      steadyCluster(
        mgmt,
        ns,
        name,
        renderKubeconfig({ cluster: "x", server: w1.server, ca: w1.info.ca, user: "x", token: credential() }),
        endpointOf(w1.server),
      ),
    )

    // The Clusters, all at once in batches; the Secrets, in order per host.
    const outcomes = new Map<number, number>()
    const accepted: Array<string> = []
    const lastInputAt = new Map<string, number>()
    const lastKind = new Map<string, SecretInput["kind"]>()
    const sent = { clustersMs: 0, secretsMs: 0 }
    await Promise.all([
      pool(clusters, CONCURRENCY, async (c, i) => {
        const body = clusterBody(ns, i, c)
        const r = await steady(mgmt, "POST", `${paths.cluster(ns)}?fieldValidation=Strict`, {
          body,
          ok: [201, 400, 409, 422],
        })
        outcomes.set(r.status, (outcomes.get(r.status) ?? 0) + 1)
        if (r.status === 201 || r.status === 409) accepted.push(body.metadata.name)
      }).then(() => {
        sent.clustersMs = Date.now() - started
      }),
      pool(hosts, SECRET_HOSTS, async (host, h) => {
        for (let i = h; i < secrets.length; i += SECRET_HOSTS) {
          const input = secrets[i] as SecretInput
          await steady(mgmt, "PATCH", paths.secret(ns, `${host}-kubeconfig`), {
            body: { data: secretData(input) },
            contentType: "application/merge-patch+json",
            ok: [200],
          })
          lastInputAt.set(host, Date.now())
          lastKind.set(host, input.kind)
        }
      }).then(() => {
        sent.secretsMs = Date.now() - started
      }),
    ])
    const sentMs = Date.now() - started
    expect([...outcomes.values()].reduce((a, b) => a + b, 0)).toBe(clusterInputs)
    expect(accepted.length).toBeGreaterThan(0)
    expect(accepted.length).toBeLessThan(clusterInputs)

    // Every accepted Cluster: the Paused condition, and once not paused the finalizer and an
    // InfrastructureReady condition with a reason.
    const acceptedNames = new Set(accepted)
    const unanswered = (list: ReadonlyArray<KubeObject>) =>
      list.filter((c) => {
        if (!acceptedNames.has(c.metadata.name)) return false
        const paused = conditionOf(c, "Paused")
        if (paused === undefined) return true
        if (c.spec?.paused === true) return paused.status !== "True"
        const infra = conditionOf(c, "InfrastructureReady")
        return (
          !c.metadata.finalizers?.includes(CLUSTER_FINALIZER) ||
          infra === undefined ||
          (infra.reason ?? "") === ""
        )
      })
    let left: ReadonlyArray<KubeObject> = []
    await waitFor(
      "every accepted Cluster answered with its conditions",
      async () => {
        left = unanswered(await steadyList(mgmt, paths.cluster(ns)))
        return left.length === 0 ? true : undefined
      },
      {
        timeoutMs: 240_000,
        intervalMs: 2_000,
        context: () =>
          `${left.length} unanswered, e.g. ${JSON.stringify(left.slice(0, 2).map((c) => ({ name: c.metadata.name, spec: c.spec, status: c.status })))}\n${context()}`,
      },
    )
    const answeredMs = Date.now() - started

    // Every host's last (bad) kubeconfig: a failed connection logged for its Cluster, after it.
    const failures = () =>
      op.logs().filter((l) => messageOf(l) === "connection to the workload cluster failed")
    await waitFor(
      "a failed connection logged for each host after its last input",
      () => {
        const seen = failures()
        const missing = hosts.filter(
          (h) =>
            !seen.some(
              (l) =>
                (l as Record<string, string>).cluster === `${ns}/${h}` &&
                Number(l.ts) >= (lastInputAt.get(h) ?? 0) &&
                String((l as Record<string, string>).err ?? "").length > 0,
            ),
        )
        return missing.length === 0 ? true : undefined
      },
      { timeoutMs: 90_000, intervalMs: 1_000, context },
    )

    // 0 crashes, and no credential in the output.
    expect(op.exit(), context()).toBeUndefined()
    const output = readFileSync(op.logPath, "utf8")
    expect(leakedSecrets(output, credentials)).toEqual([])
    const ended = await op.terminate(30_000)
    expect(ended.code, context()).toBe(0)

    const errors = [
      ...new Set(
        failures().map((l) =>
          String((l as Record<string, string>).err ?? "")
            .replace(/[0-9a-f]{8,}/g, "…")
            .slice(0, 90),
        ),
      ),
    ]
    console.log(
      JSON.stringify({
        figures: "fuzz",
        seed: SEED,
        inputs: total,
        clusterInputs,
        secretInputs,
        apiServerAnswers: Object.fromEntries([...outcomes].sort()),
        accepted: accepted.length,
        sentMs,
        clustersSentMs: sent.clustersMs,
        secretsSentMs: sent.secretsMs,
        answeredMs,
        secretKinds: Object.fromEntries(
          [
            ...secrets.reduce((n, s) => n.set(s.kind, (n.get(s.kind) ?? 0) + 1), new Map<string, number>()),
          ].sort(),
        ),
        lastKinds: Object.fromEntries(
          [...lastKind.values()].reduce((n, k) => n.set(k, (n.get(k) ?? 0) + 1), new Map<string, number>()),
        ),
        connectionErrors: errors.slice(0, 12),
        credentialsScanned: credentials.length,
        logBytes: output.length,
      }),
    )
  }, 600_000)
})
