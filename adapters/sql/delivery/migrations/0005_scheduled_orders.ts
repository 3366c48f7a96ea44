/**
 * Delivery migration 5: scheduled orders. The delivery slot of a quote and of its order snapshot
 * (`scheduled_for`, null: as soon as possible), copied onto the order's workflow row so the
 * kitchen's list shows it. Adding a column is no UPDATE: the append-only triggers stand.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return ["dl_quotes", "dl_orders", "dl_restaurant_orders"].map((table) => `ALTER TABLE ${table} ADD COLUMN scheduled_for ${c.time}`);
};

export const deliveryMigration0005ScheduledOrders: Migration = {
  version: 5,
  name: "scheduled_orders",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
