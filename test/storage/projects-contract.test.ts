/**
 * Runs the contract kits of the project module's repository ports against the SQLite and
 * Postgres adapters, each case on a fresh database migrated with the project tables.
 */
import t from "tap";
import type { Layer } from "effect";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { StoragePorts } from "../../adapters/sql/storageLayer.js";
import { projectsModule } from "../../hosts/modules/projectsModule.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { projectKits, type AdapterFactory, type ProjectKitPorts } from "../contract/index.js";
import { dialects, openTestDatabase, type Dialect } from "../support/databases.js";
import { sqlCapabilities } from "../support/sqlAdapter.js";

/**
 * The one place this file opens a database: a fresh one of `dialect` with the project tables.
 * (the projects module's migrations only).
 */
const openProjectsDatabase = (dialect: Dialect, t: { readonly teardown: (fn: () => unknown) => unknown }): Promise<SqlDatabase> =>
  openTestDatabase(dialect, t, [projectsModule]);

/** Every project repository port over `db`, as the module's SQL Layer provides them, with the storage ports. */
const sqlProjectRepositories = (db: SqlDatabase): Layer.Layer<ProjectKitPorts | StoragePorts> => moduleLayer(db, [projectsModule]);

/** A kit factory: a fresh database per case, closed and dropped after it. */
const sqlProjectsFactory =
  (dialect: Dialect): AdapterFactory<ProjectKitPorts | StoragePorts> =>
  async () => {
    const teardowns: Array<() => unknown> = [];
    const db = await openProjectsDatabase(dialect, { teardown: (fn) => teardowns.push(fn) });
    return {
      layer: sqlProjectRepositories(db),
      close: async () => {
        for (const fn of teardowns.reverse()) await fn();
      },
    };
  };

for (const dialect of dialects) {
  for (const [name, suite] of Object.entries(projectKits)) {
    t.test(`projects ${name} contract [${dialect}]`, (t) =>
      suite({ test: (name, fn) => t.test(name, fn), factory: sqlProjectsFactory(dialect), supports: sqlCapabilities(dialect) }),
    );
  }
}
