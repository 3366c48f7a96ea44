/**
 * The operator's view of reconciliation exceptions across every merchant (and the unmatched ones
 * of none), newest first: what `domainkit settlement exceptions` lists. The merchant-scoped
 * ReconciliationRepository.listExceptions answers one merchant only.
 */
import { Context, type Effect } from "effect";

/** One reconciliation exception as the operator sees it. */
export interface OperatorException {
  readonly id: string;
  readonly merchantId: string | null;
  readonly providerObject: string;
  readonly settlementWindow: string;
  readonly kind: string;
  readonly subjectType: string;
  readonly subjectId: string | null;
  readonly expected: unknown;
  readonly observed: unknown;
  readonly currency: string | null;
  readonly status: string;
  readonly resolution: unknown;
  readonly openedAt: Date | null;
  readonly resolvedAt: Date | null;
}

export interface OperatorExceptions {
  /** At most `limit` exceptions, newest first, of `status` when given. */
  readonly listAll: (req: { readonly status?: "open" | "resolved"; readonly limit: number }) => Effect.Effect<ReadonlyArray<OperatorException>>;
}
export const OperatorExceptions = Context.GenericTag<OperatorExceptions>("domainkit/payments/OperatorExceptions");
