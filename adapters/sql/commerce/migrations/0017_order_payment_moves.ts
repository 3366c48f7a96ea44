/**
 * Commerce migration 17: the order's payment record moves only forward (spec, E-commerce: money
 * kept correct "across retries and partial failures"; Versioning: "Order state changes use version
 * or conditional status updates"; Payment: "Refund total is bounded by the captured amount").
 * The code saves a record only from the status its writer read (OrdersRepository.updatePayment);
 * the database now refuses any other write too: a status move outside the list below, captured or
 * refunded amounts that decrease, a change of what was authorized (order, store, merchant, key,
 * payment method, amount), a second payment id once one is recorded, and a DELETE. Moves, as the
 * code makes them when this was written (core/commerce/OrderPayments.ts, PaymentRelease.ts,
 * Fulfillment.ts): authorizing → unknown | authorized | declined; unknown → authorized | declined |
 * voided; authorized → voided | captured; captured → refunded.
 */
import type { Migration } from "../../Migration.js";

const moves = [
  "authorizing>unknown",
  "authorizing>authorized",
  "authorizing>declined",
  "unknown>authorized",
  "unknown>declined",
  "unknown>voided",
  "authorized>voided",
  "authorized>captured",
  "captured>refunded",
]
  .map((m) => `'${m}'`)
  .join(", ");

const fixedColumns = ["order_id", "store_id", "merchant_id", "idempotency_key", "payment_method", "amount_minor"];

const changed = (distinct: string) =>
  [
    ...fixedColumns.map((c) => `NEW.${c} ${distinct} OLD.${c}`),
    `(OLD.payment_id IS NOT NULL AND NEW.payment_id ${distinct} OLD.payment_id)`,
    `NEW.captured_minor < OLD.captured_minor`,
    `NEW.refunded_minor < OLD.refunded_minor`,
  ].join(" OR ");

export const commerceMigration0017OrderPaymentMoves: Migration = {
  version: 17,
  name: "order_payment_moves",
  sqlite: [
    `CREATE TRIGGER shop_order_payments_never_deleted BEFORE DELETE ON shop_order_payments
     BEGIN SELECT RAISE(ABORT, 'shop_order_payments: payment records are never deleted'); END`,
    `CREATE TRIGGER shop_order_payments_forward BEFORE UPDATE ON shop_order_payments
     WHEN ${changed("IS NOT")}
     BEGIN SELECT RAISE(ABORT, 'shop_order_payments: what was authorized never changes and amounts never decrease'); END`,
    `CREATE TRIGGER shop_order_payments_status_moves BEFORE UPDATE OF status ON shop_order_payments
     WHEN NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves})
     BEGIN SELECT RAISE(ABORT, 'shop_order_payments: this status move is not allowed'); END`,
  ],
  postgres: [
    `CREATE FUNCTION shop_order_payments_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       RAISE EXCEPTION 'shop_order_payments: payment records are never deleted' USING ERRCODE = 'restrict_violation';
     END $$`,
    `CREATE TRIGGER shop_order_payments_never_deleted BEFORE DELETE ON shop_order_payments FOR EACH ROW EXECUTE FUNCTION shop_order_payments_never_deleted()`,
    `CREATE FUNCTION shop_order_payments_forward() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF ${changed("IS DISTINCT FROM")} THEN
         RAISE EXCEPTION 'shop_order_payments: what was authorized never changes and amounts never decrease' USING ERRCODE = 'check_violation';
       END IF;
       IF NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves}) THEN
         RAISE EXCEPTION 'shop_order_payments: this status move is not allowed' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER shop_order_payments_forward BEFORE UPDATE ON shop_order_payments FOR EACH ROW EXECUTE FUNCTION shop_order_payments_forward()`,
  ],
};
