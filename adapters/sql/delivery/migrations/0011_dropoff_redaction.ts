/**
 * Delivery migration 11: the one change the otherwise immutable quotes and order snapshots allow
 * — the location retention pass's redaction of the customer's drop-off (spec: precise customer
 * locations are retained briefly): the point kept to 3 decimals (`round(x * 1000) / 1000`, the
 * expression the pass writes), the address replaced by `[REDACTED]`
 * (core/delivery/model/PriceSnapshot.ts, redactedDropoffAddress), every other column unchanged.
 * The append-only UPDATE triggers of dl_quotes and dl_orders (migration 1) give way to that
 * check; DELETE and TRUNCATE stay refused. A delivery's drop-off changes only by the same
 * redaction, once the delivery is delivered or cancelled. Partial indexes keep the pass to the
 * rows not yet redacted.
 */
import type { Migration } from "../../Migration.js";

const mask = "'[REDACTED]'";
const dropoff = ["dropoff_lat", "dropoff_lng", "dropoff_address"];
/** The columns of dl_quotes and dl_orders other than the drop-off (migrations 1 and 5). */
const keptColumns: Record<"dl_quotes" | "dl_orders", ReadonlyArray<string>> = {
  dl_quotes: ["id", "customer_id", "restaurant_id", "menu_version", "lines", "subtotal_minor", "delivery_fee_minor", "service_fee_minor", "tax_minor", "total_minor", "currency", "expires_at", "created_at", "scheduled_for"],
  dl_orders: ["id", "customer_id", "restaurant_id", "quote_id", "menu_version", "merchant_id", "subtotal_minor", "delivery_fee_minor", "service_fee_minor", "tax_minor", "total_minor", "currency", "placed_at", "scheduled_for"],
};
/** NEW's drop-off is OLD's, redacted. */
const redactionOf = `NEW.dropoff_address = ${mask} AND NEW.dropoff_lat = round(OLD.dropoff_lat * 1000) / 1000 AND NEW.dropoff_lng = round(OLD.dropoff_lng * 1000) / 1000`;
const dropoffChanged = dropoff.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ");

const indexes = [
  `CREATE INDEX dl_quotes_dropoff_kept ON dl_quotes (expires_at) WHERE dropoff_address <> ${mask}`,
  `CREATE INDEX dl_orders_dropoff_kept ON dl_orders (placed_at) WHERE dropoff_address <> ${mask}`,
  `CREATE INDEX dl_deliveries_dropoff_kept ON dl_deliveries (updated_at) WHERE dropoff_address <> ${mask} AND status IN ('delivered', 'cancelled')`,
];

const sqlite = (): string[] => [
  ...(["dl_quotes", "dl_orders"] as const).flatMap((table) => [
    `DROP TRIGGER ${table}_append_only_update`,
    `CREATE TRIGGER ${table}_dropoff_redaction_only BEFORE UPDATE ON ${table} ` +
      `WHEN NOT (${keptColumns[table].map((c) => `NEW.${c} IS OLD.${c}`).join(" AND ")} AND ${redactionOf}) ` +
      `BEGIN SELECT RAISE(ABORT, '${table} is append-only but for the redaction of its drop-off'); END`,
  ]),
  `CREATE TRIGGER dl_deliveries_dropoff_redaction_only BEFORE UPDATE ON dl_deliveries ` +
    `WHEN (${dropoffChanged.replaceAll("IS DISTINCT FROM", "IS NOT")}) AND NOT (OLD.status IN ('delivered', 'cancelled') AND ${redactionOf}) ` +
    `BEGIN SELECT RAISE(ABORT, 'a delivery''s drop-off changes only by its redaction once finished'); END`,
  ...indexes,
];

const postgres = (): string[] => [
  `CREATE FUNCTION dl_dropoff_redaction_only() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF (to_jsonb(NEW) - 'dropoff_lat' - 'dropoff_lng' - 'dropoff_address') IS DISTINCT FROM (to_jsonb(OLD) - 'dropoff_lat' - 'dropoff_lng' - 'dropoff_address')
        OR NOT (${redactionOf}) THEN
       RAISE EXCEPTION '% is append-only but for the redaction of its drop-off', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
     END IF;
     RETURN NEW;
   END $$`,
  ...(["dl_quotes", "dl_orders"] as const).flatMap((table) => [
    // Migration 1's trigger refused UPDATE and DELETE; DELETE stays refused, UPDATE is checked.
    `DROP TRIGGER ${table}_append_only ON ${table}`,
    `CREATE TRIGGER ${table}_append_only BEFORE DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION domainkit_refuse_change()`,
    `CREATE TRIGGER ${table}_dropoff_redaction_only BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION dl_dropoff_redaction_only()`,
  ]),
  `CREATE FUNCTION dl_deliveries_dropoff_redaction_only() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF (${dropoffChanged}) AND NOT (OLD.status IN ('delivered', 'cancelled') AND ${redactionOf}) THEN
       RAISE EXCEPTION 'a delivery''s drop-off changes only by its redaction once finished' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER dl_deliveries_dropoff_redaction_only BEFORE UPDATE ON dl_deliveries FOR EACH ROW EXECUTE FUNCTION dl_deliveries_dropoff_redaction_only()`,
  ...indexes,
];

export const deliveryMigration0011DropoffRedaction: Migration = {
  version: 11,
  name: "dropoff_redaction",
  sqlite: sqlite(),
  postgres: postgres(),
};

