/**
 * The contract kits of the project module's repository ports (exported from the package's
 * `testkit` subpath with the others). Each kit is `xxxSuite({ test, factory, supports })` and
 * exports its cases (`xxxCases`); a kit's ports include the workspace and project repositories,
 * since every project record belongs to a workspace and a project written through them, and the
 * kits with lock cases (Dependencies, TaskRanks) need Transactions; those cases run only when the
 * adapter declares `concurrentConnections`.
 */
/** The records and helpers the kits build on (a namespace, so their short names cannot clash with other modules' kits). */
export * as projectFixtures from "./fixtures.js";
export * from "./TasksKit.js";
export * from "./WorkspacesKit.js";
export * from "./WorkspaceInvitationsKit.js";
export * from "./ProjectsKit.js";
export * from "./CommentsKit.js";
export * from "./NotificationsKit.js";
export * from "./ShareLinksKit.js";
export * from "./AttachmentsKit.js";
export * from "./DependenciesKit.js";
export * from "./TaskRanksKit.js";
export * from "./CustomFieldsKit.js";
export * from "./SavedViewsKit.js";
export * from "./SearchIndexKit.js";
export * from "./ExportsKit.js";

import type { AttachmentsRepository } from "../../../ports/projects/AttachmentsRepository.js";
import type { CommentEdits } from "../../../ports/projects/CommentEdits.js";
import type { CommentsRepository } from "../../../ports/projects/CommentsRepository.js";
import type { CustomFieldsRepository } from "../../../ports/projects/CustomFieldsRepository.js";
import type { DependenciesRepository } from "../../../ports/projects/DependenciesRepository.js";
import type { ExportsRepository } from "../../../ports/projects/ExportsRepository.js";
import type { NotificationsRepository } from "../../../ports/projects/NotificationsRepository.js";
import type { ProjectsRepository } from "../../../ports/projects/ProjectsRepository.js";
import type { SavedViewsRepository } from "../../../ports/projects/SavedViewsRepository.js";
import type { SearchIndex } from "../../../ports/projects/SearchIndex.js";
import type { ShareLinksRepository } from "../../../ports/projects/ShareLinksRepository.js";
import type { TaskRanks } from "../../../ports/projects/TaskRanks.js";
import type { TasksRepository } from "../../../ports/projects/TasksRepository.js";
import type { WorkspacesRepository } from "../../../ports/projects/WorkspacesRepository.js";
import type { WorkspaceInvitationsRepository } from "../../../ports/projects/WorkspaceInvitationsRepository.js";
import type { Transactions } from "../../../ports/Transactions.js";
import type { SuiteOptions } from "../Kit.js";
import { attachmentsSuite } from "./AttachmentsKit.js";
import { commentsSuite } from "./CommentsKit.js";
import { customFieldsSuite } from "./CustomFieldsKit.js";
import { dependenciesSuite } from "./DependenciesKit.js";
import { exportsSuite } from "./ExportsKit.js";
import { savedViewsSuite } from "./SavedViewsKit.js";
import { searchIndexSuite } from "./SearchIndexKit.js";
import { taskRanksSuite } from "./TaskRanksKit.js";
import { notificationsSuite } from "./NotificationsKit.js";
import { projectsSuite } from "./ProjectsKit.js";
import { shareLinksSuite } from "./ShareLinksKit.js";
import { tasksSuite } from "./TasksKit.js";
import { workspacesSuite } from "./WorkspacesKit.js";
import { workspaceInvitationsSuite } from "./WorkspaceInvitationsKit.js";

/** Every repository port of the project module, and Transactions (an adapter providing them all runs every kit). */
export type ProjectKitPorts =
  | WorkspacesRepository
  | WorkspaceInvitationsRepository
  | ProjectsRepository
  | TasksRepository
  | TaskRanks
  | CommentsRepository
  | CommentEdits
  | NotificationsRepository
  | ShareLinksRepository
  | AttachmentsRepository
  | DependenciesRepository
  | CustomFieldsRepository
  | SavedViewsRepository
  | ExportsRepository
  | SearchIndex
  | Transactions;

/** Every project kit by port name, for an adapter that provides all of {@link ProjectKitPorts}. */
export const projectKits: Readonly<Record<string, (options: SuiteOptions<ProjectKitPorts>) => Promise<unknown>>> = {
  WorkspacesRepository: workspacesSuite,
  WorkspaceInvitationsRepository: workspaceInvitationsSuite,
  ProjectsRepository: projectsSuite,
  TasksRepository: tasksSuite,
  CommentsRepository: commentsSuite,
  NotificationsRepository: notificationsSuite,
  ShareLinksRepository: shareLinksSuite,
  AttachmentsRepository: attachmentsSuite,
  DependenciesRepository: dependenciesSuite,
  TaskRanks: taskRanksSuite,
  CustomFieldsRepository: customFieldsSuite,
  SavedViewsRepository: savedViewsSuite,
  SearchIndex: searchIndexSuite,
  ExportsRepository: exportsSuite,
};
