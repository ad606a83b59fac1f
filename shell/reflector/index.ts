/**
 * Package reflector: the list-then-watch loop (paginated list, watch with bookmarks, relist on
 * 410, backoff with jitter, inactivity timeout) that keeps an indexed `Store` of one resource in
 * step with an API server and calls event handlers.
 *
 * @module
 */

export { type ObservedReflector, ReflectorObserver, type ReflectorObserverShape } from "./observer.ts"
export {
  backoffDelay,
  type ReconnectBackoff,
  ReflectorDefaults,
  type ReflectorTiming,
  reflectorTiming,
} from "./options.ts"
export {
  type EventHandler,
  make,
  type Reflector,
  type ReflectorEvent,
  type ReflectorOptions,
  type ReflectorStatus,
} from "./reflector.ts"
export { type Outcome, type Phase, type Step, step } from "./step.ts"
export {
  builtinIndexes,
  type IndexFunc,
  IndexNames,
  type ReadonlyStore,
  type Replaced,
  Store,
  storeKey,
} from "./store.ts"
