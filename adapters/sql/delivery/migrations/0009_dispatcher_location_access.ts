/**
 * Delivery migration 9: the location access log also records dispatchers. A dispatcher reading
 * one delivery's drop-off (address and precise point) is audited like the customer's and the
 * courier's reads (spec: Authentication 2 and 4), so `viewer_role` may now be `dispatcher`.
 * SQLite cannot change a CHECK in place: the table is rebuilt with its rows and its append-only
 * triggers (dropping a table fires no delete trigger).
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const roles = `('customer', 'courier', 'dispatcher')`;

const statements = (dialect: SqlDialect): string[] => {
  if (dialect === "postgres") {
    return [
      `ALTER TABLE dl_location_access_log DROP CONSTRAINT dl_location_access_log_viewer_role_check`,
      `ALTER TABLE dl_location_access_log ADD CONSTRAINT dl_location_access_log_viewer_role_check CHECK (viewer_role IN ${roles})`,
    ];
  }
  const c = columnTypes(dialect);
  return [
    `CREATE TABLE dl_location_access_log_next (
      id ${c.text} PRIMARY KEY,
      delivery_id ${c.text} NOT NULL REFERENCES dl_deliveries (id),
      viewer_id ${c.text} NOT NULL,
      viewer_role ${c.text} NOT NULL CHECK (viewer_role IN ${roles}),
      at ${c.time} NOT NULL
    )`,
    `INSERT INTO dl_location_access_log_next (id, delivery_id, viewer_id, viewer_role, at) SELECT id, delivery_id, viewer_id, viewer_role, at FROM dl_location_access_log`,
    `DROP TABLE dl_location_access_log`,
    `ALTER TABLE dl_location_access_log_next RENAME TO dl_location_access_log`,
    ...appendOnlyTriggersSql(dialect, "dl_location_access_log"),
  ];
};

export const deliveryMigration0009DispatcherLocationAccess: Migration = {
  version: 9,
  name: "dispatcher_location_access",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
