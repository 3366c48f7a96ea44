/**
 * Commerce migration 10: an order whose cancellation was requested moves only to `cancelled`
 * (spec, E-commerce States: "order not yet dispatched → cancellation requested (202)"). Since a
 * `pending` order can be cancelled too, checkout's recording of its authorization's answer can
 * meet an order whose cancellation was requested; the conditional update already leaves it alone,
 * and the database refuses any other move (confirmed, failed, payment_pending, ...) as well.
 */
import type { Migration } from "../../Migration.js";

export const commerceMigration0010CancellationRequestedFinal: Migration = {
  version: 10,
  name: "cancellation_requested_final",
  sqlite: [
    `CREATE TRIGGER shop_orders_cancellation_requested_final BEFORE UPDATE OF status ON shop_orders
     WHEN OLD.status = 'cancellation_requested' AND NEW.status NOT IN ('cancellation_requested', 'cancelled')
     BEGIN SELECT RAISE(ABORT, 'shop_orders: an order whose cancellation was requested moves only to cancelled'); END`,
  ],
  postgres: [
    `CREATE FUNCTION shop_orders_cancellation_requested_final() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF OLD.status = 'cancellation_requested' AND NEW.status NOT IN ('cancellation_requested', 'cancelled') THEN
         RAISE EXCEPTION 'shop_orders: an order whose cancellation was requested moves only to cancelled' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER shop_orders_cancellation_requested_final BEFORE UPDATE ON shop_orders FOR EACH ROW EXECUTE FUNCTION shop_orders_cancellation_requested_final()`,
  ],
};
