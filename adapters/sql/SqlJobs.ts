/**
 * Jobs and JobQueue over the `jobs` table. A partial unique index on (kind, key) among
 * unfinished jobs makes keyed scheduling idempotent in the database. `attempts` counts claims:
 * a claimed job carries the number of the attempt it is on (1 for the first run), so a job whose
 * worker crashed still moves towards its bound.
 */
import { Clock, Effect } from "effect";
import { sql } from "kysely";
import type { Job, JobQueue, Jobs } from "../../ports/Jobs.js";
import type { Transactions } from "../../ports/Transactions.js";
import type { WorkSignals } from "../../ports/WorkSignals.js";
import { newId } from "../system/Ids.js";
import { defaultBackoff } from "../worker/Backoff.js";
import type { DialectFeatures } from "./DialectFeatures.js";
import { compiledOnce, runQuery, runStatement, span, toNumber } from "./runQuery.js";
import type { SqlDatabase } from "./SqlDatabase.js";

/** Attempts allowed when a JobSpec does not say: the worker's default bound. */
export const DEFAULT_MAX_ATTEMPTS = defaultBackoff.maxAttempts;

// Literals, the predicate of the partial unique index jobs_unfinished_key (kind, key): with bound
// values neither SQLite nor a cached generic plan on Postgres can use it, and a keyed lookup or
// cancel read every unfinished job (the whole backlog) through jobs_due_order.
const unfinished = [sql.lit("pending"), sql.lit("running")];

const toJob = (f: DialectFeatures, row: any): Job => ({
  id: row.id,
  kind: row.kind,
  key: row.key ?? null,
  payload: f.jsonFromDb(row.payload),
  status: row.status,
  attempts: toNumber(row.attempts),
  maxAttempts: toNumber(row.max_attempts),
  runAt: f.timeFromDb(row.run_at),
  lastError: row.last_error ?? null,
});

/** Wakes the job runner (once the caller's transaction commits) when there are signals to send. */
const signalJobs = (signals: WorkSignals | undefined): Effect.Effect<void> =>
  signals === undefined ? Effect.void : signals.notify("jobs");

/**
 * The scheduling side of jobs, used inside the caller's transaction; `signals` wakes the runner
 * when a job due now commits (later jobs are found by polling).
 */
export const makeSqlJobs = (db: SqlDatabase, f: DialectFeatures, tx: Transactions, signals?: WorkSignals): Jobs => {
  // Scheduling runs inside many commands (a checkout schedules two jobs): compiled once.
  const insertJob = compiledOnce<{
    id: string;
    kind: string;
    key: string | null;
    payload: unknown;
    maxAttempts: number;
    runAt: unknown;
    now: unknown;
  }>((ex, p) =>
    ex
      .insertInto("jobs")
      .values({
        id: p("id"),
        kind: p("kind"),
        key: p("key"),
        payload: p("payload"),
        status: "pending",
        attempts: 0,
        max_attempts: p("maxAttempts"),
        run_at: p("runAt"),
        created_at: p("now"),
        updated_at: p("now"),
      })
      // The only possible conflict is the unfinished (kind, key) index: keep the existing job.
      .onConflict((oc) => oc.doNothing())
      .returningAll(),
  );
  const selectUnfinished = compiledOnce<{ kind: string; key: string }>((ex, p) =>
    ex.selectFrom("jobs").selectAll().where("kind", "=", p("kind")).where("key", "=", p("key")).where("status", "in", unfinished),
  );
  const cancelUnfinished = compiledOnce<{ kind: string; key: string; at: unknown }>((ex, p) =>
    ex
      .updateTable("jobs")
      .set({ status: "cancelled", locked_by: null, locked_until: null, updated_at: p("at") })
      .where("kind", "=", p("kind"))
      .where("key", "=", p("key"))
      .where("status", "in", unfinished),
  );
  return {
    schedule: (spec) =>
      Effect.flatMap(Clock.currentTimeMillis, (millis) => {
        const now = f.timeToDb(new Date(millis));
        const params = {
          id: newId(),
          kind: spec.kind,
          key: spec.key ?? null,
          payload: f.jsonToDb(spec.payload),
          maxAttempts: spec.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
          runAt: f.timeToDb(spec.runAt),
          now,
        };
        const insert = runStatement(db, insertJob, params);
        const findUnfinished = runStatement(db, selectUnfinished, { kind: spec.kind, key: spec.key! });
        // Retried because the existing job may finish between the failed insert and the read.
        const attempt = (triesLeft: number): Effect.Effect<Job> =>
          Effect.flatMap(insert, ({ rows: [inserted] }) => {
            if (inserted !== undefined) {
              const job = toJob(f, inserted);
              return job.runAt.getTime() <= millis ? Effect.as(signalJobs(signals), job) : Effect.succeed(job);
            }
            return Effect.flatMap(findUnfinished, ({ rows: [row] }) =>
              row !== undefined
                ? Effect.succeed(toJob(f, row))
                : triesLeft > 0
                  ? attempt(triesLeft - 1)
                  : Effect.die(new Error(`jobs: could not schedule ${spec.kind}/${spec.key}`)),
            );
          });
        return tx.run(attempt(3));
      }).pipe(span("Jobs.schedule")),
    cancel: (kind, key) =>
      Effect.flatMap(Clock.currentTimeMillis, (millis) =>
        runStatement(db, cancelUnfinished, { kind, key, at: f.timeToDb(new Date(millis)) }),
      ).pipe(
        Effect.map((result) => toNumber(result.numAffectedRows ?? 0) > 0),
        span("Jobs.cancel"),
      ),
  };
};

/** The worker side of jobs. */
/**
 * Updates a job only while `workerId` holds it (running and locked by it); false when the
 * lease was lost. The one guard of every worker-side change of a claimed job.
 */
const updateHeld = (
  db: SqlDatabase,
  id: string,
  workerId: string,
  operation: string,
  values: (at: Date) => Record<string, unknown>,
): Effect.Effect<boolean> =>
  Effect.flatMap(Clock.currentTimeMillis, (millis) =>
    runQuery(db, (ex) =>
      ex
        .updateTable("jobs")
        .set(values(new Date(millis)))
        .where("id", "=", id)
        .where("status", "=", "running")
        .where("locked_by", "=", workerId)
        .executeTakeFirst(),
    ),
  ).pipe(
    Effect.map((result) => toNumber(result.numUpdatedRows) > 0),
    span(`JobQueue.${operation}`),
  );

export const makeSqlJobQueue = (db: SqlDatabase, f: DialectFeatures, tx: Transactions, signals?: WorkSignals): JobQueue => ({
  claimDue: ({ workerId, now, limit, leaseMs, kinds }) =>
    (kinds !== undefined && kinds.length === 0
      ? Effect.succeed([] as ReadonlyArray<Job>)
      : tx.run(
          runQuery(db, async (ex) => {
            const at = f.timeToDb(now);
            // Two seeks, each stopping after `limit` rows (kernel migration 4: jobs_due_order on (status,
            // run_at, id)): the due pending jobs in run order, and the running jobs whose lease
            // expired (few: at most what the workers hold). One OR over both made the database
            // read every due job and sort them all, so every claim grew with the backlog. On
            // Postgres each seek skips rows another claim holds and re-checks its condition.
            const seek = (status: "pending" | "running") => {
              let query = ex
                .selectFrom("jobs")
                .select(["id", "run_at"])
                .where("status", "=", status)
                .where(status === "pending" ? "run_at" : "locked_until", "<=", at);
              if (kinds !== undefined) query = query.where("kind", "in", kinds);
              return f.skipLocked(query.orderBy("run_at").orderBy("id").limit(limit));
            };
            // The first `limit` of both, in run order (the CTEs are named in the statement below).
            const candidates = ex
              .selectFrom("due_pending")
              .select(["id", "run_at"])
              .unionAll(ex.selectFrom("lease_expired").select(["id", "run_at"]))
              .orderBy("run_at")
              .orderBy("id")
              .limit(limit);
            const chosen = ex.selectFrom(candidates.as("chosen")).select("chosen.id");
            const rows = await ex
              .with("due_pending", () => seek("pending"))
              .with("lease_expired", () => seek("running"))
              .updateTable("jobs")
              .set((eb) => ({
                status: "running",
                attempts: eb("attempts", "+", 1),
                locked_by: workerId,
                locked_until: f.timeToDb(new Date(now.getTime() + leaseMs)),
                updated_at: at,
              }))
              .where("id", "in", chosen)
              .returningAll()
              .execute();
            return rows
              .map((row) => toJob(f, row))
              .sort((a, b) => a.runAt.getTime() - b.runAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
          }),
        )
    ).pipe(span("JobQueue.claimDue")),
  extendLease: (id, workerId, until) => updateHeld(db, id, workerId, "extendLease", () => ({ locked_until: f.timeToDb(until) })),
  complete: (id, workerId) =>
    updateHeld(db, id, workerId, "complete", (at) => ({ status: "done", locked_by: null, locked_until: null, updated_at: f.timeToDb(at) })),
  fail: (id, workerId, { error, retryAt }) =>
    updateHeld(db, id, workerId, "fail", (at) => ({
      status: retryAt === null ? "dead" : "pending",
      ...(retryAt === null ? {} : { run_at: f.timeToDb(retryAt) }),
      last_error: error,
      locked_by: null,
      locked_until: null,
      updated_at: f.timeToDb(at),
    })),
  listDead: (limit, kinds, afterId) =>
    runQuery(db, (ex) => {
      const dead = ex.selectFrom("jobs").selectAll().where("status", "=", "dead");
      const filtered = kinds === undefined ? dead : kinds.length === 0 ? dead.where(sql<boolean>`1 = 0`) : dead.where("kind", "in", kinds);
      return (afterId === undefined ? filtered : filtered.where("id", ">", afterId)).orderBy("id").limit(limit).execute();
    }).pipe(
      Effect.map((rows) => rows.map((row) => toJob(f, row))),
      span("JobQueue.listDead"),
    ),
  replay: (id, now) =>
    runQuery(db, (ex) =>
      ex
        .updateTable("jobs")
        .set({ status: "pending", attempts: 0, run_at: f.timeToDb(now), last_error: null, updated_at: f.timeToDb(now) })
        .where("id", "=", id)
        .where("status", "=", "dead")
        .executeTakeFirst(),
    ).pipe(
      // A keyed job replayed while a newer one of the same key is unfinished violates the
      // unique index: that is an operator mistake surfaced as a defect, not silently merged.
      Effect.map((result) => toNumber(result.numUpdatedRows) > 0),
      Effect.tap((replayed) => (replayed ? signalJobs(signals) : Effect.void)),
      span("JobQueue.replay"),
    ),
  get: (id) =>
    runQuery(db, (ex) => ex.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
      Effect.map((row) => (row === undefined ? null : toJob(f, row))),
      span("JobQueue.get"),
    ),
  purgeFinished: (before, limit) =>
    runQuery(db, (ex) => {
      const at = f.timeToDb(before);
      return ex
        .deleteFrom("jobs")
        .where(
          f.keyInBatch(
            "id",
            // A finished job ran before it last changed, so run_at < before bounds the walk of
            // jobs_due_order for each status; no order, so the walk stops at the batch.
            ex
              .selectFrom("jobs")
              .select("id")
              .where((eb) => eb.or([eb("status", "=", sql.lit("done")), eb("status", "=", sql.lit("cancelled"))]))
              .where("run_at", "<", at)
              .where("updated_at", "<", at)
              .limit(limit),
          ),
        )
        .executeTakeFirst();
    }).pipe(
      Effect.map((result) => toNumber(result.numDeletedRows)),
      span("JobQueue.purgeFinished"),
    ),
});
