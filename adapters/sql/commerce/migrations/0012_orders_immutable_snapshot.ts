/**
 * Commerce migration 12: an order is an immutable commercial snapshot, never deleted, whose
 * status moves only along the transition table (spec, E-commerce Resources: "The order and its
 * lines are an immutable commercial snapshot. Orders are never soft-deleted; explicit states are
 * used"; Versioning: "Order state changes use version or conditional status updates"). Lines are
 * append-only since migration 1; the order row now refuses a DELETE, any change of what was sold
 * (store, customer, cart, currency, subtotal, discount, tax, total, creation time), a second
 * `payment_intent_ref` once one is recorded, and a status move outside core/commerce/OrderStatus.ts
 * `orderTransitions` as it stood when this was written (listed here: a released migration never
 * changes). Status, version, updated_at and, for retention, e-mail and the sealed address still change.
 */
import type { Migration } from "../../Migration.js";

/** from>to of every allowed move (docs/decisions.md, E-commerce: order states). */
const moves = [
  "pending>confirmed",
  "pending>payment_pending",
  "pending>failed",
  "pending>expired",
  "pending>cancellation_requested",
  "payment_pending>confirmed",
  "payment_pending>failed",
  "payment_pending>expired",
  "payment_pending>cancellation_requested",
  "confirmed>cancellation_requested",
  "confirmed>dispatched",
  "cancellation_requested>cancelled",
]
  .map((m) => `'${m}'`)
  .join(", ");

const snapshotColumns = ["id", "store_id", "customer_id", "cart_id", "currency", "subtotal_minor", "discount_minor", "tax_minor", "total_minor", "created_at"];

const snapshotChanged = snapshotColumns.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ");
const snapshotChangedSqlite = snapshotColumns.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ");

export const commerceMigration0012OrdersImmutableSnapshot: Migration = {
  version: 12,
  name: "orders_immutable_snapshot",
  sqlite: [
    `CREATE TRIGGER shop_orders_never_deleted BEFORE DELETE ON shop_orders
     BEGIN SELECT RAISE(ABORT, 'shop_orders: orders are never deleted'); END`,
    `CREATE TRIGGER shop_orders_snapshot_immutable BEFORE UPDATE ON shop_orders
     WHEN ${snapshotChangedSqlite} OR (OLD.payment_intent_ref IS NOT NULL AND NEW.payment_intent_ref IS NOT OLD.payment_intent_ref)
     BEGIN SELECT RAISE(ABORT, 'shop_orders: an order is an immutable commercial snapshot'); END`,
    `CREATE TRIGGER shop_orders_status_moves BEFORE UPDATE OF status ON shop_orders
     WHEN NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves})
     BEGIN SELECT RAISE(ABORT, 'shop_orders: this status move is not allowed'); END`,
  ],
  postgres: [
    `CREATE FUNCTION shop_orders_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       RAISE EXCEPTION 'shop_orders: orders are never deleted' USING ERRCODE = 'restrict_violation';
     END $$`,
    `CREATE TRIGGER shop_orders_never_deleted BEFORE DELETE ON shop_orders FOR EACH ROW EXECUTE FUNCTION shop_orders_never_deleted()`,
    `CREATE FUNCTION shop_orders_snapshot_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF ${snapshotChanged} OR (OLD.payment_intent_ref IS NOT NULL AND NEW.payment_intent_ref IS DISTINCT FROM OLD.payment_intent_ref) THEN
         RAISE EXCEPTION 'shop_orders: an order is an immutable commercial snapshot' USING ERRCODE = 'check_violation';
       END IF;
       IF NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves}) THEN
         RAISE EXCEPTION 'shop_orders: this status move is not allowed' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER shop_orders_snapshot_immutable BEFORE UPDATE ON shop_orders FOR EACH ROW EXECUTE FUNCTION shop_orders_snapshot_immutable()`,
  ],
};
