/** Unit of work port: one transaction per command (architecture.md, Storage). */
import { Context, Effect } from "effect";

export interface Transactions {
  /**
   * Runs `effect` inside one database transaction: commits when it succeeds, rolls back when it
   * fails, dies or is interrupted. A nested call joins the transaction already open. Every
   * repository call made by `effect` uses that transaction.
   */
  readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>;
}
export const Transactions = Context.GenericTag<Transactions>("domainkit/Transactions");
