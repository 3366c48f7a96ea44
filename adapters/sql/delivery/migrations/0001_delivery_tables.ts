/**
 * Delivery migration 1: every table of the food delivery module (prefix `dl_`), with the
 * specification's column rules as constraints:
 * - immutable orders, order lines, quotes, menus and menu items, settlement entries and the
 *   delivery status history (append-only triggers);
 * - one delivery per order (UNIQUE order_id), one accepted offer per delivery (partial unique
 *   index), one offer per courier and delivery;
 * - a delivery's status only moves forward and its version only grows (trigger); a pending
 *   delivery has no courier and an assigned one has one (CHECK);
 * - a terminal order workflow (rejected, cancelled, completed) never changes status (trigger);
 * - totals = subtotal + delivery fee + service fee + tax, quotes expire after they are made;
 * - each settlement component key is unique, amounts are non-zero, a reversal links to the
 *   entry it undoes and an entry is reversed at most once; on Postgres an order's entries must
 *   balance per currency at commit (deferred constraint trigger);
 * - tenant keys in composite foreign keys (a delivery's restaurant is its order's restaurant).
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const deliveryRank = (column: string): string =>
  `CASE ${column} WHEN 'pending' THEN 0 WHEN 'assigned' THEN 1 WHEN 'picked_up' THEN 2 WHEN 'delivered' THEN 3 WHEN 'cancelled' THEN 4 END`;

const forwardOnlySqlite = [
  `CREATE TRIGGER dl_deliveries_forward_only BEFORE UPDATE ON dl_deliveries
   WHEN ${deliveryRank("NEW.status")} < ${deliveryRank("OLD.status")}
     OR (OLD.status IN ('delivered', 'cancelled') AND NEW.status <> OLD.status)
     OR NEW.version < OLD.version
   BEGIN SELECT RAISE(ABORT, 'dl_deliveries status moves only forward'); END`,
  `CREATE TRIGGER dl_restaurant_orders_terminal BEFORE UPDATE OF status ON dl_restaurant_orders
   WHEN OLD.status IN ('rejected', 'cancelled', 'completed') AND NEW.status <> OLD.status
   BEGIN SELECT RAISE(ABORT, 'dl_restaurant_orders: a terminal order never changes status'); END`,
];

const forwardOnlyPostgres = [
  `CREATE FUNCTION dl_deliveries_forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF (${deliveryRank("NEW.status")}) < (${deliveryRank("OLD.status")})
        OR (OLD.status IN ('delivered', 'cancelled') AND NEW.status <> OLD.status)
        OR NEW.version < OLD.version THEN
       RAISE EXCEPTION 'dl_deliveries status moves only forward' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER dl_deliveries_forward_only BEFORE UPDATE ON dl_deliveries FOR EACH ROW EXECUTE FUNCTION dl_deliveries_forward_only()`,
  `CREATE FUNCTION dl_restaurant_orders_terminal() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF OLD.status IN ('rejected', 'cancelled', 'completed') AND NEW.status <> OLD.status THEN
       RAISE EXCEPTION 'dl_restaurant_orders: a terminal order never changes status' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER dl_restaurant_orders_terminal BEFORE UPDATE ON dl_restaurant_orders FOR EACH ROW EXECUTE FUNCTION dl_restaurant_orders_terminal()`,
  // Postgres also checks at commit that an order's settlement entries balance per currency
  // (SQLite cannot defer a check; there the kernel Ledger's validation before posting holds it).
  `CREATE FUNCTION dl_settlement_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF (SELECT sum(amount_minor) FROM dl_settlement_entries WHERE order_id = NEW.order_id AND currency = NEW.currency) <> 0 THEN
       RAISE EXCEPTION 'dl_settlement_entries of order % do not balance in %', NEW.order_id, NEW.currency USING ERRCODE = 'check_violation';
     END IF;
     RETURN NULL;
   END $$`,
  `CREATE CONSTRAINT TRIGGER dl_settlement_balanced AFTER INSERT ON dl_settlement_entries
   DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION dl_settlement_balanced()`,
];

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  const real = dialect === "sqlite" ? "REAL" : "double precision";
  const lat = (name: string, nullable = false) => `${name} ${real} ${nullable ? "" : "NOT NULL"} CHECK (${name} BETWEEN -90 AND 90)`;
  const lng = (name: string, nullable = false) => `${name} ${real} ${nullable ? "" : "NOT NULL"} CHECK (${name} BETWEEN -180 AND 180)`;
  const money = (name: string) => `${name} ${c.bigint} NOT NULL CHECK (${name} >= 0)`;
  // The columns of core/delivery/model/PriceSnapshot.ts, shared by quotes and orders.
  const priceSnapshot = [
    lat("dropoff_lat"),
    lng("dropoff_lng"),
    `dropoff_address ${c.text} NOT NULL`,
    ...["subtotal_minor", "delivery_fee_minor", "service_fee_minor", "tax_minor", "total_minor"].map(money),
    `currency ${c.text} NOT NULL CHECK (length(currency) = 3)`,
  ].join(",\n      ");
  const totals = `CHECK (total_minor = subtotal_minor + delivery_fee_minor + service_fee_minor + tax_minor)`;
  return [
    `CREATE TABLE dl_restaurants (
      id ${c.text} PRIMARY KEY,
      name ${c.text} NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      ${lat("lat")},
      ${lng("lng")},
      service_radius_m ${c.int} NOT NULL CHECK (service_radius_m > 0),
      currency ${c.text} NOT NULL CHECK (length(currency) = 3),
      opening_state ${c.text} NOT NULL CHECK (opening_state IN ('open', 'closed')),
      service_state ${c.text} NOT NULL CHECK (service_state IN ('active', 'suspended')),
      merchant_id ${c.text} NOT NULL,
      menu_version ${c.int} NOT NULL CHECK (menu_version >= 0),
      created_by ${c.text} NOT NULL,
      created_at ${c.time} NOT NULL,
      version ${c.int} NOT NULL CHECK (version >= 1)
    )`,
    // Discovery seeks open restaurants by a latitude band around the point.
    `CREATE INDEX dl_restaurants_open_lat ON dl_restaurants (opening_state, lat)`,
    `CREATE TABLE dl_restaurant_staff (
      restaurant_id ${c.text} NOT NULL REFERENCES dl_restaurants (id),
      user_id ${c.text} NOT NULL,
      added_by ${c.text} NOT NULL,
      created_at ${c.time} NOT NULL,
      PRIMARY KEY (restaurant_id, user_id)
    )`,
    `CREATE INDEX dl_restaurant_staff_user ON dl_restaurant_staff (user_id)`,
    `CREATE TABLE dl_menus (
      restaurant_id ${c.text} NOT NULL REFERENCES dl_restaurants (id),
      version ${c.int} NOT NULL CHECK (version >= 1),
      published_by ${c.text} NOT NULL,
      published_at ${c.time} NOT NULL,
      PRIMARY KEY (restaurant_id, version)
    )`,
    `CREATE TABLE dl_menu_items (
      restaurant_id ${c.text} NOT NULL,
      menu_version ${c.int} NOT NULL,
      id ${c.text} NOT NULL,
      position ${c.int} NOT NULL,
      name ${c.text} NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      price_minor ${c.bigint} NOT NULL CHECK (price_minor >= 0),
      modifiers ${c.json} NOT NULL,
      PRIMARY KEY (restaurant_id, menu_version, id),
      FOREIGN KEY (restaurant_id, menu_version) REFERENCES dl_menus (restaurant_id, version)
    )`,
    `CREATE INDEX dl_menu_items_item ON dl_menu_items (restaurant_id, id)`,
    `CREATE TABLE dl_item_availability (
      restaurant_id ${c.text} NOT NULL REFERENCES dl_restaurants (id),
      item_id ${c.text} NOT NULL,
      available ${c.bool} NOT NULL,
      updated_at ${c.time} NOT NULL,
      PRIMARY KEY (restaurant_id, item_id)
    )`,
    `CREATE TABLE dl_quotes (
      id ${c.text} PRIMARY KEY,
      customer_id ${c.text} NOT NULL,
      restaurant_id ${c.text} NOT NULL,
      menu_version ${c.int} NOT NULL,
      lines ${c.json} NOT NULL,
      ${priceSnapshot},
      expires_at ${c.time} NOT NULL,
      created_at ${c.time} NOT NULL,
      ${totals},
      CHECK (expires_at > created_at),
      FOREIGN KEY (restaurant_id, menu_version) REFERENCES dl_menus (restaurant_id, version)
    )`,
    `CREATE TABLE dl_orders (
      id ${c.text} PRIMARY KEY,
      customer_id ${c.text} NOT NULL,
      restaurant_id ${c.text} NOT NULL REFERENCES dl_restaurants (id),
      quote_id ${c.text} NOT NULL UNIQUE REFERENCES dl_quotes (id),
      menu_version ${c.int} NOT NULL,
      merchant_id ${c.text} NOT NULL,
      ${priceSnapshot},
      placed_at ${c.time} NOT NULL,
      ${totals},
      UNIQUE (id, restaurant_id),
      UNIQUE (id, customer_id)
    )`,
    `CREATE INDEX dl_orders_customer ON dl_orders (customer_id, placed_at)`,
    `CREATE TABLE dl_order_lines (
      order_id ${c.text} NOT NULL REFERENCES dl_orders (id),
      line_no ${c.int} NOT NULL CHECK (line_no >= 1),
      item_id ${c.text} NOT NULL,
      name ${c.text} NOT NULL,
      quantity ${c.int} NOT NULL CHECK (quantity BETWEEN 1 AND 99),
      ${money("unit_price_minor")},
      modifiers ${c.json} NOT NULL,
      ${money("tax_minor")},
      ${money("line_total_minor")},
      PRIMARY KEY (order_id, line_no),
      CHECK (line_total_minor = unit_price_minor * quantity)
    )`,
    `CREATE TABLE dl_restaurant_orders (
      order_id ${c.text} PRIMARY KEY,
      restaurant_id ${c.text} NOT NULL,
      customer_id ${c.text} NOT NULL,
      status ${c.text} NOT NULL CHECK (status IN ('payment_pending', 'authorized', 'accepted', 'rejected', 'cancelled', 'completed')),
      payment_state ${c.text} NOT NULL CHECK (payment_state IN ('pending', 'authorized', 'declined', 'capture_pending', 'captured', 'void_pending', 'voided')),
      payment_id ${c.text},
      prep_time_minutes ${c.int} CHECK (prep_time_minutes BETWEEN 1 AND 240),
      reason ${c.text},
      accept_deadline ${c.time} NOT NULL,
      delivery_id ${c.text},
      version ${c.int} NOT NULL CHECK (version >= 1),
      updated_at ${c.time} NOT NULL,
      FOREIGN KEY (order_id, restaurant_id) REFERENCES dl_orders (id, restaurant_id),
      FOREIGN KEY (order_id, customer_id) REFERENCES dl_orders (id, customer_id),
      CHECK (status <> 'accepted' OR (prep_time_minutes IS NOT NULL AND delivery_id IS NOT NULL)),
      CHECK (status NOT IN ('rejected', 'cancelled') OR reason IS NOT NULL)
    )`,
    `CREATE INDEX dl_restaurant_orders_restaurant ON dl_restaurant_orders (restaurant_id, status)`,
    `CREATE TABLE dl_couriers (
      id ${c.text} PRIMARY KEY,
      user_id ${c.text} NOT NULL UNIQUE,
      name ${c.text} NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      online ${c.bool} NOT NULL,
      ${lat("lat", true)},
      ${lng("lng", true)},
      located_at ${c.time},
      created_at ${c.time} NOT NULL,
      CHECK ((lat IS NULL) = (lng IS NULL) AND (lat IS NULL) = (located_at IS NULL))
    )`,
    `CREATE TABLE dl_deliveries (
      id ${c.text} PRIMARY KEY,
      order_id ${c.text} NOT NULL UNIQUE,
      restaurant_id ${c.text} NOT NULL,
      customer_id ${c.text} NOT NULL,
      courier_id ${c.text} REFERENCES dl_couriers (id),
      status ${c.text} NOT NULL CHECK (status IN ('pending', 'assigned', 'picked_up', 'delivered', 'cancelled')),
      version ${c.int} NOT NULL CHECK (version >= 1),
      ${lat("pickup_lat")},
      ${lng("pickup_lng")},
      ${lat("dropoff_lat")},
      ${lng("dropoff_lng")},
      dropoff_address ${c.text} NOT NULL,
      created_at ${c.time} NOT NULL,
      updated_at ${c.time} NOT NULL,
      FOREIGN KEY (order_id, restaurant_id) REFERENCES dl_orders (id, restaurant_id),
      FOREIGN KEY (order_id, customer_id) REFERENCES dl_orders (id, customer_id),
      CHECK ((status = 'pending' AND courier_id IS NULL) OR (status IN ('assigned', 'picked_up', 'delivered') AND courier_id IS NOT NULL) OR status = 'cancelled')
    )`,
    `CREATE INDEX dl_deliveries_courier ON dl_deliveries (courier_id, status)`,
    `CREATE TABLE dl_delivery_status_changes (
      delivery_id ${c.text} NOT NULL REFERENCES dl_deliveries (id),
      transition_id ${c.text} NOT NULL CHECK (length(transition_id) BETWEEN 1 AND 200),
      from_status ${c.text},
      to_status ${c.text} NOT NULL,
      version ${c.int} NOT NULL,
      actor_id ${c.text} NOT NULL,
      reason ${c.text},
      at ${c.time} NOT NULL,
      PRIMARY KEY (delivery_id, transition_id),
      UNIQUE (delivery_id, version)
    )`,
    `CREATE TABLE dl_courier_offers (
      id ${c.text} PRIMARY KEY,
      delivery_id ${c.text} NOT NULL REFERENCES dl_deliveries (id),
      courier_id ${c.text} NOT NULL REFERENCES dl_couriers (id),
      status ${c.text} NOT NULL CHECK (status IN ('offered', 'accepted', 'lost', 'expired')),
      round ${c.int} NOT NULL CHECK (round >= 1),
      expires_at ${c.time} NOT NULL,
      created_at ${c.time} NOT NULL,
      decided_at ${c.time},
      UNIQUE (delivery_id, courier_id),
      CHECK (expires_at > created_at),
      CHECK ((status = 'offered') = (decided_at IS NULL))
    )`,
    `CREATE UNIQUE INDEX dl_courier_offers_one_accepted ON dl_courier_offers (delivery_id) WHERE status = 'accepted'`,
    `CREATE INDEX dl_courier_offers_courier ON dl_courier_offers (courier_id, status, expires_at)`,
    `CREATE TABLE dl_settlement_entries (
      id ${c.text} PRIMARY KEY,
      order_id ${c.text} NOT NULL REFERENCES dl_orders (id),
      delivery_id ${c.text} NOT NULL REFERENCES dl_deliveries (id),
      component ${c.text} NOT NULL CHECK (component IN ('customer_charge', 'restaurant_payable', 'courier_payable', 'platform_fee')),
      component_key ${c.text} NOT NULL UNIQUE,
      account ${c.text} NOT NULL,
      amount_minor ${c.bigint} NOT NULL CHECK (amount_minor <> 0),
      currency ${c.text} NOT NULL CHECK (length(currency) = 3),
      reverses ${c.text} UNIQUE REFERENCES dl_settlement_entries (component_key),
      actor_id ${c.text} NOT NULL,
      reason ${c.text},
      created_at ${c.time} NOT NULL,
      CHECK (reverses IS NULL OR reason IS NOT NULL)
    )`,
    // Precise positions, sealed (AES-256-GCM) by the adapter; deleted by the retention job.
    `CREATE TABLE dl_location_samples (
      id ${c.text} PRIMARY KEY,
      courier_id ${c.text} NOT NULL REFERENCES dl_couriers (id),
      sealed ${c.bytes} NOT NULL,
      recorded_at ${c.time} NOT NULL,
      received_at ${c.time} NOT NULL
    )`,
    `CREATE INDEX dl_location_samples_courier ON dl_location_samples (courier_id, recorded_at)`,
    `CREATE INDEX dl_location_samples_recorded ON dl_location_samples (recorded_at)`,
    `CREATE TABLE dl_location_access_log (
      id ${c.text} PRIMARY KEY,
      delivery_id ${c.text} NOT NULL REFERENCES dl_deliveries (id),
      viewer_id ${c.text} NOT NULL,
      viewer_role ${c.text} NOT NULL CHECK (viewer_role IN ('customer', 'courier')),
      at ${c.time} NOT NULL
    )`,
    `CREATE INDEX dl_settlement_entries_order ON dl_settlement_entries (order_id)`,
    ...(dialect === "sqlite" ? forwardOnlySqlite : forwardOnlyPostgres),
    ...["dl_menus", "dl_menu_items", "dl_quotes", "dl_orders", "dl_order_lines", "dl_delivery_status_changes", "dl_settlement_entries", "dl_location_access_log"].flatMap((table) =>
      appendOnlyTriggersSql(dialect, table),
    ),
  ];
};

/** Version 1 of the delivery module. */
export const deliveryMigration0001: Migration = {
  version: 1,
  name: "delivery_tables",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
