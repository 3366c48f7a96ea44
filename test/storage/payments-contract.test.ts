/**
 * Runs the contract kits of the payment module's repository ports against the SQLite and
 * Postgres adapters, each case on a fresh database migrated with the payment tables.
 */
import t from "tap";
import type { Layer } from "effect";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { StoragePorts } from "../../adapters/sql/storageLayer.js";
import { paymentsModule } from "../../hosts/modules/paymentsModule.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { paymentsKits, type AdapterFactory, type PaymentKitPorts } from "../contract/index.js";
import { dialects, openTestDatabase, type Dialect } from "../support/databases.js";
import { sqlCapabilities } from "../support/sqlAdapter.js";

/**
 * The one place this file opens a database: a fresh one of `dialect` with the payment tables.
 * (the payments module's migrations only).
 */
const openPaymentsDatabase = (dialect: Dialect, t: { readonly teardown: (fn: () => unknown) => unknown }): Promise<SqlDatabase> =>
  openTestDatabase(dialect, t, [paymentsModule]);

/** Every payment repository port over `db`, as the module's SQL Layer provides them, with the storage ports. */
const sqlPaymentRepositories = (db: SqlDatabase): Layer.Layer<PaymentKitPorts | StoragePorts> => moduleLayer(db, [paymentsModule]);

/** A kit factory: a fresh database per case, closed and dropped after it. */
const sqlPaymentsFactory =
  (dialect: Dialect): AdapterFactory<PaymentKitPorts | StoragePorts> =>
  async () => {
    const teardowns: Array<() => unknown> = [];
    const db = await openPaymentsDatabase(dialect, { teardown: (fn) => teardowns.push(fn) });
    return {
      layer: sqlPaymentRepositories(db),
      close: async () => {
        for (const fn of teardowns.reverse()) await fn();
      },
    };
  };

for (const dialect of dialects) {
  for (const [name, suite] of Object.entries(paymentsKits)) {
    t.test(`payments ${name} contract [${dialect}]`, (t) =>
      suite({ test: (name, fn) => t.test(name, fn), factory: sqlPaymentsFactory(dialect), supports: sqlCapabilities(dialect) }),
    );
  }
}
