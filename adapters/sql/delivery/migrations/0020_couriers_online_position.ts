/**
 * Delivery migration 20: a dispatch round seeks the online couriers near the pickup. Candidates
 * lie within DELIVERY_DISPATCH_RADIUS_M of it (adapters/sql/delivery/SqlDispatchRepository.ts
 * `candidates`), so the round reads the latitude band of that radius from this index instead of
 * every online courier.
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX dl_couriers_online_position ON dl_couriers (lat, lng) WHERE online`];

export const deliveryMigration0020CouriersOnlinePosition: Migration = {
  version: 20,
  name: "couriers_online_position",
  sqlite: statements,
  postgres: statements,
};
