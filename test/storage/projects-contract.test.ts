/**
 * Runs the contract kits of the project module's repository ports against the SQLite and
 * Postgres adapters, each case on a fresh database migrated with the project tables.
 */
import t from "tap";
import { Layer } from "effect";
import { projectsMigrations } from "../../adapters/sql/projects/projectsMigrations.js";
import { registerMigrations } from "../../adapters/sql/Migrations.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { storageLayer, type StoragePorts } from "../../adapters/sql/storageLayer.js";
import { makeSqlAttachmentsRepository } from "../../adapters/sql/projects/SqlAttachmentsRepository.js";
import { makeSqlCommentEdits } from "../../adapters/sql/projects/SqlCommentEdits.js";
import { makeSqlCommentsRepository } from "../../adapters/sql/projects/SqlCommentsRepository.js";
import { makeSqlCustomFieldsRepository } from "../../adapters/sql/projects/SqlCustomFieldsRepository.js";
import { makeSqlDependenciesRepository } from "../../adapters/sql/projects/SqlDependenciesRepository.js";
import { makeSqlExportsRepository } from "../../adapters/sql/projects/SqlExportsRepository.js";
import { makeSqlNotificationsRepository } from "../../adapters/sql/projects/SqlNotificationsRepository.js";
import { makeSqlProjectsRepository } from "../../adapters/sql/projects/SqlProjectsRepository.js";
import { makeSqlSavedViewsRepository } from "../../adapters/sql/projects/SqlSavedViewsRepository.js";
import { makeSqlSearchIndex } from "../../adapters/sql/projects/SqlSearchIndex.js";
import { makeSqlShareLinksRepository } from "../../adapters/sql/projects/SqlShareLinksRepository.js";
import { makeSqlTaskRanks } from "../../adapters/sql/projects/SqlTaskRanksRebalance.js";
import { makeSqlTasksRepository } from "../../adapters/sql/projects/SqlTasksRepository.js";
import { makeSqlWorkspacesRepository } from "../../adapters/sql/projects/SqlWorkspacesRepository.js";
import { AttachmentsRepository } from "../../ports/projects/AttachmentsRepository.js";
import { CommentEdits } from "../../ports/projects/CommentEdits.js";
import { CommentsRepository } from "../../ports/projects/CommentsRepository.js";
import { CustomFieldsRepository } from "../../ports/projects/CustomFieldsRepository.js";
import { DependenciesRepository } from "../../ports/projects/DependenciesRepository.js";
import { ExportsRepository } from "../../ports/projects/ExportsRepository.js";
import { NotificationsRepository } from "../../ports/projects/NotificationsRepository.js";
import { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { SavedViewsRepository } from "../../ports/projects/SavedViewsRepository.js";
import { SearchIndex } from "../../ports/projects/SearchIndex.js";
import { ShareLinksRepository } from "../../ports/projects/ShareLinksRepository.js";
import { TaskRanks } from "../../ports/projects/TaskRanks.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { projectKits, type AdapterFactory, type ProjectKitPorts } from "../contract/index.js";
import { dialects, openTestDatabase, type Dialect } from "../support/databases.js";
import { sqlCapabilities } from "../support/sqlAdapter.js";

/**
 * The one place this file opens a database: a fresh one of `dialect` with the project tables.
 * (Migrations are registered here; adapt this helper alone when the registry changes.)
 */
const openProjectsDatabase = (dialect: Dialect, t: { readonly teardown: (fn: () => unknown) => unknown }): Promise<SqlDatabase> => {
  registerMigrations("projects", projectsMigrations);
  return openTestDatabase(dialect, t);
};

/** Every project repository port over `db`, as the SQL adapter provides them, with the storage ports. */
const sqlProjectRepositories = (db: SqlDatabase): Layer.Layer<ProjectKitPorts | StoragePorts> =>
  Layer.mergeAll(
    storageLayer(db),
    Layer.succeed(WorkspacesRepository, makeSqlWorkspacesRepository(db)),
    Layer.succeed(ProjectsRepository, makeSqlProjectsRepository(db)),
    Layer.succeed(TasksRepository, makeSqlTasksRepository(db)),
    Layer.succeed(TaskRanks, makeSqlTaskRanks(db)),
    Layer.succeed(CommentsRepository, makeSqlCommentsRepository(db)),
    Layer.succeed(CommentEdits, makeSqlCommentEdits(db)),
    Layer.succeed(NotificationsRepository, makeSqlNotificationsRepository(db)),
    Layer.succeed(ShareLinksRepository, makeSqlShareLinksRepository(db)),
    Layer.succeed(AttachmentsRepository, makeSqlAttachmentsRepository(db)),
    Layer.succeed(DependenciesRepository, makeSqlDependenciesRepository(db)),
    Layer.succeed(CustomFieldsRepository, makeSqlCustomFieldsRepository(db)),
    Layer.succeed(SavedViewsRepository, makeSqlSavedViewsRepository(db)),
    Layer.succeed(ExportsRepository, makeSqlExportsRepository(db)),
    Layer.succeed(SearchIndex, makeSqlSearchIndex(db)),
  );

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
