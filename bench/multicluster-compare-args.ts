/**
 * The command line of `bench/multicluster-compare.ts`, parsed strictly: an unknown flag is
 * refused with the closest known one ("did you mean"), a bad value with the flag it belongs to.
 * Pure (no I/O), so that its test runs without a control plane.
 *
 * @module
 */
import { parseArgs } from "node:util"
import * as Data from "effect/Data"
import { closest } from "../shell/multicluster/providers/errors.ts"

/** A bad command line; `flag` names the flag at fault. */
export class CompareUsageError extends Data.TaggedError("CompareUsageError")<{
  readonly flag: string
  readonly message: string
}> {}

/** Which runtimes a run measures. */
export type Side = "krtt" | "peer"

/** The parsed command line. */
export interface CompareArgs {
  /** Cluster counts, measured one after the other (each on a fresh control plane). */
  readonly clusters: ReadonlyArray<number>
  /** Workload API servers the clusters are spread over (round robin). */
  readonly workloads: number
  /** Runs per side and cluster count. */
  readonly runs: number
  /** Seconds measured after all clusters reconciled (requests, CPU per minute). */
  readonly steady: number
  /** multicluster-runtime's source tree (built in `examples/kubeconfig`). */
  readonly peerSrc: string | undefined
  /** A built kubeconfig example binary (skips the build). */
  readonly peerBin: string | undefined
  readonly sides: ReadonlyArray<Side>
  /** Seconds a run may take to reconcile every cluster before it fails. */
  readonly timeout: number
  /** krtt's side from a bundle (as deployed) or from the TypeScript sources. */
  readonly krttFrom: "bundle" | "source"
  /** Where krtt's process writes a CPU profile (`node --cpu-prof`), if anywhere. */
  readonly cpuProf: string | undefined
  /**
   * krtt's `--provider-probe-interval` (`0`: no probes of engaged clusters, as the peer), if
   * given; else the provider's default (every 10 s).
   */
  readonly krttProbeInterval: string | undefined
  readonly json: boolean
  readonly help: boolean
}

export const USAGE = `Usage: node bench/multicluster-compare.ts [flags]

The uniform ConfigMap controller of multicluster-runtime's kubeconfig example, run by
multicluster-runtime (the example built with Go) and by krtt (bench/multicluster-compare-krtt.ts),
each as its own process, over the same testenv hub and workload API servers.

  --clusters N[,N...]   cluster counts (kubeconfig Secrets on the hub), default 100
  --workloads N         workload API servers the clusters share (round robin), default 4
  --runs N              runs per side and count (min / median / max), default 3
  --steady S            seconds measured after all reconciled, default 60
  --peer-src DIR        multicluster-runtime source tree; its examples/kubeconfig is built with go
  --peer-bin FILE       an already built kubeconfig example (instead of --peer-src)
  --side krtt|peer|both which runtimes, default both (both needs --peer-src or --peer-bin)
  --timeout S           seconds a run may take to reconcile all clusters, default 600
  --krtt-from bundle|source  krtt's side bundled with esbuild (default) or on the sources
  --cpu-prof DIR        krtt's process writes a CPU profile per run into DIR (node --cpu-prof)
  --krtt-probe-interval D  krtt's --provider-probe-interval (Go duration); 0: no health probes
                        of engaged clusters, as multicluster-runtime; default: krtt's (10s)
  --json                print the summary as JSON
  --help                this text`

const options = {
  clusters: { type: "string", default: "100" },
  workloads: { type: "string", default: "4" },
  runs: { type: "string", default: "3" },
  steady: { type: "string", default: "60" },
  "peer-src": { type: "string" },
  "peer-bin": { type: "string" },
  side: { type: "string", default: "both" },
  timeout: { type: "string", default: "600" },
  "cpu-prof": { type: "string" },
  "krtt-from": { type: "string", default: "bundle" },
  "krtt-probe-interval": { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", default: false },
} as const

const integer = (flag: string, text: string, min: number): number => {
  const n = Number(text)
  if (text.trim() === "" || !Number.isInteger(n) || n < min)
    throw new CompareUsageError({
      flag: `--${flag}`,
      message: `--${flag}: an integer ≥ ${min}, got "${text}"`,
    })
  return n
}

/** Turns node's parseArgs complaint into one that names the flag and the closest known one. */
const usageOf = (e: Error): CompareUsageError => {
  const flag = /'(--?[^'\s=]+)/.exec(e.message)?.[1] ?? "arguments"
  const near = closest(flag.replace(/^-+/, ""), Object.keys(options))
  const unknown = /Unknown option/.test(e.message)
  return new CompareUsageError({
    flag,
    message: unknown
      ? `${flag}: unknown flag${near === undefined ? "" : ` (did you mean --${near}?)`}`
      : `${flag}: ${e.message}`,
  })
}

/** Parses `argv` (without node and the script); throws `CompareUsageError`. */
export const parseCompareArgs = (argv: ReadonlyArray<string>): CompareArgs => {
  let values: ReturnType<typeof parseArgs<{ options: typeof options }>>["values"]
  try {
    values = parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values
  } catch (e) {
    throw usageOf(e as Error)
  }
  const side = values.side
  if (side !== "both" && side !== "krtt" && side !== "peer")
    throw new CompareUsageError({
      flag: "--side",
      message: `--side: krtt, peer or both, got "${side}"`,
    })
  const krttFrom = values["krtt-from"]
  if (krttFrom !== "bundle" && krttFrom !== "source")
    throw new CompareUsageError({
      flag: "--krtt-from",
      message: `--krtt-from: bundle or source, got "${krttFrom}"`,
    })
  const sides: ReadonlyArray<Side> = side === "both" ? ["krtt", "peer"] : [side]
  if (sides.includes("peer") && values["peer-src"] === undefined && values["peer-bin"] === undefined)
    throw new CompareUsageError({
      flag: "--peer-src",
      message: `--peer-src: the peer needs multicluster-runtime's source tree (--peer-src DIR) or a built example (--peer-bin FILE); --side krtt measures krtt alone`,
    })
  return {
    clusters: values.clusters.split(",").map((c) => integer("clusters", c, 1)),
    workloads: integer("workloads", values.workloads, 1),
    runs: integer("runs", values.runs, 1),
    steady: integer("steady", values.steady, 0),
    peerSrc: values["peer-src"],
    peerBin: values["peer-bin"],
    sides,
    timeout: integer("timeout", values.timeout, 1),
    cpuProf: values["cpu-prof"],
    krttProbeInterval: values["krtt-probe-interval"],
    krttFrom,
    json: values.json,
    help: values.help,
  }
}
