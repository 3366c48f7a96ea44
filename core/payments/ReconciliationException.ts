/**
 * Reconciliation exceptions (spec: ReconciliationException): an explicit mismatch workflow item,
 * unique per provider object, settlement window and kind, resolved by a human with an audited
 * ledger reversal or adjustment (never an edit), and the immutable outcomes of that workflow.
 */

/** What does not match: `unresolved` is an ambiguous outcome left past its resolution window. */
export const mismatchKinds = ["missing", "amount", "currency", "status", "unresolved"] as const;
/** One kind of mismatch. */
export type MismatchKind = (typeof mismatchKinds)[number];

/** The settlement window of the ambiguity check (settlement files use their UTC day). */
export const ambiguityWindowName = "ambiguity_window";

/** An open or resolved exception. */
export interface ReconciliationException {
  readonly id: string;
  /** Null when the provider object matches nothing of ours (an operator's item). */
  readonly merchantId: string | null;
  /** Our stable provider reference of the object (attempt or refund reference). */
  readonly providerObject: string;
  /** A settlement day (YYYY-MM-DD) or {@link ambiguityWindowName}. */
  readonly settlementWindow: string;
  readonly kind: MismatchKind;
  readonly subjectType: "payment_intent" | "refund" | "unknown";
  readonly subjectId: string | null;
  /** What our records say (null when we have nothing). */
  readonly expected: Readonly<Record<string, unknown>> | null;
  /** What the provider says (null when it has nothing). */
  readonly observed: Readonly<Record<string, unknown>> | null;
  readonly currency: string | null;
  readonly status: "open" | "resolved";
  readonly resolution: Readonly<Record<string, unknown>> | null;
  readonly openedAt: Date;
  readonly resolvedAt: Date | null;
}

/** One immutable step of an exception's life, with who did it and why. */
export interface ReconciliationOutcome {
  readonly id: string;
  readonly exceptionId: string;
  readonly merchantId: string | null;
  readonly action: "opened" | "resolved";
  readonly actor: string;
  readonly reason: string;
  readonly ledgerSource: string | null;
  readonly data: Readonly<Record<string, unknown>>;
  readonly createdAt: Date;
}

/** A capture or refund of ours as a settlement file should show it. */
export interface SettledObject {
  readonly type: "payment" | "refund";
  /** The provider reference: the intent's current attempt reference, or the refund's. */
  readonly reference: string;
  readonly merchantId: string;
  readonly subjectId: string;
  readonly amountMinor: number;
  readonly currency: string;
  /** Our status in the provider's vocabulary: captured / succeeded, or what we hold instead. */
  readonly status: string;
}
