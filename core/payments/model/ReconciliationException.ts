/**
 * Reconciliation exceptions (spec: ReconciliationException): an explicit mismatch workflow item,
 * unique per provider object and settlement window (its kind is the first of the kinds found,
 * all of which its opening outcome and event carry), resolved by a human with an audited
 * ledger reversal or adjustment (never an edit), and the immutable outcomes of that workflow.
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { MerchantId, ReconciliationExceptionId, ReconciliationOutcomeId } from "./Ids.js";

/** What does not match: `unresolved` is an ambiguous outcome left past its resolution window. */
export const mismatchKinds = ["missing", "amount", "currency", "status", "unresolved"] as const;
/** One kind of mismatch. */
export const MismatchKind = Schema.Literal(...mismatchKinds);
export type MismatchKind = typeof MismatchKind.Type;

/** The settlement window of the ambiguity check (settlement files use their UTC day). */
export const ambiguityWindowName = "ambiguity_window";

/** A JSON object, or null. */
const JsonObject = Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }));

/** An open or resolved exception (table payment_reconciliation_exceptions). */
export const ReconciliationException = Schema.Struct({
  id: ReconciliationExceptionId,
  /** Null when the provider object matches nothing of ours (an operator's item). */
  merchantId: Schema.NullOr(MerchantId),
  /** Our stable provider reference of the object (attempt or refund reference). */
  providerObject: Schema.String,
  /** A settlement day (YYYY-MM-DD) or {@link ambiguityWindowName}. */
  settlementWindow: Schema.String,
  kind: MismatchKind,
  subjectType: Schema.Literal("payment_intent", "refund", "unknown"),
  subjectId: Schema.NullOr(Schema.String),
  /** What our records say (null when we have nothing). */
  expected: JsonObject,
  /** What the provider says (null when it has nothing). */
  observed: JsonObject,
  currency: Schema.NullOr(Schema.String),
  status: Schema.Literal("open", "resolved"),
  resolution: JsonObject,
  openedAt: Schema.DateFromSelf,
  resolvedAt: Schema.NullOr(Schema.DateFromSelf),
});
export type ReconciliationException = typeof ReconciliationException.Type;

/** One immutable step of an exception's life, with who did it and why (table payment_reconciliation_outcomes). */
export const ReconciliationOutcome = Schema.Struct({
  id: ReconciliationOutcomeId,
  exceptionId: ReconciliationExceptionId,
  merchantId: Schema.NullOr(MerchantId),
  /** `settled`: a `settle_intent` resolution was carried out at the provider (SettleIntent.ts). */
  action: Schema.Literal("opened", "resolved", "settled"),
  actor: Schema.String,
  reason: Schema.String,
  ledgerSource: Schema.NullOr(Schema.String),
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Schema.DateFromSelf,
});
export type ReconciliationOutcome = typeof ReconciliationOutcome.Type;

/** A capture or refund of ours as a settlement file should show it. */
export interface SettledObject {
  readonly type: "payment" | "refund";
  /** The provider reference: the intent's current attempt reference, or the refund's. */
  readonly reference: string;
  readonly merchantId: MerchantId;
  readonly subjectId: string;
  readonly amountMinor: number;
  readonly currency: string;
  /** Our status in the provider's vocabulary: captured / succeeded, or what we hold instead. */
  readonly status: string;
}

/** An exception as its merchant sees it. */
export const ReconciliationExceptionView = Schema.Struct({
  id: ReconciliationException.fields.id,
  object: Schema.Literal("reconciliation_exception"),
  ...Struct.omit(ReconciliationException.fields, "id"),
});
export type ReconciliationExceptionView = typeof ReconciliationExceptionView.Type;
/** The exception view on the wire. */
export const ReconciliationExceptionWire = wireShape(ReconciliationExceptionView);

/** The merchant's view of `exception`. */
export const reconciliationExceptionView = (exception: ReconciliationException): ReconciliationExceptionView => ({
  id: exception.id,
  object: "reconciliation_exception",
  ...Struct.omit(exception, "id"),
});

const outcomeShown = ["id", "action", "actor", "reason", "ledgerSource", "createdAt"] as const;
/** One immutable outcome as the merchant sees it. */
export const ReconciliationOutcomeView = Schema.Struct(Struct.pick(ReconciliationOutcome.fields, ...outcomeShown));

/** An exception with its outcomes. */
export const ReconciliationExceptionDetail = Schema.Struct({
  ...ReconciliationExceptionView.fields,
  outcomes: Schema.Array(wireShape(ReconciliationOutcomeView)),
});
/** The detail on the wire. */
export const ReconciliationExceptionDetailWire = wireShape(ReconciliationExceptionDetail);

/** The merchant's view of `exception` with its `outcomes`. */
export const reconciliationExceptionDetail = (
  exception: ReconciliationException,
  outcomes: ReadonlyArray<ReconciliationOutcome>,
): typeof ReconciliationExceptionDetail.Type => ({
  ...reconciliationExceptionView(exception),
  outcomes: outcomes.map((outcome) => Struct.pick(outcome, ...outcomeShown)),
});
