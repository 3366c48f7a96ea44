/** One immutable audit record (spec rule 10): who did what to which object, and why. */
import { Schema } from "effect";
import { AuditRecordId, MerchantId } from "./Ids.js";

/** An audit record (table payment_audit_log). */
export const AuditRecord = Schema.Struct({
  id: AuditRecordId,
  merchantId: Schema.NullOr(MerchantId),
  actor: Schema.String,
  action: Schema.String,
  subjectType: Schema.String,
  subjectId: Schema.String,
  reason: Schema.String,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Schema.DateFromSelf,
});
export type AuditRecord = typeof AuditRecord.Type;
