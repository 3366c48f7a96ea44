/**
 * Payments migration 18: a payment intent's state machine, held by the database (spec, Payment
 * service: "Every mutation has durable idempotency and state preconditions"; a webhook applies
 * only a "legal and monotonic" transition). The commands move an intent only along the one
 * transition table (core/payments/IntentStatus.ts) under its row lock; these triggers make the
 * same table hold whoever writes (test/payments/intent-states-constraint.test.ts derives its cases
 * from the table, so the two cannot drift apart unnoticed):
 *   - a status change is an edge of the table (succeeded and canceled are terminal);
 *   - what the merchant asked for (amount, currency, capture method, creation time) never changes
 *     (id and merchant are fixed by migration 14);
 *   - once succeeded, the captured amount never changes; the refunded amount never shrinks;
 *   - an intent is never deleted.
 */
import type { Migration } from "../../Migration.js";

/** The edges of the transition table, as "<from>-><to>" (a released migration never changes). */
const edges = [
  "requires_payment_method->processing",
  "requires_payment_method->canceled",
  "requires_confirmation->processing",
  "requires_confirmation->canceled",
  "processing->requires_capture",
  "processing->succeeded",
  "processing->requires_payment_method",
  "processing->requires_action",
  "requires_action->requires_capture",
  "requires_action->succeeded",
  "requires_action->requires_payment_method",
  "requires_action->canceled",
  "requires_capture->succeeded",
  "requires_capture->canceled",
];
const edgeList = edges.map((edge) => `'${edge}'`).join(", ");
const fixed = ["amount_minor", "currency", "capture_method", "created_at"] as const;

const postgres = [
  `CREATE FUNCTION payment_intents_state_machine() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'DELETE' THEN
       RAISE EXCEPTION 'a payment intent is never deleted' USING ERRCODE = 'restrict_violation';
     END IF;
     IF ${fixed.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")} THEN
       RAISE EXCEPTION 'what payment intent % asked for never changes', OLD.id USING ERRCODE = 'check_violation';
     END IF;
     IF NEW.status <> OLD.status AND (OLD.status || '->' || NEW.status) NOT IN (${edgeList}) THEN
       RAISE EXCEPTION 'payment intent % cannot move from % to %', OLD.id, OLD.status, NEW.status USING ERRCODE = 'check_violation';
     END IF;
     IF OLD.status = 'succeeded' AND NEW.amount_captured_minor <> OLD.amount_captured_minor THEN
       RAISE EXCEPTION 'the captured amount of succeeded payment intent % never changes', OLD.id USING ERRCODE = 'check_violation';
     END IF;
     IF NEW.amount_refunded_minor < OLD.amount_refunded_minor THEN
       RAISE EXCEPTION 'the refunded amount of payment intent % never shrinks', OLD.id USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER payment_intents_state_machine BEFORE UPDATE OR DELETE ON payment_intents
   FOR EACH ROW EXECUTE FUNCTION payment_intents_state_machine()`,
];

const sqlite = [
  `CREATE TRIGGER payment_intents_request_fixed BEFORE UPDATE OF ${fixed.join(", ")} ON payment_intents FOR EACH ROW ` +
    `WHEN ${fixed.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")} ` +
    `BEGIN SELECT RAISE(ABORT, 'what a payment intent asked for never changes'); END`,
  `CREATE TRIGGER payment_intents_transitions BEFORE UPDATE OF status ON payment_intents FOR EACH ROW ` +
    `WHEN NEW.status IS NOT OLD.status AND (OLD.status || '->' || NEW.status) NOT IN (${edgeList}) ` +
    `BEGIN SELECT RAISE(ABORT, 'not an edge of the payment intent transition table'); END`,
  `CREATE TRIGGER payment_intents_captured_final BEFORE UPDATE OF amount_captured_minor ON payment_intents FOR EACH ROW ` +
    `WHEN OLD.status = 'succeeded' AND NEW.amount_captured_minor IS NOT OLD.amount_captured_minor ` +
    `BEGIN SELECT RAISE(ABORT, 'the captured amount of a succeeded payment intent never changes'); END`,
  `CREATE TRIGGER payment_intents_refunded_grows BEFORE UPDATE OF amount_refunded_minor ON payment_intents FOR EACH ROW ` +
    `WHEN NEW.amount_refunded_minor < OLD.amount_refunded_minor ` +
    `BEGIN SELECT RAISE(ABORT, 'the refunded amount of a payment intent never shrinks'); END`,
  `CREATE TRIGGER payment_intents_kept BEFORE DELETE ON payment_intents ` +
    `BEGIN SELECT RAISE(ABORT, 'a payment intent is never deleted'); END`,
];

/** Version 18 of the payment module. */
export const paymentsMigration0018IntentTransitions: Migration = {
  version: 18,
  name: "intent_transitions",
  sqlite,
  postgres,
};
