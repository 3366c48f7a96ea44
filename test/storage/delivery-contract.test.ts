/**
 * Runs the contract kits of the delivery module's repository ports against the SQLite and
 * Postgres adapters, each case on a fresh database migrated with the delivery tables.
 */
import t from "tap";
import type { Layer } from "effect";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { StoragePorts } from "../../adapters/sql/storageLayer.js";
import { makeDeliveryModule } from "../../hosts/modules/deliveryModule.js";
import { makeFakePaymentGateway } from "../delivery/FakePaymentGateway.js";
import { makeFakeMerchantProvisioning, testLocationKey } from "../delivery/support.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { deliveryKits, type AdapterFactory, type DeliveryKitPorts } from "../contract/index.js";
import { dialects, openTestDatabase, type Dialect } from "../support/databases.js";
import { sqlCapabilities } from "../support/sqlAdapter.js";

// The repositories under test come from the module definition; the payment adapters are never called.
const deliveryModule = makeDeliveryModule({ paymentGateway: makeFakePaymentGateway(), merchantProvisioning: makeFakeMerchantProvisioning(), locationKey: testLocationKey });

/** A kit factory: a fresh database with the delivery tables per case, closed and dropped after it. */
const sqlDeliveryFactory =
  (dialect: Dialect): AdapterFactory<DeliveryKitPorts | StoragePorts> =>
  async () => {
    const teardowns: Array<() => unknown> = [];
    const db: SqlDatabase = await openTestDatabase(dialect, { teardown: (fn) => teardowns.push(fn) }, [deliveryModule]);
    const layer: Layer.Layer<DeliveryKitPorts | StoragePorts> = moduleLayer(db, [deliveryModule]);
    return {
      layer,
      close: async () => {
        for (const fn of teardowns.reverse()) await fn();
      },
    };
  };

for (const dialect of dialects) {
  for (const [name, suite] of Object.entries(deliveryKits)) {
    t.test(`delivery ${name} contract [${dialect}]`, (t) =>
      suite({ test: (name, fn) => t.test(name, fn), factory: sqlDeliveryFactory(dialect), supports: sqlCapabilities(dialect) }),
    );
  }
}
