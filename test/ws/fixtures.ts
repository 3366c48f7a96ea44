/** Helpers for the realtime tests: a real http server with the realtime endpoint, and a `ws` test client. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Effect, Layer } from "effect";
import WebSocket from "ws";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { makeSqlChannelLog } from "../../adapters/sql/SqlChannelLog.js";
import { makeTransactions } from "../../adapters/sql/Transactions.js";
import { attachRealtime, type RealtimeHandle, type RealtimeOptions } from "../../adapters/ws/RealtimeServer.js";
import type { AuthenticatedPrincipal } from "../../adapters/ws/UpgradeAuthentication.js";
import { ChannelAuthorizers, ChannelLog, RealtimeBus, type ChannelAuthorizer, type RealtimeNotice } from "../../ports/Realtime.js";
import { UserEpochs } from "../../ports/UserEpochs.js";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { Unauthorized } from "../../core/kernel/Errors.js";
import { openRuntime, type TestPorts } from "../worker/fixtures.js";
import type { ManagedRuntime } from "effect";

/** Who may see which project: `${userId}:${projectId}`; tests grant and revoke by editing it. */
export type Memberships = Set<string>;

/** Tokens the test authenticator knows. */
export const tokens: Record<string, AuthenticatedPrincipal> = {
  "token-alice": { kind: "user", userId: "alice", epoch: 0 },
  "token-bob": { kind: "user", userId: "bob", epoch: 0 },
  "token-carol": { kind: "user", userId: "carol", epoch: 0 },
  // A verifier that does not report the epoch: the user's epoch at connect time is used.
  "token-dave": { kind: "user", userId: "dave" },
};

/** One process-like realtime instance: its own runtime, bus and server over `db`. */
export interface RealtimeInstance {
  readonly url: string;
  readonly runtime: ManagedRuntime.ManagedRuntime<TestPorts | ChannelAuthorizers, never>;
  readonly handle: RealtimeHandle;
  readonly server: Server;
  /** Appends `event` to `channel` and announces it on the bus (what the realtime consumer does). */
  readonly publishEvent: (channel: string, event: EventEnvelope) => Promise<number>;
  readonly publish: (notice: RealtimeNotice) => Promise<void>;
  readonly bumpEpoch: (userId: string) => Promise<number>;
}

/** Starts a realtime instance on 127.0.0.1 with a `project` authorizer backed by `memberships`. */
export const startRealtime = async (
  t: { teardown: (fn: () => unknown) => unknown },
  db: SqlDatabase,
  memberships: Memberships,
  options: {
    heartbeatMs?: number;
    recheckMs?: number;
    wrapLog?: (log: ChannelLog) => ChannelLog;
    /** Any other bound of the endpoint (maxSubscriptions, maxBufferedBytes, ...). */
    limits?: Partial<Omit<RealtimeOptions, "authenticate" | "runtime">>;
  } = {},
): Promise<RealtimeInstance> => {
  const project: ChannelAuthorizer = {
    kind: "project",
    authorize: (principal, id) =>
      Effect.succeed(principal.kind === "user" && memberships.has(`${principal.userId}:${id}`)),
  };
  const authorizers = Layer.succeed(ChannelAuthorizers, { forKind: (kind) => (kind === "project" ? project : undefined) });
  const wrapLog = options.wrapLog;
  const log =
    wrapLog === undefined
      ? Layer.empty
      : Layer.succeed(ChannelLog, wrapLog(makeSqlChannelLog(db, featuresFor(db), makeTransactions(db))));
  const { runtime, close } = await openRuntime(db, Layer.merge(authorizers, log));
  const server = createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  const handle = attachRealtime(server, {
    runtime,
    authenticate: async (token) => {
      // Like verifyToken of the Koa host: an expired token is refused by throwing Unauthorized.
      if (token === "token-expired") throw new Unauthorized({ reason: "expired" });
      return tokens[token] ?? null;
    },
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    ...(options.recheckMs === undefined ? {} : { recheckMs: options.recheckMs }),
    ...options.limits,
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.teardown(async () => {
    await handle.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await close();
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}/v1/realtime`,
    runtime,
    handle,
    server,
    publishEvent: (channel, event) =>
      runtime.runPromise(
        Effect.gen(function* () {
          const message = yield* (yield* ChannelLog).append(channel, event);
          yield* (yield* RealtimeBus).publish({ type: "message", channel, offset: message.offset });
          return message.offset;
        }),
      ),
    publish: (notice) => runtime.runPromise(Effect.flatMap(RealtimeBus, (bus) => bus.publish(notice))),
    bumpEpoch: (userId) => runtime.runPromise(Effect.flatMap(UserEpochs, (epochs) => epochs.bump(userId))),
  };
};

/** The answer to a refused upgrade. */
export interface RefusedUpgrade {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: Record<string, unknown>;
}

/** A refusal's body: its JSON, or the text when it is none (a server without the endpoint). */
const parseBody = (text: string): Record<string, unknown> => {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { text };
  }
};

/** A server message as the client sees it. */
export type Received = Record<string, any>;

/** A `ws` client that records every message and lets a test wait for the next one it expects. */
export class TestClient {
  readonly received: Received[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly waiters = new Set<() => void>();

  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => {
      this.received.push(JSON.parse(data.toString()));
      for (const wake of this.waiters) wake();
    });
    this.closed = new Promise((resolve) => socket.on("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  /** Opens a connection; rejects with the refusal when the upgrade is answered with an HTTP error. */
  static connect(url: string, options: { token?: string; query?: boolean; autoPong?: boolean; headers?: Record<string, string> } = {}): Promise<TestClient> {
    const target = options.token !== undefined && options.query ? `${url}?access_token=${encodeURIComponent(options.token)}` : url;
    const bearer = options.token !== undefined && !options.query ? { authorization: `Bearer ${options.token}` } : {};
    const headers = options.headers !== undefined || options.token !== undefined && !options.query ? { ...options.headers, ...bearer } : undefined;
    const socket = new WebSocket(target, { ...(headers ? { headers } : {}), autoPong: options.autoPong ?? true });
    return new Promise((resolve, reject) => {
      socket.once("open", () => resolve(new TestClient(socket)));
      socket.once("unexpected-response", (_req, res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () =>
          reject({ status: res.statusCode ?? 0, contentType: res.headers["content-type"], body: parseBody(text) } satisfies RefusedUpgrade),
        );
      });
      socket.once("error", (error) => reject(error));
    });
  }

  /** Sends a JSON message (or raw text). */
  send(message: unknown): void {
    this.socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  /** Resolves with the first received message that matches, waiting for it if needed. */
  async next(match: (m: Received) => boolean, timeoutMs = 5_000): Promise<Received> {
    const found = () => this.received.find(match);
    const immediate = found();
    if (immediate) return immediate;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(new Error(`no matching message within ${timeoutMs} ms; received ${JSON.stringify(this.received)}`));
      }, timeoutMs);
      const wake = () => {
        const message = found();
        if (message) {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve(message);
        }
      };
      this.waiters.add(wake);
    });
  }

  /**
   * The close code and reason, once the socket closed; `{ code: -1 }` if it did not within
   * `timeoutMs` (a guard against a hanging test, not a measure of time).
   */
  closedWithin(timeoutMs = 10_000): Promise<{ code: number; reason: string }> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<{ code: number; reason: string }>((resolve) => {
      timer = setTimeout(() => resolve({ code: -1, reason: `not closed within ${timeoutMs} ms` }), timeoutMs);
    });
    return Promise.race([this.closed, late]).finally(() => clearTimeout(timer));
  }

  /** Every `event` message received on `channel`, as [offset, event id]. */
  events(channel: string): Array<[number, string]> {
    return this.received.filter((m) => m.type === "event" && m.channel === channel).map((m) => [m.offset, m.event.id]);
  }

  close(): void {
    this.socket.close();
  }
}
