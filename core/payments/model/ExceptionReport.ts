/** One daily report of a merchant's (or the platform's) open reconciliation exceptions; append-only. */
import { Schema } from "effect";

/** An exception report (table payment_exception_reports), unique per merchant key and day. */
export const ExceptionReport = Schema.Struct({
  /** The merchant id, or "platform" for exceptions that match no merchant. */
  merchantKey: Schema.String,
  /** The UTC day (YYYY-MM-DD) the report covers. */
  reportDay: Schema.String,
  openCount: Schema.Int,
  summary: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Schema.DateFromSelf,
});
export type ExceptionReport = typeof ExceptionReport.Type;
