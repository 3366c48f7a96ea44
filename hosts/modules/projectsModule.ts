/**
 * The project management module as a host sees it: routes, migrations, repositories, the
 * `project:<id>` channel authorizer and the mapping of task, comment and membership events to
 * that channel, the mention and search-indexing consumers, and the mention e-mail and rank
 * rebalance jobs. `makeProjectsModule({ mailer, addressBook })` lets a host bring its own
 * Mailer and user directory; by default the Mailer comes from the environment (SMTP_URL, else
 * files in MAIL_DIR) and addresses are `<user id>@users.invalid`.
 */
import type { Effect } from "effect";
import { makeDomainAddressBook } from "../../adapters/mail/DomainAddressBook.js";
import { configuredMailer } from "../../adapters/mail/configuredMailer.js";
import { projectModuleRoutes } from "../../adapters/koa/projects/index.js";
import { makeSqlCommentEdits } from "../../adapters/sql/projects/SqlCommentEdits.js";
import { makeSqlAttachmentsRepository } from "../../adapters/sql/projects/SqlAttachmentsRepository.js";
import { makeSqlCommentsRepository } from "../../adapters/sql/projects/SqlCommentsRepository.js";
import { makeSqlCustomFieldsRepository } from "../../adapters/sql/projects/SqlCustomFieldsRepository.js";
import { makeSqlDependenciesRepository } from "../../adapters/sql/projects/SqlDependenciesRepository.js";
import { makeSqlExportsRepository } from "../../adapters/sql/projects/SqlExportsRepository.js";
import { makeSqlSavedViewsRepository } from "../../adapters/sql/projects/SqlSavedViewsRepository.js";
import { makeSqlNotificationsRepository } from "../../adapters/sql/projects/SqlNotificationsRepository.js";
import { makeSqlProjectsRepository } from "../../adapters/sql/projects/SqlProjectsRepository.js";
import { makeSqlSearchIndex } from "../../adapters/sql/projects/SqlSearchIndex.js";
import { makeSqlShareLinksRepository } from "../../adapters/sql/projects/SqlShareLinksRepository.js";
import { makeSqlTaskRanks } from "../../adapters/sql/projects/SqlTaskRanksRebalance.js";
import { makeSqlTasksRepository } from "../../adapters/sql/projects/SqlTasksRepository.js";
import { makeSqlWorkspacesRepository } from "../../adapters/sql/projects/SqlWorkspacesRepository.js";
import { projectsMigrations } from "../../adapters/sql/projects/projectsMigrations.js";
import { attachmentScanJob } from "../../core/projects/AttachmentScan.js";
import { attachmentThumbnailJob } from "../../core/projects/AttachmentThumbnails.js";
import { maySubscribeToProject, projectChannelsFor } from "../../core/projects/ChannelAccess.js";
import { workspaceExportJob } from "../../core/projects/ExportJob.js";
import { trashPurgeJob } from "../../core/projects/TrashPurge.js";
import { mentionEmailJobHandler, mentionNotificationsConsumer } from "../../core/projects/MentionNotifications.js";
import { rankRebalanceJobHandler } from "../../core/projects/RankRebalance.js";
import { searchIndexingConsumer } from "../../core/projects/SearchIndexing.js";
import { Mailer } from "../../ports/Mailer.js";
import { CommentEdits } from "../../ports/projects/CommentEdits.js";
import { AttachmentsRepository } from "../../ports/projects/AttachmentsRepository.js";
import { CommentsRepository } from "../../ports/projects/CommentsRepository.js";
import { CustomFieldsRepository } from "../../ports/projects/CustomFieldsRepository.js";
import { DependenciesRepository } from "../../ports/projects/DependenciesRepository.js";
import { ExportsRepository } from "../../ports/projects/ExportsRepository.js";
import { SavedViewsRepository } from "../../ports/projects/SavedViewsRepository.js";
import { NotificationsAddressBook } from "../../ports/projects/NotificationsAddressBook.js";
import { NotificationsRepository } from "../../ports/projects/NotificationsRepository.js";
import { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { SearchIndex } from "../../ports/projects/SearchIndex.js";
import { ShareLinksRepository } from "../../ports/projects/ShareLinksRepository.js";
import { TaskRanks } from "../../ports/projects/TaskRanks.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import type { ChannelAuthorizer } from "../../ports/Realtime.js";
import type { ModuleDefinition } from "../ModuleDefinition.js";

/**
 * Authorizes `project:<id>` subscriptions. The port's signature needs no services, but
 * authorizers run on the host runtime, which provides this module's repositories, so the
 * requirement is erased here (and the realtime server fails closed if it were missing).
 */
export const projectChannelAuthorizer: ChannelAuthorizer = {
  kind: "project",
  authorize: (principal, projectId) => maySubscribeToProject(principal, projectId) as unknown as Effect.Effect<boolean>,
};

/** Options of the project module. */
export interface ProjectsModuleOptions {
  /** Where mention e-mail goes out; files in `<tmp>/domainkit-mail` when omitted (development). */
  readonly mailer?: Mailer;
  /** Users' e-mail addresses; `<user id>@users.invalid` when omitted (development only). */
  readonly addressBook?: NotificationsAddressBook;
}

/** Builds the project module's definition. */
export const makeProjectsModule = (options: ProjectsModuleOptions = {}): ModuleDefinition => ({
  name: "projects",
  routes: projectModuleRoutes,
  migrations: projectsMigrations,
  consumers: [mentionNotificationsConsumer, searchIndexingConsumer],
  // Attachment scan and thumbnail, workspace export and trash purge use the host's ObjectStore, Scanner and Thumbnailer (blobStorageModule).
  jobHandlers: [mentionEmailJobHandler, rankRebalanceJobHandler, attachmentScanJob, attachmentThumbnailJob, workspaceExportJob, trashPurgeJob],
  channelAuthorizers: [projectChannelAuthorizer],
  channelsFor: projectChannelsFor,
  ports: [
    { tag: WorkspacesRepository, make: makeSqlWorkspacesRepository },
    { tag: ProjectsRepository, make: makeSqlProjectsRepository },
    { tag: TasksRepository, make: makeSqlTasksRepository },
    { tag: CommentsRepository, make: makeSqlCommentsRepository },
    { tag: CommentEdits, make: makeSqlCommentEdits },
    { tag: TaskRanks, make: makeSqlTaskRanks },
    { tag: NotificationsRepository, make: makeSqlNotificationsRepository },
    { tag: SearchIndex, make: makeSqlSearchIndex },
    { tag: AttachmentsRepository, make: makeSqlAttachmentsRepository },
    { tag: ExportsRepository, make: makeSqlExportsRepository },
    { tag: CustomFieldsRepository, make: makeSqlCustomFieldsRepository },
    { tag: SavedViewsRepository, make: makeSqlSavedViewsRepository },
    { tag: DependenciesRepository, make: makeSqlDependenciesRepository },
    { tag: ShareLinksRepository, make: makeSqlShareLinksRepository },
    // Built on first use, so merely importing the module opens no SMTP transport.
    { tag: Mailer, make: () => options.mailer ?? configuredMailer() },
    { tag: NotificationsAddressBook, make: () => options.addressBook ?? makeDomainAddressBook() },
  ],
});

/** Module definition of the project management module (environment mailer). */
export const projectsModule: ModuleDefinition = makeProjectsModule();
