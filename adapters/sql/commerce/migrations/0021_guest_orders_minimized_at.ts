/**
 * Commerce migration 21: when a guest order's personal data was minimized (spec, E-commerce:
 * "Stored addresses are minimized ... and guest data has retention"). Retention marked a
 * minimized order only by its e-mail being gone, so a guest order placed without an e-mail was
 * never minimized and kept its full address. `minimized_at` marks it now; orders minimized before
 * have none and are minimized once more (the same result: the address reduced to its country).
 * The partial index serves retention's walk over the guest orders still to minimize.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => [
  `ALTER TABLE shop_orders ADD COLUMN minimized_at ${columnTypes(dialect).time}`,
  `CREATE INDEX shop_orders_guests_to_minimize ON shop_orders (updated_at) WHERE customer_id IS NULL AND minimized_at IS NULL`,
];

export const commerceMigration0021GuestOrdersMinimizedAt: Migration = {
  version: 21,
  name: "guest_orders_minimized_at",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
