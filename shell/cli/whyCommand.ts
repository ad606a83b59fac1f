/**
 * `krtt why cluster` on the command line: its argument and flags. What runs it (shell/why: the
 * read-only observation, the pure reconcile, the report) is loaded when it runs.
 *
 * @module
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"

const opt = (o: { readonly _tag: "Some"; readonly value: string } | { readonly _tag: "None" }) =>
  o._tag === "Some" ? o.value : undefined

const clusterCommand = Command.make(
  "cluster",
  {
    target: Argument.String("NAMESPACE/NAME").pipe(
      Argument.withDescription("The Cluster to diagnose"),
      Argument.optional,
    ),
    kubeconfig: Flag.String("kubeconfig").pipe(
      Flag.optional,
      Flag.withDescription(
        "The management cluster's kubeconfig; else $KUBECONFIG, the in-cluster service account, ~/.kube/config",
      ),
    ),
    all: Flag.Boolean("all").pipe(
      Flag.withDefault(false),
      Flag.withDescription("Every Cluster, one line each"),
    ),
    namespace: Flag.String("namespace").pipe(
      Flag.optional,
      Flag.withDescription("With --all: only the Clusters of this namespace"),
    ),
    json: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON")),
    probe: Flag.Boolean("probe").pipe(
      Flag.withDefault(false),
      Flag.withDescription("Probe the workload API server once (GET /) with the Cluster's kubeconfig"),
    ),
  },
  (f) =>
    Effect.flatMap(
      Effect.promise(() => import("../why/main.ts")),
      ({ whyMain }) =>
        whyMain({
          target: opt(f.target),
          all: f.all,
          namespace: opt(f.namespace),
          json: f.json,
          probe: f.probe,
          kubeconfig: opt(f.kubeconfig),
        }),
    ),
).pipe(
  Command.withDescription(
    "Which documented rows decide a live Cluster now, what they wait on, and how its status differs from the tables'",
  ),
)

/** `krtt why`: read-only diagnosis of a live management cluster. */
export const whyCommand = Command.make("why").pipe(
  Command.withDescription("Read-only diagnosis of a live management cluster with the documented tables"),
  Command.withSubcommands([clusterCommand]),
)
