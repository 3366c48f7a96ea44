/**
 * The operator's view of reconciliation exceptions across every merchant (and the unmatched ones
 * of none), newest first: what `domainkit settlement exceptions` lists. The merchant-scoped
 * ReconciliationRepository.listExceptions answers one merchant only. The record is declared once
 * (core/kernel/RecordFields.ts): its wire shape and SQL row codec are derived from it.
 */
import { Context, Schema, type Effect } from "effect";

/** One reconciliation exception as the operator sees it. */
export const OperatorException = Schema.Struct({
  id: Schema.String,
  merchantId: Schema.NullOr(Schema.String),
  providerObject: Schema.String,
  settlementWindow: Schema.String,
  kind: Schema.String,
  subjectType: Schema.String,
  subjectId: Schema.NullOr(Schema.String),
  expected: Schema.NullOr(Schema.Unknown),
  observed: Schema.NullOr(Schema.Unknown),
  currency: Schema.NullOr(Schema.String),
  status: Schema.String,
  resolution: Schema.NullOr(Schema.Unknown),
  openedAt: Schema.DateFromSelf,
  resolvedAt: Schema.NullOr(Schema.DateFromSelf),
});
export type OperatorException = typeof OperatorException.Type;

export interface OperatorExceptions {
  /** At most `limit` exceptions, newest first, of `status` when given. */
  readonly listAll: (req: { readonly status?: "open" | "resolved"; readonly limit: number }) => Effect.Effect<ReadonlyArray<OperatorException>>;
}
export const OperatorExceptions = Context.GenericTag<OperatorExceptions>("domainkit/payments/OperatorExceptions");
