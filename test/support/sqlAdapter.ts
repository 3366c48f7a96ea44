/** Feeds the contract kits our own SQL adapter: a fresh migrated database per kit case. */
import type { Layer } from "effect";
import { storageLayer, type StoragePorts } from "../../adapters/sql/storageLayer.js";
import type { AdapterFactory, Capabilities } from "../contract/Kit.js";
import { openTestDatabase, type Dialect } from "./databases.js";

/** A kit factory over a fresh database of `dialect`; `close` closes and drops it. */
export const sqlAdapterFactory =
  (dialect: Dialect): AdapterFactory<StoragePorts> =>
  async () => {
    const teardowns: Array<() => unknown> = [];
    const db = await openTestDatabase(dialect, { teardown: (fn) => teardowns.push(fn) });
    const layer: Layer.Layer<StoragePorts> = storageLayer(db);
    return {
      layer,
      close: async () => {
        // Last in, first out, as tap would: the pool closes before its database is dropped.
        for (const fn of teardowns.reverse()) await fn();
      },
    };
  };

/** What our SQL adapter supports on each dialect. */
export const sqlCapabilities = (dialect: Dialect): Capabilities => ({
  // Kysely drives better-sqlite3 through one connection; Postgres has a pool.
  concurrentConnections: dialect === "postgres",
});
