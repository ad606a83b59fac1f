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
  {
    topic: "exhausted Clusters",
    decision:
      "A Cluster whose rule finds every allowed parent exhausted waits for CIDRs (ipam.reconcile#7, status.waiting): requeued with the controller's rate limiter, and reconciled at once when a reconcile releases CIDRs (ipam.trigger#20). The CIDRsAllocated=False condition and the Warning Event stay.",
    source:
      "internal/controllers/cluster/controller.go: ManageInjections returns the CIDR-generation error, which controller-runtime retries with its rate limiter",
    reason:
      "The seed does not say what happens to a Cluster that got no CIDR; upstream keeps trying it, so it gets its CIDRs once capacity frees. krtt requeues rather than failing (the condition and the Event already report it), and adds the trigger on release so the Cluster does not sit out a backoff grown to minutes.",
  },
  {
    topic: "ClusterConfig updates and the reconcile annotation",
    decision:
      "Every update of a managed ClusterConfig (not ignored) reconciles its owning Cluster (ipam.trigger#10); the reconcile removes the reconcile annotation from the Cluster and from its ClusterConfigs.",
    source:
      "internal/controllers/cluster/controller.go SetupWithManager: Owns(ClusterConfig) with OnUpdatePredicate, OnDeletePredicate, GotAnnotationPredicate(reconcile), LostAnnotationPredicate(ignore); the reconcile removes the Cluster's operation annotation",
    reason:
      "The seed names ClusterConfig updates both as a trigger and as a non-trigger; upstream's code triggers. Upstream never removes the annotation from a ClusterConfig; krtt does, so that each use of it triggers once, as the Cluster's does.",
  },
  {
    topic: "webhooks",
    decision:
      "`krtt ipam` serves upstream's two webhooks on the webhook port: /mutate-clusters-openmcp-cloud-v1alpha1-cluster (references to the ClusterConfigs the selecting rules create into spec.clusterConfigs; the placeholder ipam-empty-cluster-name-placeholder while the name is unknown; refused without a valid IPAMConfig) and /validate-gardener-clusters-openmcp-cloud-v1alpha1-ipamconfig (validateIpamConfig plus upstream's refusal of an injection id equal to a parent id and of a subnet not longer than every CIDR of a listed parent id; deletes allowed).",
    source:
      "internal/webhooks/cluster-mutation.go, internal/webhooks/config-validation.go, internal/shared/utils.go (GenerateClusterConfigName, EmptyClusterNamePlaceholder)",
    reason:
      "The seed covers the controller only; openmcp's cluster provider reads the references the mutating webhook adds, and platform teams rely on the validating webhook to refuse a bad IPAMConfig at once. The mutating webhook reads the IPAMConfig at each request, so every replica answers, leading or not.",
  },
  {
    topic: "init",
    decision:
      "`krtt ipam init` creates or updates the CRDs of config/ipam/crds, keeps or creates a self-signed certificate in the Secret <provider-name>-webhook-tls, creates the Service <provider-name>-webhook (443 to 9443) unless --webhooks-base-url is given, and writes the two webhook configurations (Cluster defaulting: CREATE, UPDATE, failurePolicy Fail; IPAMConfig validation: CREATE, UPDATE, DELETE, failurePolicy Ignore) with that certificate as caBundle; --disable-webhooks removes the configurations.",
    source:
      "cmd/platform-service-gardener-ipam/app/init.go; controller-utils pkg/init/webhooks (names, paths, rules, failure policies, certificate and Secret keys); openmcp-operator lib/utils WebhookSecretName",
    reason:
      "Upstream's deployment runs init before run; an openmcp platform team expects the same objects under the same names.",
  },
  {
    topic: "run flags",
    decision:
      "`krtt ipam` accepts every flag of upstream's run with upstream's default: --metrics-bind-address 0 (off), --metrics-secure true (HTTPS, TokenReview and SubjectAccessReview), --metrics-cert-path/-name/-key, --webhook-cert-path/-name/-key, --enable-http2 false, --pprof-bind-address empty, --health-probe-bind-address :8081, --leader-elect false; and the shared --environment, --provider-name, --dry-run, --disable-webhooks.",
    source: "cmd/platform-service-gardener-ipam/app/run.go and app.go",
    reason:
      "A platform team's command line for upstream must start krtt unchanged. --enable-http2 and --pprof-bind-address have no effect (Node's servers here speak HTTP/1.1; Node has no pprof) and say so in the log; upstream's logging flags are not taken (krtt logs JSON).",
  },
]
