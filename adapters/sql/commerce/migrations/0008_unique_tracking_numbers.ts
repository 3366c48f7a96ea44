/**
 * Commerce migration 8: a carrier's tracking number names one parcel, so (carrier,
 * tracking_number) is unique among shipments (spec: tenant isolation; carrier updates are found
 * by carrier and tracking number across stores, and must never reach another store's shipment).
 * The unique index replaces migration 2's plain index on the same columns. A database that
 * already holds a number twice fails this migration: those shipments need an operator's look.
 */
import type { Migration } from "../../Migration.js";

const statements = [
  `DROP INDEX shop_shipments_tracking`,
  `CREATE UNIQUE INDEX shop_shipments_tracking_unique ON shop_shipments (carrier, tracking_number)`,
];

export const commerceMigration0008UniqueTrackingNumbers: Migration = {
  version: 8,
  name: "unique_tracking_numbers",
  sqlite: statements,
  postgres: statements,
};
