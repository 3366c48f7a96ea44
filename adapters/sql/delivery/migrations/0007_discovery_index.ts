/**
 * Delivery migration 7: discovery reads its candidates from one index. Every column the filter,
 * the distance and the order need (opening state, latitude band, longitude, service state, menu
 * version, service radius, id) is in `dl_restaurants_discovery`, so `listOpenNear` ranks the
 * restaurants of the band without reading their rows and then reads the rows of one page only.
 * It replaces `dl_restaurants_open_lat`, its prefix.
 */
import type { Migration } from "../../Migration.js";

const statements = [
  `CREATE INDEX dl_restaurants_discovery ON dl_restaurants (opening_state, lat, lng, service_state, menu_version, service_radius_m, id)`,
  `DROP INDEX dl_restaurants_open_lat`,
];

export const deliveryMigration0007DiscoveryIndex: Migration = {
  version: 7,
  name: "discovery_index",
  sqlite: statements,
  postgres: statements,
};
