/**
 * A deployment whose worker runs as its own process (`WORKER_IN_PROCESS=false` beside
 * `domainkit worker`), on SQLite and Postgres: the worker relays a write to the server's realtime
 * subscribers, and a one-off `domainkit revoke` closes the user's socket at once (not at the next
 * periodic recheck). On SQLite both cross the processes through the file (SqliteRealtimeBus.ts).
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import WebSocket from "ws";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { cli, forEachDialectConfig, hostSecret, spawnCli, startReferenceServer, testConfig } from "./support.js";
import type { Dialect } from "../support/databases.js";

/** Answers the first message of the socket that `accept` takes, or fails after `ms`. */
const nextMessage = (socket: WebSocket, accept: (message: any) => boolean, ms: number): Promise<any> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off("message", onMessage);
      reject(new Error(`no such message within ${ms} ms`));
    }, ms);
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(String(data));
      if (!accept(message)) return;
      clearTimeout(timer);
      socket.off("message", onMessage);
      resolve(message);
    };
    socket.on("message", onMessage);
  });

t.test("with the worker in its own process, realtime events and revocations reach the server's sockets", (t) =>
  forEachDialectConfig(t, "separate worker", async (t, base, dialect: Dialect) => {
    const config = await testConfig(dialect, t, { WORKER_IN_PROCESS: "false", ...(base.databaseUrl ? { DATABASE_URL: base.databaseUrl } : {}) });
    const { server } = await startReferenceServer(t, config);
    spawnCli(t, config, ["worker"]);
    const userId = randomUUID();
    const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });
    const call = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      t.equal(response.status, 201, `POST ${path}`);
      return (await response.json()) as { id: string };
    };
    const workspace = await call("/v1/workspaces", { name: "Separate worker" });
    const project = await call(`/v1/workspaces/${workspace.id}/projects`, { name: "Launch" });

    const socket = new WebSocket(`${server.url.replace("http", "ws")}/v1/realtime`, { headers: { Authorization: `Bearer ${token}` } });
    t.teardown(() => socket.terminate());
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    const subscribed = nextMessage(socket, (m) => m.type === "subscribed", 5_000);
    socket.send(JSON.stringify({ type: "subscribe", channel: `project:${project.id}` }));
    await subscribed;

    // The worker process may still be starting on a loaded machine (it loads every module): the
    // claim is that it relays, not how soon after its start.
    const event = nextMessage(socket, (m) => m.type === "event" && m.event.type === "TaskCreated", 60_000);
    const task = await call(`/v1/projects/${project.id}/tasks`, { title: "Relayed by the worker" }, { "idempotency-key": randomUUID() });
    t.equal((await event).event.aggregate_id, task.id, "the worker process relayed the task to the server's subscriber");

    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    await cli(config, ["revoke", "--user", userId]);
    const started = Date.now();
    const code = await Promise.race([closed, new Promise<number>((resolve) => setTimeout(() => resolve(-1), 3_000))]);
    t.equal(code, 4401, `the revoked user's socket is closed (${Date.now() - started} ms after the command returned)`);
  }),
);
