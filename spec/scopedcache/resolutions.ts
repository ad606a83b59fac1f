/**
 * Seed 002's Open Questions, each with the resolution this project records and its reason, plus
 * the rule for a GVK asked at both cluster and namespace level. `docs/krtt/scopedcache.md` prints
 * them; the rows that implement them cite them.
 *
 * @module
 */

/** "Ideally they won't be watched at both levels" (seed 002, Wrapper, `clusterGVKs`). */
export const BOTH_LEVELS =
  "Both levels (seed, Wrapper: clusterGVKs \"Ideally they won't be watched at both levels\"): a namespace-level informer never runs while a cluster-level informer of the same GVK and informer key is registered. Adding the cluster-level one stops the running namespace-level ones, which stay registered as `Covered` with their dependents; a namespace-level one added while the cluster-level one exists is registered `Covered` and not started. When the cluster-level informer leaves (last dependent, forced removal, 403), the covered ones start again (or wait for Start), so namespace permissions take over when cluster permission goes. Reads of a namespace use the cluster-level informers and the namespace's own informers that are not covered. With the default key function (`gvk`) the key is the GVK, so a GVK is never watched at both levels at once; with `gvkAndSelectors`, informers of one GVK with different selectors are different watches and may run at both levels. Reason: rejecting the second level would break an operator whose permissions change while it runs, and running both would double the watches and the objects."

/** The reason of the rows that implement {@link BOTH_LEVELS}. */
export const BOTH_LEVELS_ROW =
  'Seed, Wrapper: clusterGVKs "Ideally they won\'t be watched at both levels". See the resolution "Both levels" of this table.'

export interface Resolution {
  /** The seed's question, quoted. */
  readonly question: string
  readonly resolution: string
  readonly reason: string
}

/** Every Open Question of seed 002 ("Implementation Details") with its recorded answer. */
export const openQuestions: ReadonlyArray<Resolution> = [
  {
    question:
      'Should we use a custom error when a resource is "Not Found" in case the resource isn\'t found due to an informer not yet existing that could find this resource?',
    resolution:
      "Yes: a read that no registered informer can answer fails with `InformerNotFound` (shell/cache/types.ts; row `scopedcache.reads#1`). `CacheNotFound` is returned only when an informer that covers the object exists and its store lacks the object. Reads before Start fail with `CacheNotStarted` (row `scopedcache.reads#5`), and reads of a scope whose informer stopped after a 403 fail with `InformerForbidden`. Each is the cache's own class (shell/scopedcache/errors.ts, `origin: \"cache\"`, `isCacheError`) and a subclass of the error a read of the project's `Cache` interface names (`NotFound`, `Forbidden`, `InformerNotFound`), so that a controller written for any cache still catches it by tag.",
    reason:
      'The user story: "determine which errors come from the dynamic cache and which errors come from the Kubernetes API server". A NotFound for a missing informer would tell a controller the object is gone when it was never watched.',
  },
  {
    question: "What other cases are there that we should return a custom error?",
    resolution:
      "`CacheNotStarted` for a Get or List before Start (controller-runtime's ErrCacheNotStarted); `InformerForbidden` for a read of a scope whose informer stopped after a 403, until an informer is added there again; `InvalidContinueToken` for a list's `continue` token the cache did not issue. Nothing else: a stopped informer is simply not registered any more (InformerNotFound), and its dependents were told why (`NotifyDependents` with reason `PermissionLost` or `InformerRemoved`).",
    reason: "Few error types that each mean one thing; the notification carries the cause.",
  },
  {
    question: "When should we automatically kill informers? Should this be configurable?",
    resolution:
      "An informer is stopped (1) when its last dependent is removed, if `automaticTermination` is on (default on; off keeps it running without dependents: rows `scopedcache.informers#5` and `#13`); (2) on a 403 to its list or watch, or a refusal of the shell's permission recheck (a review of `watch` per resource and namespace every `permissionRecheckInterval`, 10 s by default), always (row `#7`); (3) on a forced removal (row `#6`); (4) a namespace-level one while a cluster-level informer of the same GVK and key covers it (row `#9`). Only (1) is configurable. An informer that the shell's `getInformer` adds (`startOnGetInformer`, the factory's mode) has its subscriptions as dependents, so it stops with the last one.",
    reason:
      'User story: "configure whether or not informers should be automatically terminated". A 403 informer cannot serve anything and would retry forever, so stopping it is not optional; permission coming back is handled by adding the informer again.',
  },
  {
    question:
      "Should we make the key used when adding generated informers to the cache configurable? Maybe another user defined function?",
    resolution:
      "Yes: option `informerKey` chooses `gvk` (default: one informer per scope and GVK) or `gvkAndSelectors` (selectors from the list options make informers different; `informerKey()` in core/scopedcache/options.ts), and the shell accepts a user key function that overrides both. The registry takes the key as given.",
    reason:
      'User story: "define the method used for generating the informer key ... so that I can reliably recreate the key used for a given informer". telescopia hashed the requesting object, which a caller cannot recreate.',
  },
  {
    question:
      "What do we need to do so we can evaluate all potential list options for informers? Should we make this a user defined function?",
    resolution:
      "A user function in the shell's options maps (GVK, scope) to the informer's list options (label selector, field selector); its selectors feed the `gvkAndSelectors` key, so informers with different list options never share a key. Core does not evaluate list options: it sees keys only.",
    reason:
      'User story: "define the method used to generate list options that are used when creating an informer". A function covers every `metav1.ListOptions` field without core knowing them, and actions stay data.',
  },
  {
    question:
      "What do we need to do to ensure that we are able to accept the controller-runtime cache configuration options appropriately?",
    resolution:
      "The shell's options follow controller-runtime's `cache.Options` where they mean something for a scoped cache: default label and field selectors, per-GVK selectors, transforms, default namespaces (an informer added without namespace runs in each of them); `automaticTermination`, `informerKey` and `accessReview` are this cache's own and live in `ScopedCacheDefaults`. Options that assume one informer per GVK for the whole cluster (`ReaderFailOnMissingInformer`, which is always the behaviour here) are not offered, nor `SyncPeriod`: the project's reflector has no periodic resync (a controller that wants one requeues).",
    reason:
      'User story: "use the controller-runtime cache.Options to configure the cache ... in a way that I am familiar with".',
  },
  {
    question:
      "Get, List and GetInformer of the Wrapper create a missing informer; the DynamicScopedCache interface says they do not.",
    resolution:
      "Reads never create informers: informers come only from AddInformer with a dependent (rows `scopedcache.reads#1`-`#6`).",
    reason:
      'The DynamicScopedCache interface: "will NOT automatically create a new informer". An informer created by a read has no dependent, so reference counting could never stop it; and with namespace-level permissions the cache cannot guess which scope would be allowed.',
  },
]

/** The resolutions as text for a table's `resolutions`. */
export const openQuestionTexts: ReadonlyArray<string> = openQuestions.map(
  (q) => `Open question "${q.question}" — ${q.resolution} Reason: ${q.reason}`,
)

/**
 * Rules of the seed that are not rows of a table, and where they hold: structure of the registry,
 * and operations of the shell that do not change it.
 */
export const rulesWithoutRows: ReadonlyArray<string> = [
  'Wrapper, AddInformer/RemoveInformer: "If InformerOptions.Namespace == "" the informer will be added to the ClusterScopedCache, otherwise ... to the NamespaceScopedCache": a ref\'s namespace "" is the cluster scope, in every table.',
  'NamespaceScopedCache "should be able to Add/Remove namespaces as needed, Add/Remove GVKs from a namespace as needed": the registry creates a scope and a GVK with their first informer and drops them with their last (core/scopedcache/registry.ts; tested in registry.test.ts).',
  'Wrapper, IndexField "will add an index field to the appropriate informers", GetInformerForKind, and the ScopedInformerFactory are the shell\'s (shell/scopedcache/): they do not change which informers exist or who depends on them, so no row decides them.',
  '"Potential Epic/User-Story Breakdown" items that are not behaviour (documentation, CI, release, ownership) have no row.',
  "Shell choices where the seed is silent (shell/scopedcache/, docs/scopedcache.md), each with its reason: (1) reads of a scope whose informer stopped on a 403 answer the API's typed Forbidden until an informer is added there again, so a caller can tell lost permission from a missing object or a missing informer; (2) a read before Start answers InformerNotFound with the message of scopedcache.reads' not-started row, because the project's CacheError union has no separate case for it; (3) an optional permission recheck (`permissionRecheckInterval`, off by default) runs an access review for running informers, because the API server does not re-check authorization on a watch that is already open, so a deleted RoleBinding is otherwise noticed only at the next list or watch; (4) `startOnGetInformer`, used by the factory the multi-cluster providers take, follows the seed's Wrapper GetInformer (\"it will attempt to create the requested informer\") for callers that have no dependent to register, and the factory starts each cache at once because providers never call Start; (5) `stopTimeout` 1 s bounds how long a stopped informer's reflector may take to close, and `syncTimeout` 2 min is controller-runtime's CacheSyncTimeout.",
]
