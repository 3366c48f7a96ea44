/**
 * Wake-ups for background work (architecture.md, Events and background work): a commit that makes
 * outbox rows or jobs due says so, and the worker waiting between polls starts its next pass at
 * once. Signals are hints only: a missed one costs one poll interval, never a lost event, and a
 * listener may also wake without one (ours on Postgres wakes every listener once its LISTEN
 * connection is (re)established, to catch up on notices sent before).
 */
import { Context, Effect, type Scope } from "effect";

/** The kinds of background work a commit can make due. */
export type WorkKind = "outbox" | "jobs";

/** Every {@link WorkKind}. */
export const workKinds: ReadonlyArray<WorkKind> = ["outbox", "jobs"];

export interface WorkSignals {
  /**
   * Says work of `kind` became due. Inside `Transactions.run` the signal is sent only if and when
   * that transaction commits, once however often it is asked; outside a transaction, at once.
   */
  readonly notify: (kind: WorkKind) => Effect.Effect<void>;
  /**
   * Hears signals of `kind` (from this process and, where the adapter can, from others) while the
   * scope is open. The returned effect completes as soon as a signal arrived since it last
   * completed, so signals arriving during a pass coalesce into one further pass.
   */
  readonly listen: (kind: WorkKind) => Effect.Effect<Effect.Effect<void>, never, Scope.Scope>;
}
export const WorkSignals = Context.GenericTag<WorkSignals>("domainkit/WorkSignals");
