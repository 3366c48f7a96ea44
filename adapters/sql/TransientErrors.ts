/**
 * Which database failures are a dependency outage (waiting or retrying may help) rather than a
 * bug: the one classification of them, used by the start-up wait (hosts/Database.ts) and, through
 * the host, by the HTTP error mapper (adapters/koa/ErrorMapper.ts answers them 503
 * `service_unavailable`). Driver errors are recognised by their codes and messages only, so this
 * file imports no driver.
 */

// Errors that a database still starting, restarting or unreachable gives (node's socket errors and
// Postgres's connection-class SQLSTATEs); others (wrong password, missing database, SQL) are final.
const transientCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "57P01", // admin_shutdown: the server is stopping (a restart)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: the database system is starting up
  "53300", // too_many_connections
  "08000", // connection_exception
  "08001", // sqlclient_unable_to_establish_sqlconnection
  "08003", // connection_does_not_exist
  "08004", // sqlserver_rejected_establishment_of_sqlconnection
  "08006", // connection_failure
]);

// What pg says without a code: its pool's connect timeout, a connection cut under a query, a server starting.
const transientMessage = /timeout exceeded when trying to connect|connection timeout|connection terminated|terminated unexpectedly|starting up|Client has encountered a connection error/i;

/** True when waiting may help: the database is not (yet) reachable, restarting, or not yet accepting connections. */
export const isTransientConnectError = (error: unknown): boolean => {
  const e = error as { code?: unknown; errors?: ReadonlyArray<{ code?: unknown }>; message?: unknown };
  if (typeof e?.code === "string" && transientCodes.has(e.code)) return true;
  // A host name with several addresses (localhost: ::1 and 127.0.0.1) fails as an AggregateError of each.
  if (Array.isArray(e?.errors) && e.errors.some((inner) => typeof inner?.code === "string" && transientCodes.has(inner.code))) return true;
  return typeof e?.message === "string" && transientMessage.test(e.message);
};

/**
 * SQLite's write lock held by another connection (another process on the same file: a separate
 * worker, a one-off command, a backup) beyond the busy timeout: SQLITE_BUSY and its extended codes
 * (SQLITE_BUSY_SNAPSHOT, SQLITE_BUSY_RECOVERY, SQLITE_BUSY_TIMEOUT). A retry moments later succeeds.
 */
export const isDatabaseBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "string" && (code === "SQLITE_BUSY" || code.startsWith("SQLITE_BUSY_"));
};

/** A failure that is the database's outage, not a bug: what an HTTP answer says of it and when to retry. */
export interface DatabaseOutage {
  readonly dependency: "database";
  /** `unreachable` (connection refused, reset, terminated, starting up) or `busy` (SQLite's lock). */
  readonly reason: "unreachable" | "busy";
  /** When a retry may succeed: 5 s for an unreachable database (as /readyz says), 1 s for a busy one. */
  readonly retryAfterSeconds: number;
}

/** The outage `error` is, or undefined when it is something else (a bug, a constraint, bad SQL). */
export const databaseOutageOf = (error: unknown): DatabaseOutage | undefined => {
  if (isTransientConnectError(error)) return { dependency: "database", reason: "unreachable", retryAfterSeconds: 5 };
  if (isDatabaseBusy(error)) return { dependency: "database", reason: "busy", retryAfterSeconds: 1 };
  return undefined;
};
