/**
 * Runs the contract kits of the file storage module's repository ports against the SQLite and
 * Postgres adapters, each case on a fresh database migrated with the file storage tables.
 */
import t from "tap";
import type { Layer } from "effect";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { StoragePorts } from "../../adapters/sql/storageLayer.js";
import { filesModule } from "../../hosts/modules/filesModule.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { filesKits, type AdapterFactory, type FilesKitPorts } from "../contract/index.js";
import { dialects, openTestDatabase, type Dialect } from "../support/databases.js";
import { sqlCapabilities } from "../support/sqlAdapter.js";

/** Every files repository port over `db`, as the module's SQL Layer provides them, with the storage ports. */
const sqlFilesRepositories = (db: SqlDatabase): Layer.Layer<FilesKitPorts | StoragePorts> => moduleLayer(db, [filesModule]);

/** A kit factory: a fresh database (the file storage tables only) per case, closed and dropped after it. */
const sqlFilesFactory =
  (dialect: Dialect): AdapterFactory<FilesKitPorts | StoragePorts> =>
  async () => {
    const teardowns: Array<() => unknown> = [];
    const db = await openTestDatabase(dialect, { teardown: (fn) => teardowns.push(fn) }, [filesModule]);
    return {
      layer: sqlFilesRepositories(db),
      close: async () => {
        for (const fn of teardowns.reverse()) await fn();
      },
    };
  };

for (const dialect of dialects) {
  for (const [name, suite] of Object.entries(filesKits)) {
    t.test(`files ${name} contract [${dialect}]`, (t) =>
      suite({ test: (name, fn) => t.test(name, fn), factory: sqlFilesFactory(dialect), supports: sqlCapabilities(dialect) }),
    );
  }
}
