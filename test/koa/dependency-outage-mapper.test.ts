/**
 * The one error mapper answers a dependency's outage 503 `service_unavailable` with Retry-After
 * when the host's recogniser (the SQL adapter's `databaseOutageOf`) names it: a Postgres
 * connection refused, reset or terminated, and SQLite's lock held past the busy timeout
 * (SQLITE_BUSY), found through the wrappers a defect arrives in. Anything else stays a 500.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t from "tap";
import Database from "better-sqlite3";
import { Cause, Effect, Runtime } from "effect";
import { HandlerDefect } from "../../adapters/koa/EffectHandler.js";
import { serviceUnavailableCode, toProblem } from "../../adapters/koa/ErrorMapper.js";
import { RateLimited } from "../../adapters/koa/HttpErrors.js";
import type { HasTeardown } from "../support/databases.js";
import { databaseOutageOf, isTransientConnectError } from "../../adapters/sql/TransientErrors.js";

const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED", errno: -111 });

/** A real SQLITE_BUSY: another handle holds the write lock and this one does not wait. */
const sqliteBusy = (t: HasTeardown): unknown => {
  const dir = mkdtempSync(join(tmpdir(), "domainkit-busy-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const holder = new Database(join(dir, "db.sqlite"));
  const waiter = new Database(join(dir, "db.sqlite"));
  t.teardown(() => {
    holder.close();
    waiter.close();
  });
  holder.pragma("journal_mode = WAL");
  holder.exec("create table t (x integer)");
  waiter.pragma("busy_timeout = 0");
  holder.exec("begin immediate");
  try {
    waiter.exec("begin immediate");
  } catch (error) {
    return error;
  } finally {
    holder.exec("rollback");
  }
  throw new Error("expected SQLITE_BUSY");
};

t.test("a database outage answers 503 service_unavailable with Retry-After; its cause is not in the body", async (t) => {
  const terminated = new Error("Connection terminated unexpectedly");
  const shutdown = Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
  const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
  for (const [what, error] of [["refused", refused], ["reset", reset], ["terminated", terminated], ["restart", shutdown]] as const) {
    const problem = toProblem(error, databaseOutageOf);
    t.equal(problem.status, 503, `${what}: 503`);
    t.equal(problem.body.code, serviceUnavailableCode, `${what}: service_unavailable`);
    t.equal(problem.headers["Retry-After"], "5", `${what}: Retry-After 5 (as /readyz)`);
    t.notMatch(JSON.stringify(problem.body), /ECONNREFUSED|ECONNRESET|terminat|5432/, `${what}: no cause in the body`);
  }
});

t.test("SQLite's lock held past the busy timeout (SQLITE_BUSY) answers 503 with Retry-After 1", async (t) => {
  const busy = sqliteBusy(t);
  t.equal((busy as { code?: string }).code, "SQLITE_BUSY", "the driver's own error");
  const problem = toProblem(busy, databaseOutageOf);
  t.equal(problem.status, 503);
  t.equal(problem.body.code, "service_unavailable");
  t.equal(problem.headers["Retry-After"], "1");
  t.equal(isTransientConnectError(busy), false, "a busy SQLite is not a connection to wait for at start-up");
});

t.test("the outage is found through a handler defect's cause and a rejected runPromise's FiberFailure", async (t) => {
  const exit = await Effect.runPromiseExit(Effect.die(refused));
  if (exit._tag !== "Failure") throw new Error("expected a failure");
  const defect = new HandlerDefect(Cause.pretty(exit.cause), { cause: Cause.squash(exit.cause) });
  t.equal(toProblem(defect, databaseOutageOf).status, 503, "a handler's defect");
  const rejected = await Effect.runPromise(Effect.die(refused)).catch((error: unknown) => error);
  t.ok(Runtime.isFiberFailure(rejected), "runPromise rejects with a FiberFailure");
  t.equal(toProblem(rejected, databaseOutageOf).status, 503, "a FiberFailure (an authentication's epoch lookup)");
});

t.test("anything else stays 500 internal_error, and nothing changes without a recogniser", async (t) => {
  const constraint = Object.assign(new Error('duplicate key value violates unique constraint "x"'), { code: "23505" });
  const password = Object.assign(new Error('password authentication failed for user "app"'), { code: "28P01" });
  for (const error of [constraint, password, new TypeError("x is undefined"), "a string"]) {
    const problem = toProblem(error, databaseOutageOf);
    t.equal(problem.status, 500);
    t.equal(problem.body.code, "internal_error");
  }
  t.equal(toProblem(refused).status, 500, "no recogniser: 500 as before");
  t.equal(toProblem(new RateLimited({ retryAfterSeconds: 3 }), databaseOutageOf).status, 429, "domain errors map as before");
});
