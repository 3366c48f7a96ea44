/**
 * Commerce migration 2: shipments are found by carrier and tracking number (carrier webhooks and
 * tracking polls), and in-transit shipments are listed for the poll.
 */
import type { Migration } from "../../Migration.js";

const statements = [
  `CREATE INDEX shop_shipments_tracking ON shop_shipments (carrier, tracking_number)`,
  `CREATE INDEX shop_shipments_status ON shop_shipments (status, id)`,
];

export const commerceMigration0002ShipmentTracking: Migration = {
  version: 2,
  name: "shipment_tracking",
  sqlite: statements,
  postgres: statements,
};
