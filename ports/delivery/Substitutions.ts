/** Substitutions proposed on order lines (dl_substitutions; one per order line). */
import { Context, type Effect } from "effect";
import type { Substitution, SubstitutionStatus } from "../../core/delivery/model/Substitution.js";

export interface Substitutions {
  /** Inserts the proposal; when the line already has one, inserts nothing and answers "exists". */
  readonly insert: (substitution: Substitution) => Effect.Effect<"inserted" | "exists">;
  readonly find: (id: string) => Effect.Effect<Substitution | null>;
  /** An order's substitutions by line. */
  readonly ofOrder: (orderId: string) => Effect.Effect<ReadonlyArray<Substitution>>;
  /** Records the customer's decision when the substitution is still proposed; false otherwise. */
  readonly decide: (id: string, status: Exclude<SubstitutionStatus, "proposed">, at: Date) => Effect.Effect<boolean>;
}
export const Substitutions = Context.GenericTag<Substitutions>("domainkit/delivery/Substitutions");
