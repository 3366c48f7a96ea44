/**
 * The project management module as a host sees it: routes, migrations, repositories, the
 * `project:<id>` channel authorizer and the mapping of task, comment and membership events to
 * that channel.
 */
import type { Effect } from "effect";
import { projectModuleRoutes } from "../../adapters/koa/projects/index.js";
import { makeSqlCommentsRepository } from "../../adapters/sql/projects/SqlCommentsRepository.js";
import { makeSqlProjectsRepository } from "../../adapters/sql/projects/SqlProjectsRepository.js";
import { makeSqlTasksRepository } from "../../adapters/sql/projects/SqlTasksRepository.js";
import { makeSqlWorkspacesRepository } from "../../adapters/sql/projects/SqlWorkspacesRepository.js";
import { projectsMigrations } from "../../adapters/sql/projects/projectsMigrations.js";
import { maySubscribeToProject, projectChannelsFor } from "../../core/projects/ChannelAccess.js";
import { CommentsRepository } from "../../ports/projects/CommentsRepository.js";
import { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
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

/** Module definition of the project management module. */
export const projectsModule: ModuleDefinition = {
  name: "projects",
  routes: projectModuleRoutes,
  migrations: projectsMigrations,
  channelAuthorizers: [projectChannelAuthorizer],
  channelsFor: projectChannelsFor,
  ports: [
    { tag: WorkspacesRepository, make: makeSqlWorkspacesRepository },
    { tag: ProjectsRepository, make: makeSqlProjectsRepository },
    { tag: TasksRepository, make: makeSqlTasksRepository },
    { tag: CommentsRepository, make: makeSqlCommentsRepository },
  ],
};
