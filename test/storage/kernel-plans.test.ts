/**
 * The kernel's background statements read about what they return, however large the backlog.
 * A job claim (SqlJobs.ts `claimDue`, kernel migration 4): one OR of "due pending" and "lease
 * expired" made both databases read every due job and sort them all on every claim, so a worker
 * slowed down as its backlog grew (with 50,000 jobs due a claim of 10 took 7 ms on SQLite and
 * 13 ms on Postgres). A keyed job's lookup and cancel: with the statuses bound as values the
 * partial unique index jobs_unfinished_key was unusable and both read every unfinished job. The
 * outbox's dead letters on Postgres, for the same reason. Each test seeds a backlog, runs the
 * adapter, and reads the plan of the statement it ran.
 */
import { Effect } from "effect";
import { CompiledQuery, sql } from "kysely";
import t from "tap";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { makeSqlJobQueue, makeSqlJobs } from "../../adapters/sql/SqlJobs.js";
import { makeSqlInbox } from "../../adapters/sql/SqlInbox.js";
import { makeSqlOutboxRelayStore } from "../../adapters/sql/SqlOutbox.js";
import { makeTransactions } from "../../adapters/sql/Transactions.js";
import { openTestDatabase } from "../support/databases.js";
import { genericPlan, measuredPlan, planNodes, rowsRead, sentToPostgres } from "../support/postgresPlans.js";
import { capturePrepared, planDetails, planLines } from "../support/sqlitePlans.js";

const backlog = 50_000;
const limit = 10;
const base = Date.parse("2026-01-01T00:00:00Z");
// Every seeded job is due by then; the two expired leases too.
const now = new Date(base + backlog * 1000);

/** `backlog` due pending jobs of kinds "a" and "b" alternately, one millisecond apart, and two running jobs whose lease expired. */
const seedBacklog = async (db: SqlDatabase): Promise<void> => {
  if (db.dialect === "sqlite") {
    await sql`
      WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${backlog})
      INSERT INTO jobs (id, kind, key, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
      SELECT printf('job-%08d', i), CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END, NULL, '{}', 'pending', 0, 8,
             strftime('%Y-%m-%dT%H:%M:%fZ', ${base / 1000} + i / 1000.0, 'unixepoch'), '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'
      FROM seq`.execute(db.db);
  } else {
    await sql`
      INSERT INTO jobs (id, kind, key, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
      SELECT 'job-' || lpad(i::text, 8, '0'), CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END, NULL, '{}', 'pending', 0, 8,
             to_timestamp(${base / 1000}::double precision + i / 1000.0), now(), now()
      FROM generate_series(1, ${backlog}) AS i`.execute(db.db);
  }
  // The crashed worker's jobs run first (the oldest run_at), so the claim must take them too.
  const expired = { status: "running", locked_by: "crashed", locked_until: db.features.timeToDb(new Date(base)), attempts: 1 };
  await db.db.updateTable("jobs").set(expired).where("id", "in", ["job-00000001", "job-00000002"]).execute();
  await sql`ANALYZE jobs`.execute(db.db);
};

const claim = (db: SqlDatabase, kinds?: ReadonlyArray<string>) =>
  Effect.runPromise(
    makeSqlJobQueue(db, db.features, makeTransactions(db)).claimDue({ workerId: "w1", now, limit, leaseMs: 60_000, ...(kinds ? { kinds } : {}) }),
  );

t.test("SQLite: a claim seeks the due jobs in run order by index and stops after its batch, never sorting the backlog", async (t) => {
  const db = await openTestDatabase("sqlite", t, []);
  await seedBacklog(db);
  for (const kinds of [undefined, ["a"]]) {
    const { result, executed } = await capturePrepared((text) => text.includes('update "jobs"'), () => claim(db, kinds));
    if (kinds === undefined) t.same(result.map((job) => job.id).slice(0, 3), ["job-00000001", "job-00000002", "job-00000003"], "the oldest due jobs first, expired leases included");
    t.equal(result.length, limit, "a full batch");
    t.equal(executed.size, 1, "one statement");
    for (const [text, parameters] of executed) {
      const lines = await planLines(db, text, parameters);
      const plan = lines.map((line) => `${line.id}<${line.parent} ${line.detail}`).join(" | ");
      t.notOk(lines.some((line) => line.detail.includes("MULTI-INDEX OR")), "no OR of two index reads", { plan });
      for (const seek of ["due_pending", "lease_expired"]) {
        const node = lines.find((line) => line.detail === `MATERIALIZE ${seek}`);
        t.ok(node, `${seek} is its own seek`);
        const inside = lines.filter((line) => line.parent === node?.id).map((line) => line.detail);
        t.ok(inside.some((detail) => /^SEARCH jobs USING (COVERING )?INDEX jobs_due_order \(status=\?/.test(detail)), `${seek} walks jobs_due_order`, { plan });
        t.notOk(inside.some((detail) => detail.includes("TEMP B-TREE")), `${seek} is read in index order, not sorted`, { plan });
      }
    }
  }
});

t.test("SQLite: with a kind filter the claim takes only jobs of those kinds, oldest first", async (t) => {
  const db = await openTestDatabase("sqlite", t, []);
  await seedBacklog(db);
  const jobs = await claim(db, ["a"]);
  t.same(
    jobs.map((job) => job.id),
    ["job-00000002", "job-00000004", "job-00000006", "job-00000008", "job-00000010", "job-00000012", "job-00000014", "job-00000016", "job-00000018", "job-00000020"],
  );
});

t.test("Postgres: a claim reads about its batch of the jobs table, not the backlog", async (t) => {
  const db = await openTestDatabase("postgres", t, []);
  await seedBacklog(db);
  for (const kinds of [undefined, ["a"]]) {
    let jobs: ReadonlyArray<{ readonly id: string; readonly kind: string }> = [];
    const sent = await sentToPostgres((text) => text.includes('update "jobs"'), async () => (jobs = await claim(db, kinds)));
    t.equal(jobs.length, limit, "a full batch");
    if (kinds === undefined) t.same(jobs.map((job) => job.id).slice(0, 3), ["job-00000001", "job-00000002", "job-00000003"], "the oldest due jobs first, expired leases included");
    else t.ok(jobs.every((job) => job.kind === "a"), "only jobs of the kinds asked for");
    t.equal(sent.length, 1, "one statement");
    // The same statement measured by EXPLAIN ANALYZE, which runs it: rolled back.
    const measured = await measuredPlan(db, sent[0]!);
    const plan = JSON.stringify(measured);
    const nodes = planNodes(measured);
    const read = rowsRead(measured, "jobs");
    // What a claim may read: a few batches' worth (the batch, the jobs of other kinds it walks
    // past, the batch again by id) and the running jobs it checks for an expired lease; never
    // the backlog.
    const { running } = await db.db.selectFrom("jobs").select((eb) => eb.fn.countAll<string>().as("running")).where("status", "=", "running").executeTakeFirstOrThrow();
    const bound = 5 * limit + Number(running);
    t.ok(read <= bound, `kinds ${kinds?.join(",") ?? "any"}: ${read} rows of jobs read (at most ${bound}) with ${backlog} jobs due`, { plan });
    t.notOk(nodes.some((node) => node["Node Type"] === "Seq Scan"), "no sequential scan", { plan });
  }
});

/** Schedules a keyed job twice (the second finds the first) and cancels it, on `db`. */
const scheduleTwiceAndCancel = async (db: SqlDatabase): Promise<boolean> => {
  const jobs = makeSqlJobs(db, db.features, makeTransactions(db));
  const spec = { kind: "a", key: "report-42", payload: {}, runAt: now };
  const first = await Effect.runPromise(jobs.schedule(spec));
  const second = await Effect.runPromise(jobs.schedule(spec));
  return first.id === second.id && (await Effect.runPromise(jobs.cancel("a", "report-42")));
};

const keyedStatement = (text: string): boolean => /"key" = /.test(text) && /"jobs"/.test(text);

t.test("SQLite: a keyed job's lookup and cancel seek jobs_unfinished_key, not the backlog", async (t) => {
  const db = await openTestDatabase("sqlite", t, []);
  await seedBacklog(db);
  const { result, executed } = await capturePrepared(keyedStatement, () => scheduleTwiceAndCancel(db));
  t.ok(result, "the second schedule found the first, and the cancel cancelled it");
  t.ok(executed.size >= 1, "the lookup ran");
  for (const [text, parameters] of executed) {
    const details = await planDetails(db, text, parameters);
    t.ok(details.some((detail) => /^SEARCH jobs USING INDEX jobs_unfinished_key \(kind=\? AND key=\?\)/.test(detail)), `seeks kind and key: ${text.slice(0, 60)}`, { details });
  }
});

t.test("Postgres: a keyed job's lookup and cancel keep jobs_unfinished_key in their generic plans", async (t) => {
  const db = await openTestDatabase("postgres", t, []);
  await seedBacklog(db);
  let done = false;
  const sent = await sentToPostgres(keyedStatement, async () => (done = await scheduleTwiceAndCancel(db)));
  t.ok(done, "the second schedule found the first, and the cancel cancelled it");
  t.equal(sent.length, 2, "the lookup and the cancel");
  for (const statement of sent) {
    const nodes = planNodes(await genericPlan(db, statement));
    t.ok(nodes.some((node) => node["Index Name"] === "jobs_unfinished_key"), `uses the index: ${statement.text.slice(0, 60)}`, { nodes });
  }
});

t.test("Postgres: the outbox's dead letters are read through outbox_dead in the generic plan", async (t) => {
  const db = await openTestDatabase("postgres", t, []);
  const sent = await sentToPostgres(
    (text) => text.includes('from "outbox"') && text.includes('"status" ='),
    () => Effect.runPromise(makeSqlOutboxRelayStore(db, db.features).listDead(50)),
  );
  t.equal(sent.length, 1, "one statement");
  const nodes = planNodes(await genericPlan(db, sent[0]!));
  t.ok(nodes.some((node) => node["Index Name"] === "outbox_dead"), "uses outbox_dead", { nodes });
});

t.test("Postgres: the scrub of dead letters reads them through outbox_dead in the generic plan", async (t) => {
  const db = await openTestDatabase("postgres", t, []);
  const sent = await sentToPostgres(
    (text) => text.startsWith('update "outbox"'),
    () => Effect.runPromise(makeSqlOutboxRelayStore(db, db.features).scrubDead!({ eventType: "Test", schemaVersion: 1, fields: ["note"] }, new Date(base), 50)),
  );
  t.equal(sent.length, 1, "one statement");
  const nodes = planNodes(await genericPlan(db, sent[0]!));
  t.ok(nodes.some((node) => node["Index Name"] === "outbox_dead"), "uses outbox_dead", { nodes });
});

const history = 20_000;
const purgeLimit = 1_000;

/** `history` delivered outbox messages with their inbox records and `history` done jobs, all old. */
const seedHistory = async (db: SqlDatabase): Promise<void> => {
  const old = db.features.timeToDb(new Date(base));
  if (db.dialect === "sqlite") {
    await sql`
      WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${history})
      INSERT INTO outbox (id, tenant_id, type, event, status, attempts, next_attempt_at, created_at)
      SELECT printf('event-%08d', i), 't', 'Test', '{}', 'delivered', 1, ${old}, ${old} FROM seq`.execute(db.db);
    await sql`
      WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${history})
      INSERT INTO inbox (consumer, event_id, processed_at) SELECT 'consumer', printf('event-%08d', i), ${old} FROM seq`.execute(db.db);
    await sql`
      WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${history})
      INSERT INTO jobs (id, kind, key, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
      SELECT printf('done-%08d', i), 'a', NULL, '{}', 'done', 1, 8, ${old}, ${old}, ${old} FROM seq`.execute(db.db);
  } else {
    await sql`
      INSERT INTO outbox (id, tenant_id, type, event, status, attempts, next_attempt_at, created_at)
      SELECT 'event-' || lpad(i::text, 8, '0'), 't', 'Test', '{}', 'delivered', 1, ${old}, ${old} FROM generate_series(1, ${history}) AS i`.execute(db.db);
    await sql`
      INSERT INTO inbox (consumer, event_id, processed_at) SELECT 'consumer', 'event-' || lpad(i::text, 8, '0'), ${old} FROM generate_series(1, ${history}) AS i`.execute(db.db);
    await sql`
      INSERT INTO jobs (id, kind, key, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
      SELECT 'done-' || lpad(i::text, 8, '0'), 'a', NULL, '{}', 'done', 1, 8, ${old}, ${old}, ${old} FROM generate_series(1, ${history}) AS i`.execute(db.db);
  }
  await sql`ANALYZE`.execute(db.db);
};

/** The three purges of one maintenance batch, a day after the history was written. */
const purges = (db: SqlDatabase) => {
  const f = db.features;
  const before = new Date(base + 86_400_000);
  return [
    { table: "outbox", run: () => Effect.runPromise(makeSqlOutboxRelayStore(db, f).purgeDelivered(before, purgeLimit)) },
    { table: "inbox", run: () => Effect.runPromise(makeSqlInbox(db, f).purgeProcessed(before, purgeLimit)) },
    { table: "jobs", run: () => Effect.runPromise(makeSqlJobQueue(db, f, makeTransactions(db)).purgeFinished(before, purgeLimit)) },
  ];
};

t.test("SQLite: each retention purge deletes a full batch, walking an index or the row order, never sorting the history", async (t) => {
  const db = await openTestDatabase("sqlite", t, []);
  await seedHistory(db);
  for (const purge of purges(db)) {
    const { result, executed } = await capturePrepared((text) => text.startsWith(`delete from "${purge.table}"`), purge.run);
    t.equal(result, purgeLimit, `${purge.table}: a full batch deleted`);
    for (const [text, parameters] of executed) {
      const details = await planDetails(db, text, parameters);
      t.notOk(details.some((detail) => detail.includes("TEMP B-TREE")), `${purge.table}: no sort`, { details });
    }
  }
});

t.test("Postgres: each retention purge reads its batch and finds it by key, not the whole history", async (t) => {
  const db = await openTestDatabase("postgres", t, []);
  await seedHistory(db);
  for (const purge of purges(db)) {
    let deleted = 0;
    const sent = await sentToPostgres((text) => text.startsWith(`delete from "${purge.table}"`), async () => (deleted = await purge.run()));
    t.equal(deleted, purgeLimit, `${purge.table}: a full batch deleted`);
    t.equal(sent.length, 1, "one statement");
    const plan = await measuredPlan(db, sent[0]!);
    const nodes = planNodes(plan);
    // The batch chosen, then its rows found again by key (or by row) to delete them.
    const read = rowsRead(plan, purge.table);
    t.ok(read <= 2 * purgeLimit, `${purge.table}: ${read} rows read for a batch of ${purgeLimit} out of ${history}`, { nodes });
    t.notOk(nodes.some((node) => node["Node Type"] === "Seq Scan" && node["Relation Name"] === "outbox"), `${purge.table}: the outbox is not read whole`, { nodes });
  }
});
