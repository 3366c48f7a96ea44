/** Unit of work port: one transaction per command (architecture.md, Storage). */
import { Context, Effect } from "effect";

export interface Transactions {
  /**
   * Runs `effect` inside one database transaction: commits when it succeeds, rolls back when it
   * fails, dies or is interrupted. A nested call joins the transaction already open. Every
   * repository call made by `effect` uses that transaction.
   */
  readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>;
  /**
   * Inside an open transaction: runs `effect` so that its failure undoes only its own writes
   * (a savepoint), leaving the transaction usable for the work around it. Outside a transaction
   * it is `run`. Optional: an adapter without savepoints omits it, and callers (the outbox relay)
   * then use one transaction per unit of work.
   */
  readonly savepoint?: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>;
}
export const Transactions = Context.GenericTag<Transactions>("domainkit/Transactions");
