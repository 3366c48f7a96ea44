/**
 * Runs the contract kits of the e-commerce module's repository ports against the SQLite and
 * Postgres adapters, each case on a fresh database migrated with the payment and commerce tables.
 */
import t from "tap";
import { Effect, type Layer } from "effect";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { StoragePorts } from "../../adapters/sql/storageLayer.js";
import { compose } from "../../hosts/Composition.js";
import { makeCommerceModule } from "../../hosts/modules/commerceModule.js";
import { paymentsModule } from "../../hosts/modules/paymentsModule.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { commerceKits, type AdapterFactory, type CommerceKitPorts } from "../contract/index.js";
import { dialects, openTestDatabase, type Dialect } from "../support/databases.js";
import { sqlCapabilities } from "../support/sqlAdapter.js";

const commerceModule = makeCommerceModule({ mailer: { send: () => Effect.dieMessage("the kits send no mail") } });
// The commerce module composes after the payment module (its in-process payment bindings use its ports).
const modules = compose().add(paymentsModule).add(commerceModule);

/** Every commerce repository port over `db`, as the module's SQL Layer provides them, with the storage ports. */
const sqlCommerceRepositories = (db: SqlDatabase): Layer.Layer<CommerceKitPorts | StoragePorts> => moduleLayer(db, modules);

/** A kit factory: a fresh database per case, closed and dropped after it. */
const sqlCommerceFactory =
  (dialect: Dialect): AdapterFactory<CommerceKitPorts | StoragePorts> =>
  async () => {
    const teardowns: Array<() => unknown> = [];
    const db = await openTestDatabase(dialect, { teardown: (fn) => teardowns.push(fn) }, [paymentsModule, commerceModule]);
    return {
      layer: sqlCommerceRepositories(db),
      close: async () => {
        for (const fn of teardowns.reverse()) await fn();
      },
    };
  };

for (const dialect of dialects) {
  for (const [name, suite] of Object.entries(commerceKits)) {
    t.test(`commerce ${name} contract [${dialect}]`, (t) =>
      suite({ test: (name, fn) => t.test(name, fn), factory: sqlCommerceFactory(dialect), supports: sqlCapabilities(dialect) }),
    );
  }
}
