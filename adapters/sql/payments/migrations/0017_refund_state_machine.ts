/**
 * Payments migration 17: a refund's state machine, held by the database (spec, Payment service:
 * refunds "completed or pending"; Capture, Refund are "amount-limited transitions of an intent";
 * "commands ... are immutable and audited"). The refund commands already move a refund only from
 * pending, under the intent's lock; these triggers make it hold whoever writes:
 *   - pending moves to succeeded or failed; a resolved refund (status and failure reason) never
 *     changes again;
 *   - what was requested (id, intent, merchant, amount, currency, provider reference, request key,
 *     creation time) never changes;
 *   - a refund is never deleted.
 */
import type { Migration } from "../../Migration.js";

const requested = ["id", "intent_id", "merchant_id", "amount_minor", "currency", "reference", "request_key", "created_at"] as const;

const postgres = [
  `CREATE FUNCTION payment_refunds_state_machine() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'DELETE' THEN
       RAISE EXCEPTION 'a refund is never deleted' USING ERRCODE = 'restrict_violation';
     END IF;
     IF ${requested.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")} THEN
       RAISE EXCEPTION 'what refund % requested never changes', OLD.id USING ERRCODE = 'check_violation';
     END IF;
     IF OLD.status <> 'pending' AND (NEW.status IS DISTINCT FROM OLD.status OR NEW.failure_reason IS DISTINCT FROM OLD.failure_reason) THEN
       RAISE EXCEPTION 'refund % is % and never changes again', OLD.id, OLD.status USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER payment_refunds_state_machine BEFORE UPDATE OR DELETE ON payment_refunds
   FOR EACH ROW EXECUTE FUNCTION payment_refunds_state_machine()`,
];

const sqlite = [
  `CREATE TRIGGER payment_refunds_requested_fixed BEFORE UPDATE OF ${requested.join(", ")} ON payment_refunds FOR EACH ROW ` +
    `WHEN ${requested.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")} ` +
    `BEGIN SELECT RAISE(ABORT, 'what a refund requested never changes'); END`,
  `CREATE TRIGGER payment_refunds_resolved_final BEFORE UPDATE ON payment_refunds FOR EACH ROW ` +
    `WHEN OLD.status <> 'pending' AND (NEW.status IS NOT OLD.status OR NEW.failure_reason IS NOT OLD.failure_reason) ` +
    `BEGIN SELECT RAISE(ABORT, 'a resolved refund never changes again'); END`,
  `CREATE TRIGGER payment_refunds_kept BEFORE DELETE ON payment_refunds ` +
    `BEGIN SELECT RAISE(ABORT, 'a refund is never deleted'); END`,
];

/** Version 17 of the payment module. */
export const paymentsMigration0017RefundStateMachine: Migration = {
  version: 17,
  name: "refund_state_machine",
  sqlite,
  postgres,
};
