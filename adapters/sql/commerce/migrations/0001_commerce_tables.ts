/**
 * Commerce migration 1: the module's tables (prefix `shop_`). The store is the tenant: every row
 * carries store_id and every reference is composite (store_id, id), so no row can point into
 * another store. The specification's column rules are constraints: `reserved` between 0 and
 * `on_hand`, quantities > 0, prices and totals ≥ 0, `payment_intent_ref` unique, SKU unique per
 * store, statuses from their lists; an order's shipping address and e-mail are stored sealed
 * (AES-256-GCM text naming its key, adapters/sql/commerce/fieldSealer.ts); order lines, the order timeline and stock adjustments are
 * append-only (the database refuses UPDATE and DELETE). Consumers keep event receipts
 * (unique per consumer and event), so a redelivered OrderConfirmed creates no second task.
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const list = (values: ReadonlyArray<string>): string => values.map((v) => `'${v}'`).join(", ");

/**
 * Catalog full-text search over title and description: an FTS5 table kept by triggers on SQLite,
 * an expression GIN index (`simple` configuration) on Postgres.
 */
const productSearch = (dialect: SqlDialect): string[] =>
  dialect === "sqlite"
    ? [
        `CREATE VIRTUAL TABLE shop_product_search USING fts5(product_id UNINDEXED, body)`,
        `CREATE TRIGGER shop_product_search_insert AFTER INSERT ON shop_products BEGIN ` +
          `INSERT INTO shop_product_search (product_id, body) VALUES (new.id, new.title || ' ' || coalesce(new.description, '')); END`,
        `CREATE TRIGGER shop_product_search_update AFTER UPDATE OF title, description ON shop_products BEGIN ` +
          `DELETE FROM shop_product_search WHERE product_id = old.id; ` +
          `INSERT INTO shop_product_search (product_id, body) VALUES (new.id, new.title || ' ' || coalesce(new.description, '')); END`,
      ]
    : [
        `CREATE INDEX shop_products_search ON shop_products USING gin (to_tsvector('simple', title || ' ' || coalesce(description, '')))`,
      ];

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return [
    `CREATE TABLE shop_stores (
      id ${c.text} PRIMARY KEY,
      name ${c.text} NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      currency ${c.text} NOT NULL CHECK (length(currency) = 3),
      owner_id ${c.text} NOT NULL,
      merchant_id ${c.text} NOT NULL,
      tax_rate_basis_points ${c.int} NOT NULL CHECK (tax_rate_basis_points BETWEEN 0 AND 10000),
      created_at ${c.time} NOT NULL
    )`,
    `CREATE TABLE shop_staff_roles (
      store_id ${c.text} NOT NULL REFERENCES shop_stores (id),
      user_id ${c.text} NOT NULL,
      role ${c.text} NOT NULL CHECK (role IN (${list(["owner", "catalog_manager", "warehouse_operator", "support"])})),
      granted_by ${c.text} NOT NULL,
      created_at ${c.time} NOT NULL,
      PRIMARY KEY (store_id, user_id, role)
    )`,
    `CREATE TABLE shop_locations (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL REFERENCES shop_stores (id),
      name ${c.text} NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      created_at ${c.time} NOT NULL,
      UNIQUE (store_id, id)
    )`,
    `CREATE TABLE shop_products (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL REFERENCES shop_stores (id),
      title ${c.text} NOT NULL CHECK (length(title) BETWEEN 1 AND 500),
      description ${c.text},
      created_at ${c.time} NOT NULL,
      UNIQUE (store_id, id)
    )`,
    ...productSearch(dialect),
    `CREATE TABLE shop_variants (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL,
      product_id ${c.text} NOT NULL,
      sku ${c.text} NOT NULL CHECK (length(sku) BETWEEN 1 AND 100),
      status ${c.text} NOT NULL CHECK (status IN (${list(["active", "inactive", "archived"])})),
      price_minor ${c.bigint} NOT NULL CHECK (price_minor >= 0),
      currency ${c.text} NOT NULL CHECK (length(currency) = 3),
      version ${c.int} NOT NULL CHECK (version > 0),
      updated_at ${c.time} NOT NULL,
      UNIQUE (store_id, sku),
      UNIQUE (store_id, id),
      FOREIGN KEY (store_id, product_id) REFERENCES shop_products (store_id, id)
    )`,
    `CREATE INDEX shop_variants_product ON shop_variants (product_id)`,
    `CREATE TABLE shop_inventory (
      store_id ${c.text} NOT NULL,
      variant_id ${c.text} NOT NULL,
      location_id ${c.text} NOT NULL,
      on_hand ${c.int} NOT NULL CHECK (on_hand >= 0),
      reserved ${c.int} NOT NULL CHECK (reserved >= 0 AND reserved <= on_hand),
      version ${c.int} NOT NULL CHECK (version > 0),
      updated_at ${c.time} NOT NULL,
      PRIMARY KEY (variant_id, location_id),
      FOREIGN KEY (store_id, variant_id) REFERENCES shop_variants (store_id, id),
      FOREIGN KEY (store_id, location_id) REFERENCES shop_locations (store_id, id)
    )`,
    `CREATE TABLE shop_stock_adjustments (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL,
      variant_id ${c.text} NOT NULL,
      location_id ${c.text} NOT NULL,
      delta ${c.int} NOT NULL CHECK (delta <> 0),
      reason ${c.text} NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
      actor_id ${c.text} NOT NULL,
      created_at ${c.time} NOT NULL,
      FOREIGN KEY (store_id, variant_id) REFERENCES shop_variants (store_id, id),
      FOREIGN KEY (store_id, location_id) REFERENCES shop_locations (store_id, id)
    )`,
    ...appendOnlyTriggersSql(dialect, "shop_stock_adjustments"),
    `CREATE TABLE shop_carts (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL REFERENCES shop_stores (id),
      customer_id ${c.text},
      token_hash ${c.text} UNIQUE,
      status ${c.text} NOT NULL CHECK (status IN (${list(["open", "checked_out"])})),
      version ${c.int} NOT NULL CHECK (version > 0),
      created_at ${c.time} NOT NULL,
      updated_at ${c.time} NOT NULL,
      CHECK (customer_id IS NOT NULL OR token_hash IS NOT NULL),
      UNIQUE (store_id, id)
    )`,
    `CREATE INDEX shop_carts_updated ON shop_carts (updated_at)`,
    `CREATE TABLE shop_cart_lines (
      store_id ${c.text} NOT NULL,
      cart_id ${c.text} NOT NULL,
      variant_id ${c.text} NOT NULL,
      quantity ${c.int} NOT NULL CHECK (quantity > 0 AND quantity <= 1000),
      added_at ${c.time} NOT NULL,
      PRIMARY KEY (cart_id, variant_id),
      FOREIGN KEY (store_id, cart_id) REFERENCES shop_carts (store_id, id) ON DELETE CASCADE,
      FOREIGN KEY (store_id, variant_id) REFERENCES shop_variants (store_id, id)
    )`,
    `CREATE TABLE shop_orders (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL REFERENCES shop_stores (id),
      customer_id ${c.text},
      cart_id ${c.text} NOT NULL,
      status ${c.text} NOT NULL CHECK (status IN (${list([
        "pending",
        "payment_pending",
        "confirmed",
        "failed",
        "expired",
        "cancellation_requested",
        "cancelled",
        "dispatched",
      ])})),
      currency ${c.text} NOT NULL CHECK (length(currency) = 3),
      subtotal_minor ${c.bigint} NOT NULL CHECK (subtotal_minor >= 0),
      discount_minor ${c.bigint} NOT NULL CHECK (discount_minor >= 0 AND discount_minor <= subtotal_minor),
      tax_minor ${c.bigint} NOT NULL CHECK (tax_minor >= 0),
      total_minor ${c.bigint} NOT NULL CHECK (total_minor >= 0),
      payment_intent_ref ${c.text} UNIQUE,
      email ${c.text},
      shipping_address ${c.text} NOT NULL,
      version ${c.int} NOT NULL CHECK (version > 0),
      created_at ${c.time} NOT NULL,
      updated_at ${c.time} NOT NULL,
      UNIQUE (store_id, id)
    )`,
    `CREATE INDEX shop_orders_customer ON shop_orders (customer_id, id)`,
    `CREATE TABLE shop_order_lines (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL,
      order_id ${c.text} NOT NULL,
      variant_id ${c.text} NOT NULL,
      sku ${c.text} NOT NULL,
      quantity ${c.int} NOT NULL CHECK (quantity > 0),
      unit_price_minor ${c.bigint} NOT NULL CHECK (unit_price_minor >= 0),
      discount_minor ${c.bigint} NOT NULL CHECK (discount_minor >= 0),
      tax_minor ${c.bigint} NOT NULL CHECK (tax_minor >= 0),
      total_minor ${c.bigint} NOT NULL CHECK (total_minor >= 0),
      UNIQUE (order_id, id),
      FOREIGN KEY (store_id, order_id) REFERENCES shop_orders (store_id, id),
      FOREIGN KEY (store_id, variant_id) REFERENCES shop_variants (store_id, id)
    )`,
    ...appendOnlyTriggersSql(dialect, "shop_order_lines"),
    `CREATE TABLE shop_order_timeline (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL,
      order_id ${c.text} NOT NULL,
      kind ${c.text} NOT NULL,
      actor_id ${c.text} NOT NULL,
      detail ${c.json} NOT NULL,
      created_at ${c.time} NOT NULL,
      FOREIGN KEY (store_id, order_id) REFERENCES shop_orders (store_id, id)
    )`,
    `CREATE INDEX shop_order_timeline_order ON shop_order_timeline (order_id, id)`,
    ...appendOnlyTriggersSql(dialect, "shop_order_timeline"),
    `CREATE TABLE shop_reservations (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL,
      order_id ${c.text} NOT NULL,
      variant_id ${c.text} NOT NULL,
      location_id ${c.text} NOT NULL,
      quantity ${c.int} NOT NULL CHECK (quantity > 0),
      status ${c.text} NOT NULL CHECK (status IN (${list(["active", "committed", "consumed", "released"])})),
      expires_at ${c.time} NOT NULL,
      created_at ${c.time} NOT NULL,
      updated_at ${c.time} NOT NULL,
      UNIQUE (order_id, variant_id, location_id),
      FOREIGN KEY (store_id, order_id) REFERENCES shop_orders (store_id, id),
      FOREIGN KEY (variant_id, location_id) REFERENCES shop_inventory (variant_id, location_id)
    )`,
    `CREATE INDEX shop_reservations_order ON shop_reservations (order_id)`,
    `CREATE TABLE shop_order_payments (
      order_id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL,
      merchant_id ${c.text} NOT NULL,
      payment_id ${c.text} UNIQUE,
      idempotency_key ${c.text} NOT NULL UNIQUE,
      payment_method ${c.text} NOT NULL,
      status ${c.text} NOT NULL CHECK (status IN (${list(["authorizing", "unknown", "authorized", "declined", "voided", "captured", "refunded"])})),
      amount_minor ${c.bigint} NOT NULL CHECK (amount_minor >= 0),
      captured_minor ${c.bigint} NOT NULL CHECK (captured_minor >= 0 AND captured_minor <= amount_minor),
      refunded_minor ${c.bigint} NOT NULL CHECK (refunded_minor >= 0 AND refunded_minor <= captured_minor),
      updated_at ${c.time} NOT NULL,
      FOREIGN KEY (store_id, order_id) REFERENCES shop_orders (store_id, id)
    )`,
    `CREATE TABLE shop_checkout_requests (
      store_id ${c.text} NOT NULL REFERENCES shop_stores (id),
      scope ${c.text} NOT NULL,
      idempotency_key ${c.text} NOT NULL CHECK (length(idempotency_key) BETWEEN 1 AND 255),
      payload_hash ${c.text} NOT NULL,
      order_id ${c.text} NOT NULL,
      created_at ${c.time} NOT NULL,
      PRIMARY KEY (scope, idempotency_key)
    )`,
    `CREATE TABLE shop_shipments (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL,
      order_id ${c.text} NOT NULL,
      location_id ${c.text} NOT NULL,
      status ${c.text} NOT NULL CHECK (status IN (${list(["pending", "dispatched", "delivered"])})),
      carrier ${c.text},
      tracking_number ${c.text},
      amount_minor ${c.bigint} NOT NULL CHECK (amount_minor >= 0),
      dispatched_at ${c.time},
      created_at ${c.time} NOT NULL,
      CHECK (status = 'pending' OR (carrier IS NOT NULL AND tracking_number IS NOT NULL AND dispatched_at IS NOT NULL)),
      FOREIGN KEY (store_id, order_id) REFERENCES shop_orders (store_id, id),
      FOREIGN KEY (store_id, location_id) REFERENCES shop_locations (store_id, id)
    )`,
    `CREATE INDEX shop_shipments_order ON shop_shipments (order_id)`,
    `CREATE TABLE shop_returns (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL,
      order_id ${c.text} NOT NULL,
      status ${c.text} NOT NULL CHECK (status IN (${list(["authorized", "received", "restocked", "quarantined", "refund_requested", "closed"])})),
      reason ${c.text} NOT NULL CHECK (length(reason) BETWEEN 1 AND 1000),
      lines ${c.json} NOT NULL,
      refund_minor ${c.bigint} NOT NULL CHECK (refund_minor >= 0),
      version ${c.int} NOT NULL CHECK (version > 0),
      created_at ${c.time} NOT NULL,
      updated_at ${c.time} NOT NULL,
      FOREIGN KEY (store_id, order_id) REFERENCES shop_orders (store_id, id)
    )`,
    `CREATE INDEX shop_returns_order ON shop_returns (order_id)`,
    `CREATE TABLE shop_event_receipts (
      consumer ${c.text} NOT NULL,
      event_id ${c.text} NOT NULL,
      received_at ${c.time} NOT NULL,
      PRIMARY KEY (consumer, event_id)
    )`,
    `CREATE TABLE shop_fulfillment_tasks (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL,
      order_id ${c.text} NOT NULL UNIQUE,
      status ${c.text} NOT NULL CHECK (status IN (${list(["open", "done"])})),
      created_at ${c.time} NOT NULL,
      FOREIGN KEY (store_id, order_id) REFERENCES shop_orders (store_id, id)
    )`,
    `CREATE INDEX shop_fulfillment_tasks_open ON shop_fulfillment_tasks (store_id, status, id)`,
    `CREATE TABLE shop_promotions (
      id ${c.text} PRIMARY KEY,
      store_id ${c.text} NOT NULL REFERENCES shop_stores (id),
      code ${c.text},
      kind ${c.text} NOT NULL CHECK (kind IN (${list(["percentage", "fixed_amount"])})),
      value ${c.bigint} NOT NULL CHECK (value > 0 AND (kind <> 'percentage' OR value <= 100)),
      automatic ${c.bool} NOT NULL,
      starts_at ${c.time} NOT NULL,
      ends_at ${c.time},
      usage_limit ${c.int} CHECK (usage_limit > 0),
      usage_count ${c.int} NOT NULL CHECK (usage_count >= 0 AND (usage_limit IS NULL OR usage_count <= usage_limit)),
      created_at ${c.time} NOT NULL,
      CHECK (automatic OR code IS NOT NULL),
      CHECK (ends_at IS NULL OR ends_at > starts_at),
      UNIQUE (store_id, code)
    )`,
  ];
};

/** Migration 1 of the e-commerce module. */
export const commerceMigration0001Tables: Migration = {
  version: 1,
  name: "commerce_tables",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
