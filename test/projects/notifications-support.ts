/**
 * Test support of projects slice 2A (mentions, notifications, mail, search, task move, rank
 * rebalance): the module extended with its routes, consumers, job handlers, ports and
 * migration 2, a core runtime with those ports, and helpers that drain the outbox and the jobs.
 */
import type { Config } from "../../hosts/Config.js";
import "../../adapters/sql/projects/index.js";
import { Effect, Layer, Logger, LogLevel } from "effect";
import { commentEditRoutes } from "../../adapters/koa/projects/CommentEditRoutes.js";
import { notificationRoutes } from "../../adapters/koa/projects/NotificationRoutes.js";
import { searchRoutes } from "../../adapters/koa/projects/SearchRoutes.js";
import { taskMoveRoutes } from "../../adapters/koa/projects/TaskMoveRoutes.js";
import { projectsMigrations } from "../../adapters/sql/projects/migrations/index.js";
import { projectsMigration0002 } from "../../adapters/sql/projects/migrations/0002_notifications_comment_edits_search.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { runJobsOnce, type JobHandler } from "../../adapters/worker/JobRunner.js";
import type { Consumer } from "../../adapters/worker/Consumer.js";
import { realtimeConsumer } from "../../adapters/worker/RealtimeConsumer.js";
import { mentionEmailJobHandler, mentionNotificationsConsumer } from "../../core/projects/MentionNotifications.js";
import { rankRebalanceJobHandler } from "../../core/projects/RankRebalance.js";
import { searchIndexingConsumer } from "../../core/projects/SearchIndexing.js";
import { projectChannelsFor } from "../../core/projects/ChannelAccess.js";
import type { ModuleDefinition } from "../../hosts/ModuleDefinition.js";
import { makeProjectsModule } from "../../hosts/modules/projectsModule.js";
import { Mailer, type MailMessage } from "../../ports/Mailer.js";
import type { Dialect, HasTeardown } from "../support/databases.js";
import { randomUUID } from "node:crypto";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { hostSecret, startReferenceServer, testConfig } from "../hosts/support.js";
import type { Client } from "./support.js";
import { projectsRuntime, newUser, testProjectsModule } from "./support.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { addProjectMember, createProject } from "../../core/projects/Projects.js";
import { addWorkspaceMember, createWorkspace } from "../../core/projects/Workspaces.js";


/** A mailer that records what it sent. */
export const recordingMailer = () => {
  const sent: MailMessage[] = [];
  const mailer: Mailer = { send: (m) => Effect.sync(() => void sent.push(m)) };
  return { mailer, sent };
};

/** The consumers of slice 2A plus realtime fan-out. */
export const slice2aConsumers: ReadonlyArray<Consumer<any>> = [
  mentionNotificationsConsumer,
  searchIndexingConsumer,
  realtimeConsumer({ channelsFor: projectChannelsFor }),
];

/** The job handlers of slice 2A. */
export const slice2aJobHandlers: ReadonlyArray<JobHandler<any>> = [mentionEmailJobHandler, rankRebalanceJobHandler];

/**
 * The projects module extended with slice 2A (what the lead's wiring diff produces). Works
 * before and after that diff: whatever the module already has is kept once, and the mailer
 * given here replaces the module's own.
 */
export const slice2aModule = (mailer: Mailer = recordingMailer().mailer) => makeProjectsModule({ mailer });

/** A core runtime of the projects module (its definition, with `mailer`: recording by default; `overrides` win). */
export const slice2aRuntime = (t: HasTeardown, db: SqlDatabase, options: { mailer?: Mailer; overrides?: Layer.Layer<never> } = {}) =>
  projectsRuntime(t, db, options.overrides, testProjectsModule(options.mailer ?? recordingMailer().mailer));

/** Relays the outbox to `consumers` until nothing is pending; answers the passes' totals. */
export const drainOutbox = (consumers: ReadonlyArray<Consumer<any>> = slice2aConsumers) =>
  Effect.gen(function* () {
    let delivered = 0;
    let retried = 0;
    for (let i = 0; i < 50; i++) {
      const pass = yield* relayOnce(consumers, { workerId: "test-relay", backoff: { baseMs: 1, maxMs: 1, maxAttempts: 8 } });
      delivered += pass.delivered;
      retried += pass.retried;
      if (pass.claimed === 0) break;
    }
    return { delivered, retried };
    // Expected consumer failures (outage tests) are retried, not news: keep the test output quiet.
  }).pipe(Logger.withMinimumLogLevel(LogLevel.Error));

/** Runs due jobs until none is due; answers the totals. */
export const drainJobs = (handlers: ReadonlyArray<JobHandler<any>> = slice2aJobHandlers) =>
  Effect.gen(function* () {
    const totals = { done: 0, retried: 0, dead: 0 };
    for (let i = 0; i < 50; i++) {
      const pass = yield* runJobsOnce(handlers, { workerId: "test-jobs" });
      totals.done += pass.done;
      totals.retried += pass.retried;
      totals.dead += pass.dead;
      if (pass.claimed === 0) break;
    }
    return totals;
  }).pipe(Logger.withMinimumLogLevel(LogLevel.Error));

/** A workspace and project made through the core, with users holding the given roles. */
export const coreFixture = async (
  run: <A, E>(effect: Effect.Effect<A, E, any>) => Promise<A>,
  members: Readonly<Record<string, { workspace: "member" | "guest"; project?: "admin" | "contributor" | "commenter" | "viewer" }>> = {},
) => {
  const owner = newUser();
  const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
  const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
  const users: Record<string, ReturnType<typeof newUser>> = {};
  for (const [name, roles] of Object.entries(members)) {
    const user = newUser();
    await run(addWorkspaceMember(owner, workspace.id, { userId: user.userId, role: roles.workspace }));
    if (roles.project !== undefined) await run(addProjectMember(owner, project.id, { userId: user.userId, role: roles.project }));
    users[name] = user;
  }
  return { owner, workspace, project, users };
};

/** Every outbox envelope of `type`, oldest first. */
export const outboxEvents = async (db: SqlDatabase, type: string): Promise<EventEnvelope[]> => {
  const rows = await db.db.selectFrom("outbox").select(["event"]).where("type", "=", type).orderBy("seq").execute();
  return rows.map((r) => featuresFor(db).jsonFromDb(r.event) as EventEnvelope);
};

/** A reference server mounting the extended module, its worker off (tests drain explicitly). */
export const startSlice2aServer = async (t: HasTeardown, target: Dialect | Config, mailer?: Mailer) => {
  const config = typeof target === "string" ? await testConfig(target, t, { WORKER_IN_PROCESS: "false" }) : { ...target, workerInProcess: false };
  const { server } = await startReferenceServer(t, config, { modules: [slice2aModule(mailer)] });
  const client = async (userId: string = randomUUID()): Promise<Client> => {
    const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });
    return {
      userId,
      call: async (method, path, body, headers = {}) => {
        const response = await fetch(`${server.url}${path}`, {
          method,
          headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        return { status: response.status, body: text === "" ? undefined : JSON.parse(text), headers: response.headers };
      },
    };
  };
  /** Relays the outbox and runs due jobs on the server's runtime. */
  const drain = async () => {
    await server.core.runtime.runPromise(drainOutbox());
    return server.core.runtime.runPromise(drainJobs());
  };
  return { server, client, db: server.core.database, drain };
};
