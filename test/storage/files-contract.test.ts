/**
 * Runs the contract kits of the file storage module's repository ports against the SQLite and
 * Postgres adapters, each case on a fresh database migrated with the file storage tables.
 */
import t from "tap";
import { Effect, Layer } from "effect";
import { projectsModule } from "../../hosts/modules/projectsModule.js";
import { runQuery } from "../../adapters/sql/runQuery.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { StoragePorts } from "../../adapters/sql/storageLayer.js";
import { filesModule, makeFilesModule, type FilesModuleOptions } from "../../hosts/modules/filesModule.js";
import { moduleLayer } from "../support/moduleLayer.js";
import {
  filesKits,
  nodeSearchIndexSuite,
  workspaceDirectorySuite,
  WorkspaceDirectorySeed,
  type AdapterFactory,
  type FilesKitPorts,
  type WorkspaceDirectoryKitPorts,
} from "../contract/index.js";
import { dialects, openTestDatabase, type Dialect } from "../support/databases.js";
import { sqlCapabilities } from "../support/sqlAdapter.js";

/** Every files repository port over `db`, as the module's SQL Layer provides them, with the storage ports. */
const sqlFilesRepositories = (db: SqlDatabase, options: FilesModuleOptions = {}): Layer.Layer<FilesKitPorts | StoragePorts> => moduleLayer(db, [makeFilesModule(options)]);

/** A kit factory: a fresh database (the file storage tables only) per case, closed and dropped after it. */
const sqlFilesFactory =
  (dialect: Dialect, options: FilesModuleOptions = {}): AdapterFactory<FilesKitPorts | StoragePorts> =>
  async () => {
    const teardowns: Array<() => unknown> = [];
    const db = await openTestDatabase(dialect, { teardown: (fn) => teardowns.push(fn) }, [filesModule]);
    return {
      layer: sqlFilesRepositories(db, options),
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
  // The search kit again with a bound of 5 matches per search, so its bounded case goes through short pages.
  t.test(`files NodeSearchIndex contract, 5 matches examined per search [${dialect}]`, (t) =>
    nodeSearchIndexSuite({ test: (name, fn) => t.test(name, fn), factory: sqlFilesFactory(dialect, { searchIndex: { maxExaminedMatches: 5 } }), supports: sqlCapabilities(dialect) }),
  );
}

/**
 * The reference server's directory (the project workspaces) seeded the way the project module
 * stores membership: a files admin is the workspace owner, a member a member.
 */
const projectsDirectorySeed = (db: SqlDatabase): WorkspaceDirectorySeed => ({
  set: (workspaceId, userId, standing) =>
    runQuery(db, async (ex) => {
      const time = db.dialect === "sqlite" ? new Date().toISOString() : new Date();
      await ex.insertInto("pm_workspaces").values({ id: workspaceId, name: "kit", created_by: userId, created_at: time }).onConflict((oc) => oc.column("id").doNothing()).execute();
      await ex.deleteFrom("pm_workspace_members").where("workspace_id", "=", workspaceId).where("user_id", "=", userId).execute();
      if (standing !== null) {
        await ex.insertInto("pm_workspace_members").values({ workspace_id: workspaceId, user_id: userId, role: standing === "admin" ? "owner" : "member", created_at: time }).execute();
      }
    }).pipe(Effect.asVoid),
});

const sqlDirectoryFactory =
  (dialect: Dialect): AdapterFactory<WorkspaceDirectoryKitPorts> =>
  async () => {
    const teardowns: Array<() => unknown> = [];
    const db = await openTestDatabase(dialect, { teardown: (fn) => teardowns.push(fn) }, [projectsModule, filesModule]);
    return {
      layer: Layer.merge(moduleLayer(db, [filesModule]), Layer.succeed(WorkspaceDirectorySeed, projectsDirectorySeed(db))),
      close: async () => {
        for (const fn of teardowns.reverse()) await fn();
      },
    };
  };

for (const dialect of dialects) {
  t.test(`files WorkspaceDirectory (project workspaces) contract [${dialect}]`, (t) =>
    workspaceDirectorySuite({ test: (name, fn) => t.test(name, fn), factory: sqlDirectoryFactory(dialect), supports: sqlCapabilities(dialect) }),
  );
}
