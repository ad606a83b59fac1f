/**
 * A plain reflector on the hub's Secrets of the fleet namespace, as a user builds one with
 * `makeReflector` (no cache, no controller), beside the multi-cluster suite's managers. Its
 * `decode` refuses a Secret without a kubeconfig (kept out of the store, listed as undecodable);
 * one handler logs every change it is told of, another dies on every deletion (the reflector must
 * log that and go on); `onError` logs each failed list or watch and answers "retry". The log is in
 * every run's digest. It runs without the harness's informer observer.
 *
 * @module
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import type { KubeClientShape } from "../kube/client.ts"
import { type KubeObject, Resources } from "../kube/resource.ts"
import { ReflectorObserver } from "../reflector/observer.ts"
import { type EventHandler, make as makeReflector } from "../reflector/reflector.ts"

/** Whether a Secret carries a kubeconfig (what the suite's provider reads). */
export const hasKubeconfig = (o: KubeObject): boolean =>
  typeof (o as { readonly data?: Readonly<Record<string, unknown>> }).data?.kubeconfig === "string"

const logChange: EventHandler<KubeObject> = (e) =>
  Effect.logInfo("hub secrets: a change").pipe(
    Effect.annotateLogs({
      change: e._tag,
      name: e.object.metadata.name,
      ...(e._tag === "Updated" ? { from: e.old.metadata.name } : {}),
    }),
  )

const dieOnDelete: EventHandler<KubeObject> = (e) =>
  e._tag === "Deleted"
    ? Effect.die(new Error(`a handler that dies on deletions: ${e.object.metadata.name}`))
    : Effect.void

/** Starts the reflector on `client` until the scope closes. */
export const startHubSecrets = (
  client: KubeClientShape,
  namespace: string,
): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    const reflector = yield* makeReflector(client, {
      resource: Resources.secrets,
      namespace,
      name: "chaos-hub-secrets",
      decode: (o) => (hasKubeconfig(o) ? Result.succeed(o) : Result.fail("no kubeconfig in its data")),
      handlers: [logChange, dieOnDelete],
      onError: ({ verb, error }) =>
        Effect.as(
          Effect.logInfo("hub secrets: a request failed").pipe(
            Effect.annotateLogs({ verb, error: error._tag }),
          ),
          "retry" as const,
        ),
    })
    yield* reflector.subscribe((e) =>
      Effect.flatMap(reflector.undecodable, (undecodable) =>
        Effect.logInfo("hub secrets: undecodable").pipe(
          Effect.annotateLogs({
            after: `${e._tag} ${e.object.metadata.name}`,
            keys: [...undecodable.keys()].sort(),
          }),
        ),
      ),
    )
  }).pipe(Effect.provideService(ReflectorObserver, undefined))
