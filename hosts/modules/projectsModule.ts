/**
 * The project management module as a host sees it: routes, migrations, repositories, the
 * `project:<id>` channel authorizer and the mapping of task, comment and attachment events to
 * that channel, the mention and search-indexing consumers, and the mention e-mail and rank
 * rebalance jobs. `makeProjectsModule({ mailer, addressBook })` lets a host bring its own
 * Mailer and user directory; by default the Mailer comes from the environment (SMTP_URL, else
 * files in MAIL_DIR) and addresses are `<user id>@users.invalid`. `exportRetentionDays` (7) and
 * `quarantineRetentionDays` (30) set how long the hourly trash purge keeps a finished export's
 * object and an infected or scan_failed attachment's object. Users join a workspace by accepting
 * an owner's invitation; `directMemberAdds: true` lets owners add them directly as well.
 */
import { Layer } from "effect";
import { sqlPort } from "../../adapters/sql/DatabaseLayer.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
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
import { makeSqlWorkspaceInvitationsRepository } from "../../adapters/sql/projects/SqlWorkspaceInvitationsRepository.js";
import { projectsMigrations } from "../../adapters/sql/projects/migrations/index.js";
import { checkGrantCondition } from "../../core/projects/CheckGrantCondition.js";
import { projectsGrantIssuer } from "../../core/projects/GrantConditions.js";
import { maySubscribeToProject, projectChannelsFor } from "../../core/projects/ChannelAccess.js";
import { mentionNotificationsConsumer } from "../../core/projects/MentionNotifications.js";
import { makeProjectsJobs } from "../../core/projects/Jobs.js";
import { defaultTrashPurgePolicy, scheduleNextTrashPurge, type TrashPurgePolicy } from "../../core/projects/TrashPurge.js";
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
import { WorkspaceInvitationsRepository } from "../../ports/projects/WorkspaceInvitationsRepository.js";
import { WorkspaceMembershipPolicy } from "../../ports/projects/WorkspaceMembershipPolicy.js";
import type { ModuleChannelAuthorizer, ModuleDefinition } from "../ModuleDefinition.js";
import type { HostServices } from "../PortBindings.js";

/** The ports the project module's Layer provides. */
export type ProjectsPorts =
  | WorkspacesRepository
  | WorkspaceInvitationsRepository
  | WorkspaceMembershipPolicy
  | ProjectsRepository
  | TasksRepository
  | CommentsRepository
  | CommentEdits
  | TaskRanks
  | NotificationsRepository
  | SearchIndex
  | AttachmentsRepository
  | ExportsRepository
  | CustomFieldsRepository
  | SavedViewsRepository
  | DependenciesRepository
  | ShareLinksRepository
  | Mailer
  | NotificationsAddressBook;

/**
 * Authorizes `project:<id>` subscriptions against current membership (on the host runtime). Its
 * subscribers are the project's members, who see who acted in the activity feed too.
 */
export const projectChannelAuthorizer: ModuleChannelAuthorizer<WorkspacesRepository | ProjectsRepository> = {
  kind: "project",
  authorize: maySubscribeToProject,
  showsActor: true,
};

/** Options of the project module. */
export interface ProjectsModuleOptions {
  /** Where mention e-mail goes out; files in `<tmp>/domainkit-mail` when omitted (development). */
  readonly mailer?: Mailer;
  /** Users' e-mail addresses; `<user id>@users.invalid` when omitted (development only). */
  readonly addressBook?: NotificationsAddressBook;
  /**
   * Days a finished workspace export's object is kept after it completed; then the trash purge
   * deletes it and the export becomes `expired` (download 410 export_expired). 7 when omitted;
   * a whole number from 1 to 3650.
   */
  readonly exportRetentionDays?: number;
  /**
   * Days an infected or scan_failed attachment's object is kept after its verdict; then the
   * trash purge deletes it (the attachment and its status stay). 30 when omitted; a whole
   * number from 1 to 3650.
   */
  readonly quarantineRetentionDays?: number;
  /**
   * False (the default): users join a workspace only by accepting an owner's invitation, and
   * POST /v1/workspaces/:id/members changes existing members' roles (a non-member: 409
   * invitation_required). True, for a host whose own user directory decides membership: that
   * route also adds non-members directly.
   */
  readonly directMemberAdds?: boolean;
}

const dayMs = 24 * 60 * 60_000;

/** A retention option in days (`fallbackMs` when omitted); anything but a whole number from 1 to 3650 is refused at start. */
const retentionMs = (name: string, days: number | undefined, fallbackMs: number): number => {
  if (days === undefined) return fallbackMs;
  if (!Number.isInteger(days) || days < 1 || days > 3650) throw new Error(`projects module: ${name} must be a whole number of days from 1 to 3650 (got ${days})`);
  return days * dayMs;
};

/** The trash purge policy the options give (retention of exports and of quarantined content). */
export const projectsTrashPurgePolicy = (options: ProjectsModuleOptions = {}): TrashPurgePolicy => ({
  ...defaultTrashPurgePolicy,
  exportRetentionMs: retentionMs("exportRetentionDays", options.exportRetentionDays, defaultTrashPurgePolicy.exportRetentionMs),
  quarantineRetentionMs: retentionMs("quarantineRetentionDays", options.quarantineRetentionDays, defaultTrashPurgePolicy.quarantineRetentionMs),
});

/** The project module's repositories over the host's database, plus its Mailer and address book. */
export const projectsLayer = (options: ProjectsModuleOptions = {}): Layer.Layer<ProjectsPorts, never, SqlDatabase> =>
  Layer.mergeAll(
    sqlPort(WorkspacesRepository, makeSqlWorkspacesRepository),
    sqlPort(WorkspaceInvitationsRepository, makeSqlWorkspaceInvitationsRepository),
    Layer.succeed(WorkspaceMembershipPolicy, { directMemberAdds: options.directMemberAdds ?? false }),
    sqlPort(ProjectsRepository, makeSqlProjectsRepository),
    sqlPort(TasksRepository, makeSqlTasksRepository),
    sqlPort(CommentsRepository, makeSqlCommentsRepository),
    sqlPort(CommentEdits, makeSqlCommentEdits),
    sqlPort(TaskRanks, makeSqlTaskRanks),
    sqlPort(NotificationsRepository, makeSqlNotificationsRepository),
    sqlPort(SearchIndex, makeSqlSearchIndex),
    sqlPort(AttachmentsRepository, makeSqlAttachmentsRepository),
    sqlPort(ExportsRepository, makeSqlExportsRepository),
    sqlPort(CustomFieldsRepository, makeSqlCustomFieldsRepository),
    sqlPort(SavedViewsRepository, makeSqlSavedViewsRepository),
    sqlPort(DependenciesRepository, makeSqlDependenciesRepository),
    sqlPort(ShareLinksRepository, makeSqlShareLinksRepository),
    // Built when the runtime is, so merely importing the module opens no SMTP transport.
    Layer.sync(Mailer, () => options.mailer ?? configuredMailer()),
    Layer.sync(NotificationsAddressBook, () => options.addressBook ?? makeDomainAddressBook()),
  );

/** Builds the project module's definition. */
export const makeProjectsModule = (options: ProjectsModuleOptions = {}): ModuleDefinition<ProjectsPorts, HostServices<ProjectsPorts>> => {
  const trashPurge = projectsTrashPurgePolicy(options);
  return {
    name: "projects",
    layer: projectsLayer(options),
    routes: projectModuleRoutes,
    migrations: projectsMigrations,
    consumers: [mentionNotificationsConsumer, searchIndexingConsumer],
    // Attachment scan and thumbnail, workspace export and trash purge use the host's ObjectStore, Scanner and Thumbnailer (FileOptions).
    jobHandlers: makeProjectsJobs(trashPurge),
    // Hourly: the trash purge (expired staging uploads, exports and quarantined content past retention).
    scheduleRecurring: (nowMs) => scheduleNextTrashPurge(nowMs, trashPurge),
    channelAuthorizers: [projectChannelAuthorizer],
    // The local store serves an attachment's or an export's grant only while its holder keeps access.
    grantChecks: [{ issuer: projectsGrantIssuer, holds: checkGrantCondition }],
    channelsFor: projectChannelsFor,
  };
};

/** Module definition of the project management module (environment mailer). */
export const projectsModule = makeProjectsModule();
