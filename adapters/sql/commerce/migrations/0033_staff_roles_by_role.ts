/**
 * Commerce migration 33: `shop_staff_roles_by_role (store_id, role, user_id)`. The realtime
 * consumer routes every event about an unassigned fulfillment task to the store's warehouse
 * operators and owners (core/commerce/FulfillmentChannels.ts); it reads each role's holders in
 * user order (`StoresRepository.holdersOfRole`), and the primary key (store_id, user_id, role) made
 * it read every staff role of the store. The index gives one role's holders, in order, and
 * covers the read (test/commerce/fulfillment-operators-plans.test.ts).
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX shop_staff_roles_by_role ON shop_staff_roles (store_id, role, user_id)`];

export const commerceMigration0033StaffRolesByRole: Migration = {
  version: 33,
  name: "staff_roles_by_role",
  sqlite: statements,
  postgres: statements,
};
