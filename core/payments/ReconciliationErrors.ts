/** Typed errors of the reconciliation exceptions queue. */
import { Data } from "effect";

/** The exception was resolved already; a resolution is never edited (409). */
export class ExceptionAlreadyResolved extends Data.TaggedError("ExceptionAlreadyResolved")<{ readonly detail?: string }> {
  readonly code = "reconciliation_exception_resolved";
  readonly category = "conflict" as const;
}

/** The ledger transaction to reverse is not the merchant's, or does not exist (422). */
export class ReversalTargetInvalid extends Data.TaggedError("ReversalTargetInvalid")<{ readonly detail?: string }> {
  readonly code = "reversal_target_invalid";
  readonly category = "unprocessable" as const;
}

/** A settlement file that is not the provider's CSV format, or a day that is not YYYY-MM-DD (422). */
export class SettlementFileInvalid extends Data.TaggedError("SettlementFileInvalid")<{ readonly detail?: string }> {
  readonly code = "settlement_file_invalid";
  readonly category = "unprocessable" as const;
}
