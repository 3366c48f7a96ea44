/**
 * Test support of the project module: a reference server mounting it (HTTP tests), a core
 * runtime over one test database (storage-level tests), users with tokens, a JSON client and a
 * small fixture (workspace, project, members) built through the public API.
 */
import type { Config } from "../../hosts/Config.js";
import "../../adapters/sql/projects/index.js";
import { randomUUID } from "node:crypto";
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option } from "effect";
import { mintToken } from "../../adapters/koa/Authentication.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { StoragePorts } from "../../adapters/sql/storageLayer.js";
import { makeProjectsModule, projectsModule, type ProjectsPorts } from "../../hosts/modules/projectsModule.js";
import type { ServerOptions } from "../../hosts/ReferenceServer.js";
import type { Mailer } from "../../ports/Mailer.js";
import { RealtimeBus } from "../../ports/Realtime.js";
import type { Principal } from "../../ports/Principal.js";
import type { Dialect, HasTeardown } from "../support/databases.js";
import { moduleLayer } from "../support/moduleLayer.js";
import { hostSecret, startReferenceServer, testConfig } from "../hosts/support.js";

/** Every service the project core needs: the kernel storage ports, the module's ports and a realtime bus. */
export type ProjectServices = StoragePorts | ProjectsPorts | RealtimeBus;

/** A mailer that drops every message (core-level tests that do not look at mail). */
const discardingMailer: Mailer = { send: () => Effect.void };

/**
 * The project module as core-level tests compose it: its own definition, with `mailer` (default:
 * discards), and direct member adds (`addWorkspaceMember` makes members at once, for tests about
 * something else than how users join; test/projects/invitations.test.ts holds the default).
 */
export const testProjectsModule = (mailer: Mailer = discardingMailer) => makeProjectsModule({ mailer, directMemberAdds: true });

/** A bus that records notices (no other process listens in these tests). */
export const recordingBus = () => {
  const notices: unknown[] = [];
  const bus: RealtimeBus = {
    publish: (notice) => Effect.sync(() => void notices.push(notice)),
    listen: () => Effect.succeed(() => undefined),
  };
  return { bus, notices };
};

/**
 * A runtime of the project core over `db`, built from the module's definition (`module`, by
 * default `testProjectsModule()`), with a recording realtime bus; `overrides` replace any port.
 * Disposed at teardown.
 */
export const projectsRuntime = (
  t: HasTeardown,
  db: SqlDatabase,
  overrides: Layer.Layer<never> = Layer.empty,
  module: ReturnType<typeof makeProjectsModule> = testProjectsModule(),
) => {
  const { bus, notices } = recordingBus();
  const runtime = ManagedRuntime.make(Layer.merge(Layer.merge(moduleLayer(db, [module]), Layer.succeed(RealtimeBus, bus)), overrides));
  t.teardown(() => runtime.dispose());
  return {
    notices,
    run: <A, E>(effect: Effect.Effect<A, E, ProjectServices>): Promise<A> => runtime.runPromise(effect),
    /** The typed failure, the value, or the defect of `effect`. */
    attempt: async <A, E>(
      effect: Effect.Effect<A, E, ProjectServices>,
    ): Promise<{ ok: true; value: A } | { ok: false; error?: E; defect?: unknown }> => {
      const exit = await runtime.runPromiseExit(effect);
      if (Exit.isSuccess(exit)) return { ok: true, value: exit.value };
      const failure = Cause.failureOption(exit.cause);
      return Option.isSome(failure) ? { ok: false, error: failure.value } : { ok: false, defect: Cause.squash(exit.cause) };
    },
  };
};

/** A user principal with a fresh id. */
export const newUser = (): Principal & { kind: "user" } => ({ kind: "user", userId: randomUUID() });

/** A JSON answer. */
export interface Answer {
  readonly status: number;
  readonly body: any;
  readonly headers: Headers;
}

/** One user's HTTP client of a running server. */
export interface Client {
  readonly userId: string;
  readonly call: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer>;
}

/** A reference server mounting only the project module. */
/** `target`: a dialect (a fresh configuration is made) or the configuration `forEachDialectConfig` made. */
export const startProjectsServer = async (t: HasTeardown, target: Dialect | Config, options: Omit<ServerOptions, "modules"> = {}) => {
  const config = typeof target === "string" ? await testConfig(target, t) : target;
  const { server } = await startReferenceServer(t, config, { ...options, modules: [projectsModule] });
  const client = async (userId: string = randomUUID()): Promise<Client> => {
    const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });
    return {
      userId,
      call: async (method, path, body, headers = {}) => {
        const response = await fetch(`${server.url}${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { "Content-Type": "application/json" }),
            ...headers,
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        return { status: response.status, body: text === "" ? undefined : JSON.parse(text), headers: response.headers };
      },
    };
  };
  return { server, client, db: server.core.database };
};

/**
 * Makes `invitee` a member of the workspace with `role` the way a user joins one: an owner
 * invites it and it accepts (consent before membership). Throws on any other answer; answers the
 * accepted invitation and the membership.
 */
export const inviteAndAccept = async (owner: Client, workspaceId: string, invitee: Pick<Client, "userId" | "call">, role: "owner" | "member" | "guest") => {
  const invited = await owner.call("POST", `/v1/workspaces/${workspaceId}/invitations`, { user_id: invitee.userId, role });
  if (invited.status !== 201) throw new Error(`invitation: ${invited.status} ${JSON.stringify(invited.body)}`);
  const accepted = await invitee.call("POST", `/v1/invitations/${invited.body.id}/accept`);
  if (accepted.status !== 200) throw new Error(`acceptance: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return accepted.body as { invitation: { id: string; status: string }; member: { user_id: string; role: string } };
};

/** A workspace with an owner, a project, and clients for each role asked for (members join by invitation). */
export const projectFixture = async (
  client: (userId?: string) => Promise<Client>,
  members: Readonly<Record<string, { workspace: "member" | "guest"; project?: "admin" | "contributor" | "commenter" | "viewer" }>> = {},
) => {
  const owner = await client();
  const workspace = await owner.call("POST", "/v1/workspaces", { name: "Acme" });
  if (workspace.status !== 201) throw new Error(`workspace: ${workspace.status} ${JSON.stringify(workspace.body)}`);
  const project = await owner.call("POST", `/v1/workspaces/${workspace.body.id}/projects`, { name: "Launch" });
  if (project.status !== 201) throw new Error(`project: ${project.status} ${JSON.stringify(project.body)}`);
  const clients: Record<string, Client> = {};
  for (const [name, roles] of Object.entries(members)) {
    const c = await client();
    await inviteAndAccept(owner, workspace.body.id, c, roles.workspace);
    if (roles.project !== undefined) {
      const shared = await owner.call("POST", `/v1/projects/${project.body.id}/members`, { user_id: c.userId, role: roles.project });
      if (shared.status !== 201) throw new Error(`share ${name}: ${shared.status} ${JSON.stringify(shared.body)}`);
    }
    clients[name] = c;
  }
  return { owner, workspaceId: workspace.body.id as string, projectId: project.body.id as string, clients };
};
