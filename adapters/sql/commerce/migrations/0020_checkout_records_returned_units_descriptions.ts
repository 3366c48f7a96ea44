/**
 * Commerce migration 20: what checkout, returns and the catalog rely on, kept by the database.
 * - `shop_checkout_requests` is append-only (spec, E-commerce Resources 6: order creation stores
 *   an idempotency record with key and payload hash): a rewritten record would replay another
 *   order, a deleted one would let a retry check out again.
 * - `shop_order_line_returns` (migration 7): a line's returned units never go down and its line
 *   quantity never changes, and no row is deleted (units returned once could be returned and
 *   refunded again).
 * - A product's description is at most 5000 characters (core/commerce/Catalog.ts
 *   `maxDescriptionLength`). On Postgres the CHECK is NOT VALID: rows written before are kept as
 *   they are; on SQLite, which cannot add a CHECK to a table, triggers on insert and update.
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import type { Migration } from "../../Migration.js";

const returnedFixed = ["order_line_id", "store_id", "order_id", "line_quantity"];

const maxDescription = 5000;

export const commerceMigration0020CheckoutRecordsReturnedUnitsDescriptions: Migration = {
  version: 20,
  name: "checkout_records_returned_units_descriptions",
  sqlite: [
    ...appendOnlyTriggersSql("sqlite", "shop_checkout_requests"),
    `CREATE TRIGGER shop_order_line_returns_never_deleted BEFORE DELETE ON shop_order_line_returns
     BEGIN SELECT RAISE(ABORT, 'shop_order_line_returns: returned units are never deleted'); END`,
    `CREATE TRIGGER shop_order_line_returns_only_up BEFORE UPDATE ON shop_order_line_returns
     WHEN ${returnedFixed.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")} OR NEW.returned_quantity < OLD.returned_quantity
     BEGIN SELECT RAISE(ABORT, 'shop_order_line_returns: returned units only go up'); END`,
    `CREATE TRIGGER shop_products_description_bounded_insert BEFORE INSERT ON shop_products
     WHEN length(NEW.description) > ${maxDescription}
     BEGIN SELECT RAISE(ABORT, 'shop_products: a description is at most ${maxDescription} characters'); END`,
    `CREATE TRIGGER shop_products_description_bounded_update BEFORE UPDATE OF description ON shop_products
     WHEN length(NEW.description) > ${maxDescription}
     BEGIN SELECT RAISE(ABORT, 'shop_products: a description is at most ${maxDescription} characters'); END`,
  ],
  postgres: [
    ...appendOnlyTriggersSql("postgres", "shop_checkout_requests"),
    `CREATE FUNCTION shop_order_line_returns_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       RAISE EXCEPTION 'shop_order_line_returns: returned units are never deleted' USING ERRCODE = 'restrict_violation';
     END $$`,
    `CREATE TRIGGER shop_order_line_returns_never_deleted BEFORE DELETE ON shop_order_line_returns FOR EACH ROW EXECUTE FUNCTION shop_order_line_returns_never_deleted()`,
    `CREATE FUNCTION shop_order_line_returns_only_up() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF ${returnedFixed.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")} OR NEW.returned_quantity < OLD.returned_quantity THEN
         RAISE EXCEPTION 'shop_order_line_returns: returned units only go up' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER shop_order_line_returns_only_up BEFORE UPDATE ON shop_order_line_returns FOR EACH ROW EXECUTE FUNCTION shop_order_line_returns_only_up()`,
    `ALTER TABLE shop_products ADD CONSTRAINT shop_products_description_bounded CHECK (description IS NULL OR length(description) <= ${maxDescription}) NOT VALID`,
  ],
};
