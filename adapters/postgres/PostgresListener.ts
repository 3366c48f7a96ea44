/**
 * The one way domainkit LISTENs on Postgres: a dedicated client (a pooled connection cannot hold
 * a LISTEN) that reconnects after an error with a doubling delay. Notices sent while it was away
 * are lost, so `onReady` runs after every (re)connection for the caller to catch up.
 */
import pg from "pg";

/** What a listener does with what it hears. */
export interface PostgresListenerHandlers {
  /** Each notification's payload on the channel. */
  readonly onPayload: (payload: string) => void;
  /** After LISTEN is in place, the first time and after every reconnection. */
  readonly onReady?: () => void;
}

/** A running listener. */
export interface PostgresListener {
  /** Resolves once the first LISTEN is in place; rejects if that first attempt failed (retries go on). */
  readonly ready: Promise<void>;
  /** Ends the connection and stops reconnecting. */
  readonly close: () => Promise<void>;
}

/** Reconnection delays. */
export interface ReconnectPolicy {
  readonly minMs: number;
  readonly maxMs: number;
}

const defaultReconnect: ReconnectPolicy = { minMs: 250, maxMs: 5_000 };

const safely = (fn: () => void): void => {
  try {
    fn();
  } catch {
    /* the handler's own problem */
  }
};

/** LISTENs on `channel` (a plain lower-case identifier) over its own connection to `connectionString`. */
export const listenPostgres = (
  connectionString: string,
  channel: string,
  handlers: PostgresListenerHandlers,
  reconnect: ReconnectPolicy = defaultReconnect,
): PostgresListener => {
  // Interpolated into LISTEN (which takes no parameters), so only a plain identifier is allowed.
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`listenPostgres: invalid channel name "${channel}"`);
  let closed = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let delayMs = reconnect.minMs;
  let settled = false;
  let resolveReady!: () => void;
  let rejectReady!: (error: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  // A caller that does not await `ready` must not see an unhandled rejection.
  ready.catch(() => undefined);

  const schedule = (): void => {
    if (closed) return;
    timer = setTimeout(() => void connect(), delayMs);
    timer.unref();
    delayMs = Math.min(delayMs * 2, reconnect.maxMs);
  };

  const connect = async (): Promise<void> => {
    if (closed) return;
    const current = new pg.Client({ connectionString });
    client = current;
    let failed = false;
    const fail = (error: unknown): void => {
      if (failed) return;
      failed = true;
      current.removeAllListeners("notification");
      void current.end().catch(() => undefined);
      if (client === current) client = undefined;
      if (!settled) {
        settled = true;
        rejectReady(error);
      }
      schedule();
    };
    // A lost listener connection must not crash the host: it is re-established.
    current.on("error", fail);
    current.on("end", () => fail(new Error("the LISTEN connection ended")));
    current.on("notification", (message) => {
      if (message.channel === channel && message.payload !== undefined) safely(() => handlers.onPayload(message.payload!));
    });
    try {
      await current.connect();
      await current.query(`LISTEN ${channel}`);
    } catch (error) {
      fail(error);
      return;
    }
    if (failed || closed) return;
    delayMs = reconnect.minMs;
    if (!settled) {
      settled = true;
      resolveReady();
    }
    if (handlers.onReady !== undefined) safely(handlers.onReady);
  };

  void connect();
  return {
    ready,
    close: async () => {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      const current = client;
      client = undefined;
      if (current === undefined) return;
      current.removeAllListeners();
      current.on("error", () => undefined);
      await current.end().catch(() => undefined);
    },
  };
};
