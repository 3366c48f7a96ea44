/**
 * Delivery migration 12: the audit of restaurant staff removals (dl_staff_removals, append-only).
 * Removing a staff member takes away a restaurant's orders, settlement and channel from them
 * (spec: Authentication 2, "sensitive actions audited"); one row per removal, written in the
 * removal's transaction: the restaurant, the removed user, the actor, the reason and the time.
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return [
    `CREATE TABLE dl_staff_removals (
      id ${c.text} PRIMARY KEY,
      restaurant_id ${c.text} NOT NULL REFERENCES dl_restaurants (id),
      user_id ${c.text} NOT NULL,
      actor_id ${c.text} NOT NULL,
      reason ${c.text} NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
      at ${c.time} NOT NULL
    )`,
    `CREATE INDEX dl_staff_removals_restaurant ON dl_staff_removals (restaurant_id, at)`,
    ...appendOnlyTriggersSql(dialect, "dl_staff_removals"),
  ];
};

/** Version 12 of the delivery module. */
export const deliveryMigration0012StaffRemovals: Migration = {
  version: 12,
  name: "staff_removals",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
