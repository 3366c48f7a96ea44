/**
 * Payments migration 26: a payment attempt's record, held by the database (spec, Payment service:
 * a PaymentAttempt "records one provider interaction"; "Commands, webhooks ... are immutable and
 * audited"; "Ambiguous provider outcomes become pending and are never guessed"). The commands move
 * an attempt only from what the provider has not settled yet; these triggers make it hold
 * whoever writes:
 *   - a status change is one of these edges: an answer to a pending or unknown attempt, a pending
 *     one marked unknown (the sweep), the customer's authentication settling a requires_action
 *     one, the capture of an authorized one; captured and declined are final;
 *   - which interaction it records (id, intent, merchant, number, reference, payment method,
 *     creation time) never changes;
 *   - an attempt is never deleted.
 */
import type { Migration } from "../../Migration.js";

/** The edges, as "<from>-><to>" (a released migration never changes). */
const edges = [
  "pending->unknown",
  "pending->authorized",
  "pending->captured",
  "pending->requires_action",
  "pending->declined",
  "unknown->authorized",
  "unknown->captured",
  "unknown->requires_action",
  "unknown->declined",
  "requires_action->authorized",
  "requires_action->captured",
  "requires_action->declined",
  "authorized->captured",
];
const edgeList = edges.map((edge) => `'${edge}'`).join(", ");
const fixed = ["id", "intent_id", "merchant_id", "number", "reference", "payment_method", "created_at"] as const;

const postgres = [
  `CREATE FUNCTION payment_attempts_state_machine() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'DELETE' THEN
       RAISE EXCEPTION 'a payment attempt is never deleted' USING ERRCODE = 'restrict_violation';
     END IF;
     IF ${fixed.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")} THEN
       RAISE EXCEPTION 'the interaction payment attempt % records never changes', OLD.id USING ERRCODE = 'check_violation';
     END IF;
     IF NEW.status <> OLD.status AND (OLD.status || '->' || NEW.status) NOT IN (${edgeList}) THEN
       RAISE EXCEPTION 'payment attempt % cannot move from % to %', OLD.id, OLD.status, NEW.status USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER payment_attempts_state_machine BEFORE UPDATE OR DELETE ON payment_attempts
   FOR EACH ROW EXECUTE FUNCTION payment_attempts_state_machine()`,
];

const sqlite = [
  `CREATE TRIGGER payment_attempts_record_fixed BEFORE UPDATE OF ${fixed.join(", ")} ON payment_attempts FOR EACH ROW ` +
    `WHEN ${fixed.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")} ` +
    `BEGIN SELECT RAISE(ABORT, 'the interaction a payment attempt records never changes'); END`,
  `CREATE TRIGGER payment_attempts_transitions BEFORE UPDATE OF status ON payment_attempts FOR EACH ROW ` +
    `WHEN NEW.status IS NOT OLD.status AND (OLD.status || '->' || NEW.status) NOT IN (${edgeList}) ` +
    `BEGIN SELECT RAISE(ABORT, 'not an edge of the payment attempt transitions'); END`,
  `CREATE TRIGGER payment_attempts_kept BEFORE DELETE ON payment_attempts ` +
    `BEGIN SELECT RAISE(ABORT, 'a payment attempt is never deleted'); END`,
];

/** Version 26 of the payment module. */
export const paymentsMigration0026AttemptTransitions: Migration = {
  version: 26,
  name: "attempt_transitions",
  sqlite,
  postgres,
};
