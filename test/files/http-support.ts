/**
 * HTTP test support of the file storage module: the reference server (which mounts files beside
 * projects and payments, sharing the project workspaces), users with tokens, a workspace made
 * over HTTP, a JSON caller, a realtime client, and the client side of an upload (PUT each part
 * to its grant, which is the local blob store's grant handler: storage, not an application
 * route).
 */
import { randomUUID } from "node:crypto";
import { mintToken } from "../../adapters/koa/Authentication.js";
import type { Consumer } from "../../adapters/worker/Consumer.js";
import { runJobsOnce, type JobHandler } from "../../adapters/worker/JobRunner.js";
import { relayOnce } from "../../adapters/worker/OutboxRelay.js";
import type { Config } from "../../hosts/Config.js";
import { hostSecret, startReferenceServer, testConfig } from "../hosts/support.js";
import { dialects, type Dialect, type HasTeardown, type TapTest } from "../support/databases.js";
import { sha256 } from "./support.js";
import { connectRealtimeClient, type RealtimeClient } from "../support/realtimeClient.js";

/** A JSON object as a test reads it. */
export type Json = Record<string, unknown>;

/** Runs `fn` as a subtest per dialect (`<name> [sqlite]`, `<name> [postgres]`), in parallel. */
export const eachDialect = (t: TapTest, name: string, fn: (t: TapTest, dialect: Dialect) => Promise<void>) =>
  Promise.all(dialects.map((dialect) => t.test(`${name} [${dialect}]`, (sub) => fn(sub, dialect))));

/** An answer: status, parsed body (`{}` when none), headers. */
export interface Answer {
  readonly status: number;
  readonly body: Json;
  readonly headers: Headers;
}

/** A user with a token. */
export interface User {
  readonly id: string;
  readonly token: string;
}

/** Starts the reference server on `dialect` with `env`; answers it, its config and helpers. */
export const startFilesServer = async (t: HasTeardown, dialect: Dialect, env: Record<string, string> = {}) => {
  const config: Config = await testConfig(dialect, t, env);
  const { server, logText } = await startReferenceServer(t, config);
  const call = async (
    path: string,
    options: { readonly user?: User; readonly method?: string; readonly body?: unknown; readonly headers?: Record<string, string> } = {},
  ): Promise<Answer> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.user !== undefined) headers.Authorization = `Bearer ${options.user.token}`;
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(`${server.url}${path}`, {
      method: options.method ?? (options.body === undefined ? "GET" : "POST"),
      headers,
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? {} : (JSON.parse(text) as Json), headers: response.headers };
  };
  /** A fresh user. */
  const user = async (): Promise<User> => {
    const id = randomUUID();
    return { id, token: await mintToken({ secret: hostSecret, userId: id, ttlSeconds: 600 }) };
  };
  /** Makes `member` a member of workspace `id` with `role` as users join: the owner invites, the member accepts. */
  const join = async (owner: User, id: string, member: User, role: "owner" | "member" | "guest" = "member"): Promise<void> => {
    const invited = await call(`/v1/workspaces/${id}/invitations`, { user: owner, body: { user_id: member.id, role } });
    if (invited.status !== 201) throw new Error(`invitation: ${invited.status} ${JSON.stringify(invited.body)}`);
    const accepted = await call(`/v1/invitations/${String(invited.body.id)}/accept`, { user: member, method: "POST" });
    if (accepted.status !== 200) throw new Error(`acceptance: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  };
  /** A project workspace owned by `owner` (a files admin) with `members`; answers its id and drive root. */
  const workspace = async (owner: User, members: ReadonlyArray<User> = []): Promise<{ readonly id: string; readonly root: string }> => {
    const created = await call("/v1/workspaces", { user: owner, body: { name: `ws-${randomUUID().slice(0, 8)}` } });
    if (created.status !== 201) throw new Error(`workspace: ${created.status} ${JSON.stringify(created.body)}`);
    const id = String(created.body.id);
    for (const member of members) await join(owner, id, member);
    const drive = await call(`/v1/workspaces/${id}/drive`, { user: owner });
    return { id, root: String(drive.body.root_node_id) };
  };
  /** PUTs `bytes` to a part grant as a client does (straight to the store). */
  const putPart = (part: Json, bytes: Uint8Array): Promise<Response> => {
    const url = String(part.url);
    return fetch(url.startsWith("http") ? url : `${server.url}${url}`, { method: "PUT", headers: part.headers as Record<string, string>, body: bytes });
  };
  /** Opens an upload of `bytes` (one key per call), PUTs every part, completes it; answers the version. */
  const upload = async (owner: User, parentId: string, name: string, bytes: Uint8Array, partSize: number, extra: Json = {}): Promise<Answer> => {
    const parts: string[] = [];
    for (let i = 0; i < Math.max(1, Math.ceil(bytes.length / partSize)); i++) parts.push(sha256(bytes.subarray(i * partSize, (i + 1) * partSize)));
    const session = await call("/v1/uploads", {
      user: owner,
      headers: { "Idempotency-Key": randomUUID() },
      body: { parent_id: parentId, name, size_bytes: bytes.length, sha256: sha256(bytes), content_type: "text/plain", part_sha256: parts, ...extra },
    });
    if (session.status !== 201) return session;
    for (const part of session.body.parts as Json[]) {
      const n = Number(part.part_number);
      const stored = await putPart(part, bytes.subarray((n - 1) * partSize, n * partSize));
      if (stored.status >= 300) throw new Error(`part ${n}: ${stored.status}`);
    }
    return call(`/v1/uploads/${String(session.body.id)}/complete`, { user: owner, body: { sha256: sha256(bytes) } });
  };
  /** Polls the node until its current version is set (the in-process worker scans), at most `ms`. */
  const published = async (owner: User, nodeId: string, ms = 10_000): Promise<Json> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const node = await call(`/v1/nodes/${nodeId}`, { user: owner });
      if (node.body.current_version_id !== null && node.body.current_version_id !== undefined) return node.body;
      if (Date.now() > deadline) throw new Error(`node ${nodeId} was not published within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /** Waits until version `versionId` of `nodeId` has left quarantine; answers it. */
  const scanned = async (owner: User, nodeId: string, versionId: string, ms = 10_000): Promise<Json> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const page = await call(`/v1/nodes/${nodeId}/versions`, { user: owner });
      const version = (page.body.data as Json[] | undefined)?.find((v) => v.id === versionId);
      if (version !== undefined && version.status !== "quarantined") return version;
      if (Date.now() > deadline) throw new Error(`version ${versionId} was not scanned within ${ms} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /**
   * Relays the outbox to the host's consumers and runs its due jobs, on the server's runtime, until
   * neither has anything left (for a server started with WORKER_IN_PROCESS=false: background work
   * happens exactly when a test says).
   */
  const drain = async (): Promise<void> => {
    const consumers: ReadonlyArray<Consumer<any>> = server.core.modules.flatMap((m) => m.consumers ?? []);
    const handlers: ReadonlyArray<JobHandler<any>> = server.core.modules.flatMap((m) => m.jobHandlers ?? []);
    for (let round = 0; round < 50; round++) {
      const relayed = await server.core.runtime.runPromise(relayOnce(consumers, { workerId: "test-relay", backoff: { baseMs: 1, maxMs: 1, maxAttempts: 8 } }));
      const ran = await server.core.runtime.runPromise(runJobsOnce(handlers, { workerId: "test-jobs" }));
      if (relayed.claimed === 0 && ran.claimed === 0) return;
    }
    throw new Error("background work did not settle in 50 rounds");
  };
  /** The drive's ACL epoch as stored (what revocations and downgrades bump). */
  const aclEpoch = async (workspaceId: string): Promise<number> =>
    Number((await server.core.database.db.selectFrom("fs_drives").select("acl_epoch").where("workspace_id", "=", workspaceId).executeTakeFirstOrThrow()).acl_epoch);
  return { server, config, logText, call, user, join, workspace, putPart, upload, published, scanned, drain, aclEpoch };
};

/** A realtime client of `user` that keeps every message it receives, closed at `t`'s teardown. */
export const connectRealtime = async (url: string, user: User, t: HasTeardown): Promise<RealtimeClient> => {
  const client = await connectRealtimeClient(url, user.token);
  t.teardown(() => client.close());
  return client;
};
