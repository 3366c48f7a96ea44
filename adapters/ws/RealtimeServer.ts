/**
 * The realtime host: `/v1/realtime` on an existing http.Server. Authenticates at the upgrade,
 * speaks the subscribe / event / unsubscribed protocol, fans bus notices out to the local
 * subscribers (the bus itself crosses processes), drops subscriptions whose access was revoked
 * and sockets whose token epoch was bumped, and terminates sockets that stop answering pings.
 * Access is re-checked on every access notice and, because a notice can be lost (it is published
 * after commit and is only a hint), again on a timer: no subscription trusts its subscribe-time
 * decision for longer than `recheckMs`.
 */
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { Effect, Either, type ManagedRuntime } from "effect";
import WebSocket, { WebSocketServer } from "ws";
import { isDomainError } from "../../core/kernel/Errors.js";
import { ChannelAuthorizers, ChannelLog, RealtimeBus, type RealtimeNotice } from "../../ports/Realtime.js";
import { UserEpochs } from "../../ports/UserEpochs.js";
import { closeCodeGoingAway, closeCodeRevoked, parseChannel, readClientMessage, type RefusedMessage } from "./Protocol.js";
import { encodeEvent, RealtimeConnection, type EncodedPage } from "./RealtimeConnection.js";
import { rejectUpgrade, tokenFrom, type Authenticate, type AuthenticatedPrincipal } from "./UpgradeAuthentication.js";

/**
 * The documented default of each bound a client meets (docs/conventions.md, Realtime); a host
 * overrides any of them in `attachRealtime`'s options.
 */
export const defaultRealtimeLimits = {
  /** Ping interval; a socket that has not answered the previous ping is cut (so after one to two intervals). */
  heartbeatMs: 30_000,
  /** Longest an access decision is trusted without an access notice. */
  recheckMs: 60_000,
  /** Subscriptions per connection. */
  maxSubscriptions: 100,
  /** Largest incoming frame, in bytes. */
  maxPayload: 65_536,
  /** Unsent bytes one socket may hold before it is closed as a slow consumer (1 MiB). */
  maxBufferedBytes: 1_048_576,
  /** Messages of one connection received and not yet handled (twice the subscriptions, so a full resubscribe fits). */
  maxPendingMessages: 200,
  /** Messages one connection may send per window (as HTTP's per-caller budget). */
  messagesPerWindow: 300,
  /** Length of that window, in seconds. */
  messageWindowSeconds: 10,
} as const;

/** The ports the realtime host uses. */
export type RealtimeServices = ChannelLog | RealtimeBus | ChannelAuthorizers | UserEpochs;

/** How the realtime endpoint is attached. */
export interface RealtimeOptions {
  /** Verifies a bearer token; the host decides how (the reference server verifies JWTs). */
  readonly authenticate: Authenticate;
  readonly runtime: ManagedRuntime.ManagedRuntime<RealtimeServices, unknown>;
  /** Ping interval; a socket that missed the previous pong is terminated (default 30 s). */
  readonly heartbeatMs?: number;
  readonly path?: string; // default "/v1/realtime"
  /** Subscriptions per connection (default 100). */
  readonly maxSubscriptions?: number;
  /** Largest incoming frame in bytes (default 64 KiB). */
  readonly maxPayload?: number;
  /** Messages read from the channel log per query (default 200). */
  readonly pageSize?: number;
  /** Unsent bytes one socket may hold; past it, it is closed 1013 `slow_consumer` (default 1 MiB). */
  readonly maxBufferedBytes?: number;
  /** Messages of one connection waiting to be handled; more answer `rate_limited` (default 200). */
  readonly maxPendingMessages?: number;
  /** Messages one connection may send per `messageWindowSeconds`; more answer `rate_limited` (default 300). */
  readonly messagesPerWindow?: number;
  /** The window of `messagesPerWindow`, in seconds (default 10). */
  readonly messageWindowSeconds?: number;
  /**
   * Longest time a connection's access decisions are trusted without an access notice (default
   * 60 s): each connection re-checks its token's epoch and its subscriptions at a moment drawn
   * between half of it and all of it, so the re-checks of many sockets are spread out.
   */
  readonly recheckMs?: number;
  /**
   * The per-IP failed-authentication budget the HTTP routes spend (adapters/koa/RateLimit.ts
   * `failedAuthentications`): a refused token spends a point, and an IP with none left is refused
   * 429 before its token is checked. None when omitted.
   */
  readonly failedAuthentications?: {
    readonly retryAfterSeconds: (ip: string) => number | null;
    readonly record: (ip: string) => Promise<void>;
  };
  /** The client's address as the HTTP app reads it (behind proxies); the TCP peer when omitted. */
  readonly clientIp?: (request: IncomingMessage) => string;
}

/** The attached endpoint. */
export interface RealtimeHandle {
  /** Live connections (for health and tests). */
  readonly connectionCount: () => number;
  /** Channel subscriptions over all connections (the websocket metrics). */
  readonly subscriptionCount: () => number;
  /** Stops accepting upgrades, stops listening to the bus and closes every socket. */
  readonly close: () => Promise<void>;
}

/** Attaches the realtime endpoint to `server`. */
export const attachRealtime = (server: Server, options: RealtimeOptions): RealtimeHandle => {
  const path = options.path ?? "/v1/realtime";
  const limits = { ...defaultRealtimeLimits, ...stripUndefined(options) };
  const { heartbeatMs, recheckMs } = limits;
  const runtime = options.runtime;
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxPayload });
  const connections = new Set<RealtimeConnection>();
  const byChannel = new Map<string, Set<RealtimeConnection>>();
  const byUser = new Map<string, Set<RealtimeConnection>>();
  let closing = false;

  const warn = (message: string, fields: Record<string, unknown>): void => {
    // On the host runtime, so the line goes through its logger (pino), not the console.
    runtime.runFork(Effect.logWarning(message).pipe(Effect.annotateLogs(fields)));
  };
  const run = <A>(effect: Effect.Effect<A, unknown, RealtimeServices>): Promise<A> => runtime.runPromise(effect);

  // Reads in flight, by channel, offset and size: a notice wakes every subscriber of a channel at
  // once, and those at the same offset share one query and one serialization of each message.
  const pagesInFlight = new Map<string, Promise<EncodedPage>>();
  const readPage = (channel: string, since: number, limit: number): Promise<EncodedPage> => {
    const key = `${since}:${limit}:${channel}`;
    let page = pagesInFlight.get(key);
    if (page === undefined) {
      page = run(
        Effect.all([Effect.flatMap(ChannelLog, (log) => log.readSince(channel, since, limit)), Effect.map(ChannelAuthorizers, (authorizers) => authorizers.forKind(parseChannel(channel)?.kind ?? ""))]),
      ).then(([read, authorizer]) => ({
        resync: read.resync,
        messages: read.messages.map((message) => ({
          offset: message.offset,
          // Who acted is an account id: sent only on the kinds whose subscribers may see it.
          frame: encodeEvent(channel, message.offset, authorizer?.showsActor === true ? message.event : { ...message.event, actor_id: null }),
        })),
      }));
      pagesInFlight.set(key, page);
      const forget = (): void => void pagesInFlight.delete(key);
      page.then(forget, forget);
    }
    return page;
  };

  const index = <K>(map: Map<K, Set<RealtimeConnection>>, key: K, connection: RealtimeConnection) => {
    let set = map.get(key);
    if (set === undefined) map.set(key, (set = new Set()));
    set.add(connection);
  };
  const unindex = <K>(map: Map<K, Set<RealtimeConnection>>, key: K, connection: RealtimeConnection) => {
    const set = map.get(key);
    set?.delete(connection);
    if (set?.size === 0) map.delete(key);
  };

  /** Closes the connection if the user's epoch moved past the token's; true when it did. */
  const closeIfRevoked = async (connection: RealtimeConnection, userId: string): Promise<boolean> => {
    if (connection.epoch === null) return false;
    const current = await run(Effect.flatMap(UserEpochs, (epochs) => epochs.current(userId)));
    if (current <= connection.epoch) return false;
    connection.socket.close(closeCodeRevoked, "token_revoked");
    return true;
  };

  const onNotice = (notice: RealtimeNotice): void => {
    if (closing) return;
    if (notice.type === "message") {
      for (const connection of byChannel.get(notice.channel) ?? []) connection.notify(notice.channel, notice.offset);
      return;
    }
    if (notice.type === "resume") {
      // Whatever was announced while the bus was away is in the channel logs; revocations too.
      for (const [channel, connections] of byChannel) {
        for (const connection of connections) connection.notify(channel, Number.MAX_SAFE_INTEGER);
      }
      for (const [userId, connections] of byUser) {
        for (const connection of connections) {
          connection.enqueue(async () => {
            if (await closeIfRevoked(connection, userId)) return;
            await connection.recheck(undefined);
          });
        }
      }
      return;
    }
    for (const connection of byUser.get(notice.userId) ?? []) {
      connection.enqueue(async () => {
        if (await closeIfRevoked(connection, notice.userId)) return;
        await connection.recheck(notice.channel);
      });
    }
  };
  // Subscriptions wait for the listener, so no notice published after a subscribe is missed.
  const listening = run(Effect.flatMap(RealtimeBus, (bus) => bus.listen(onNotice)));
  listening.catch((error: unknown) => warn("realtime bus listen failed", { error: String(error) }));

  const accept = (socket: WebSocket, principal: AuthenticatedPrincipal, epoch: number | null): void => {
    const connection = new RealtimeConnection(socket, principal, epoch, {
      run,
      readPage,
      maxSubscriptions: limits.maxSubscriptions,
      pageSize: options.pageSize ?? 200,
      maxBufferedBytes: limits.maxBufferedBytes,
      onSubscribed: (c, channel) => index(byChannel, channel, c),
      onUnsubscribed: (c, channel) => unindex(byChannel, channel, c),
      warn,
    });
    connections.add(connection);
    if (connection.userId !== null) index(byUser, connection.userId, connection);
    // A token stands until its `exp`: the socket closes then, as HTTP answers 401 token_expired.
    const expiresAtMs = principal.expiresAtMs;
    const expired = (): boolean => expiresAtMs !== undefined && Date.now() >= expiresAtMs;
    let expiry: NodeJS.Timeout | undefined;
    const closeWhenExpired = (): void => {
      if (expiresAtMs === undefined) return;
      if (expired()) {
        socket.close(closeCodeRevoked, "token_expired");
        return;
      }
      // setTimeout takes at most 2^31 - 1 ms (about 24 days): a longer token waits in steps.
      expiry = setTimeout(closeWhenExpired, Math.min(expiresAtMs - Date.now(), 2 ** 31 - 1));
      expiry.unref();
    };
    closeWhenExpired();
    socket.on("pong", () => {
      connection.alive = true;
    });
    // Every message counts against the connection's budget for the window, malformed ones too.
    const windowMs = limits.messageWindowSeconds * 1000;
    let windowStart = Date.now();
    let windowMessages = 0;
    let pending = 0;
    socket.on("message", (data, isBinary) => {
      const read = isBinary ? Either.left<RefusedMessage>({ code: "malformed_json", detail: "a message must be a JSON text frame" }) : readClientMessage(data.toString());
      const now = Date.now();
      if (now - windowStart >= windowMs) {
        windowStart = now;
        windowMessages = 0;
      }
      windowMessages += 1;
      const channel = Either.isRight(read) ? { channel: read.right.channel } : {};
      if (windowMessages > limits.messagesPerWindow) {
        const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
        connection.send({ type: "error", ...channel, code: "rate_limited", detail: `at most ${limits.messagesPerWindow} messages per ${limits.messageWindowSeconds} s`, retry_after: retryAfter });
        return;
      }
      if (Either.isLeft(read)) {
        connection.send({ type: "error", code: read.left.code, detail: read.left.detail });
        return;
      }
      const message = read.right;
      // A message that arrives in the moment between the expiry and its timer is not served.
      if (expired()) {
        socket.close(closeCodeRevoked, "token_expired");
        return;
      }
      // Messages are handled one at a time; a burst beyond the bound is refused, not queued.
      if (pending >= limits.maxPendingMessages) {
        connection.send({ type: "error", channel: message.channel, code: "rate_limited", detail: `at most ${limits.maxPendingMessages} messages waiting`, retry_after: 1 });
        return;
      }
      pending += 1;
      const handle = async (): Promise<void> => {
        if (message.type === "unsubscribe") return connection.unsubscribe(message.channel);
        const ready = await listening.then(
          () => true,
          () => false,
        );
        if (!ready) connection.send({ type: "error", channel: message.channel, code: "service_unavailable" });
        else await connection.subscribe(message.channel, message.since ?? null);
      };
      connection.enqueue(() => handle().finally(() => void (pending -= 1)));
    });
    socket.on("error", (error) => warn("realtime socket error", { error: error.message }));
    socket.on("close", () => {
      clearTimeout(expiry);
      connections.delete(connection);
      if (connection.userId !== null) unindex(byUser, connection.userId, connection);
      connection.dispose();
    });
  };

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname !== path) {
      // Another upgrade handler may own this path; answer only when nobody else can.
      if (server.listenerCount("upgrade") === 1) rejectUpgrade(socket, 404, "not_found", "no websocket endpoint here");
      return;
    }
    socket.on("error", () => socket.destroy());
    if (closing) {
      rejectUpgrade(socket, 503, "service_unavailable", "the server is shutting down");
      return;
    }
    const token = tokenFrom(request, url);
    if (token === null) {
      rejectUpgrade(socket, 401, "authentication_required", "a bearer token is required");
      return;
    }
    void (async () => {
      const ip = options.clientIp?.(request) ?? request.socket.remoteAddress ?? "unknown";
      const failures = options.failedAuthentications;
      const wait = failures === undefined ? null : failures.retryAfterSeconds(ip);
      if (wait !== null) {
        rejectUpgrade(socket, 429, "rate_limited", "too many failed authentications from this address", wait);
        return;
      }
      let principal: AuthenticatedPrincipal | null = null;
      let code = "invalid_token";
      try {
        principal = await options.authenticate(token);
      } catch (error) {
        // A verifier may throw Unauthorized (e.g. verifyToken): keep its code (token_expired, ...).
        // Anything else (the database down) is no verdict on the token: the 503 below, nothing
        // counted against the address. The token itself is never logged.
        if (!(isDomainError(error) && error.category === "unauthorized")) throw error;
        code = error.code;
      }
      if (principal === null) {
        await failures?.record(ip);
        rejectUpgrade(socket, 401, code, "the token is missing, invalid, expired or revoked");
        return;
      }
      let epoch: number | null = null;
      if (principal.kind === "user") {
        const userId = principal.userId;
        const current = await run(Effect.flatMap(UserEpochs, (epochs) => epochs.current(userId)));
        if (principal.epoch !== undefined && principal.epoch < current) {
          await failures?.record(ip);
          rejectUpgrade(socket, 401, "token_revoked", "the token was revoked");
          return;
        }
        epoch = principal.epoch ?? current;
      }
      if (closing || socket.destroyed) {
        socket.destroy();
        return;
      }
      const accepted = principal;
      wss.handleUpgrade(request, socket, head, (ws) => accept(ws, accepted, epoch));
    })().catch((error: unknown) => {
      warn("realtime upgrade failed", { error: String(error) });
      // As HTTP answers a dependency's outage (docs/conventions.md, Errors).
      rejectUpgrade(socket, 503, "service_unavailable", "the realtime service is unavailable", 5);
    });
  };
  server.on("upgrade", onUpgrade);

  // Periodic re-authorization: each connection is due at its own time, drawn in
  // [recheckMs / 2, recheckMs) after its last check; a tick re-checks the connections that are due.
  const nextRecheck = new WeakMap<RealtimeConnection, number>();
  const drawRecheck = (connection: RealtimeConnection, now: number): void =>
    void nextRecheck.set(connection, now + recheckMs / 2 + Math.random() * (recheckMs / 2));
  const recheckDue = (): void => {
    if (closing) return;
    const now = Date.now();
    for (const connection of connections) {
      const due = nextRecheck.get(connection);
      if (due === undefined) {
        drawRecheck(connection, now);
        continue;
      }
      if (due > now) continue;
      drawRecheck(connection, now);
      const userId = connection.userId;
      connection.enqueue(async () => {
        if (userId !== null && (await closeIfRevoked(connection, userId))) return;
        await connection.recheck(undefined);
      });
    }
  };
  const rechecks = setInterval(recheckDue, Math.max(10, Math.min(1_000, recheckMs / 4)));
  rechecks.unref();

  const heartbeat = setInterval(() => {
    for (const connection of connections) {
      if (!connection.alive) {
        connection.socket.terminate();
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
    }
  }, heartbeatMs);
  heartbeat.unref();

  let closed: Promise<void> | undefined;
  return {
    connectionCount: () => connections.size,
    subscriptionCount: () => {
      let count = 0;
      for (const subscribers of byChannel.values()) count += subscribers.size;
      return count;
    },
    close: () => {
      closed ??= (async () => {
        closing = true;
        clearInterval(heartbeat);
        clearInterval(rechecks);
        server.off("upgrade", onUpgrade);
        const unlisten = await listening.catch(() => undefined);
        unlisten?.();
        const sockets = [...connections].map((c) => c.socket);
        await Promise.all(
          sockets.map(
            (socket) =>
              new Promise<void>((resolve) => {
                if (socket.readyState === WebSocket.CLOSED) return resolve();
                const timer = setTimeout(() => {
                  socket.terminate();
                  resolve();
                }, 1_000);
                socket.once("close", () => {
                  clearTimeout(timer);
                  resolve();
                });
                socket.close(closeCodeGoingAway, "server_shutdown");
              }),
          ),
        );
        await Promise.all([...connections].map((c) => c.settled()));
        await new Promise<void>((resolve) => wss.close(() => resolve()));
      })();
      return closed;
    },
  };
};

/** `options` without its undefined fields, so they do not override the defaults. */
const stripUndefined = <T extends object>(options: T): Partial<T> =>
  Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
