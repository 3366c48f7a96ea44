/**
 * The test harness's own rules (test/support/databases.ts, databaseTemplates.ts,
 * recycledDatabases.ts): every test database holds exactly what `migrate` would give it, and a
 * Postgres database used again by a later test is as fresh as a new copy — its rows gone (the
 * append-only tables' too), its identities restarted — or, when a test changed its schema, is
 * not used again at all.
 */
import { sql } from "kysely";
import t from "tap";
import { migrate } from "../../adapters/sql/Migrations.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { dialects, openTestDatabase, testModules } from "../support/databases.js";

/** Opens a test database whose teardown runs when the returned `done` is called. */
const openUntilDone = async (dialect: (typeof dialects)[number]) => {
  const teardowns: Array<() => unknown> = [];
  const db = await openTestDatabase(dialect, { teardown: (fn) => teardowns.push(fn) });
  return {
    db,
    done: async () => {
      for (const fn of teardowns.reverse()) await fn();
    },
  };
};

const currentDatabase = async (db: SqlDatabase): Promise<string> =>
  (await sql<{ name: string }>`SELECT current_database() AS name`.execute(db.db)).rows[0]!.name;

const count = async (db: SqlDatabase, table: string): Promise<number> =>
  Number((await db.db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);

/** An outbox row (its `seq` is an identity) and a row of an append-only table. */
const writeRows = async (db: SqlDatabase): Promise<void> => {
  const now = db.features.timeToDb(new Date());
  await db.db.insertInto("outbox").values({ id: "e1", tenant_id: "t1", type: "Test", event: db.features.jsonToDb({}), status: "pending", attempts: 0, next_attempt_at: now, created_at: now }).execute();
  await db.db.insertInto("pm_workspaces").values({ id: "w1", name: "Acme", created_by: "u1", created_at: now }).execute();
  await db.db
    .insertInto("pm_membership_audit")
    .values({ id: "a1", workspace_id: "w1", project_id: null, user_id: "u2", actor_id: "u1", action: "added", role: "member", reason: "test", created_at: now })
    .execute();
};

for (const dialect of dialects) {
  t.test(`a test database holds every migration of its modules, as migrate leaves it [${dialect}]`, async (t) => {
    const { db, done } = await openUntilDone(dialect);
    t.teardown(done);
    t.same((await migrate(db, testModules)).applied, [], "migrate finds nothing left to apply");
    t.equal(await count(db, "outbox"), 0, "and no rows");
  });
}

t.test("a Postgres test database used again is emptied: rows, append-only rows and identities as in a new copy", async (t) => {
  const first = await openUntilDone("postgres");
  const name = await currentDatabase(first.db);
  await writeRows(first.db);
  const firstSeq = Number((await first.db.db.selectFrom("outbox").select("seq").executeTakeFirstOrThrow()).seq);
  await first.done();

  const second = await openUntilDone("postgres");
  t.teardown(second.done);
  t.equal(await currentDatabase(second.db), name, "the next test of the process got the same database");
  t.same(
    { outbox: await count(second.db, "outbox"), workspaces: await count(second.db, "pm_workspaces"), audit: await count(second.db, "pm_membership_audit") },
    { outbox: 0, workspaces: 0, audit: 0 },
    "every table is empty, the append-only one too",
  );
  await writeRows(second.db);
  t.equal(Number((await second.db.db.selectFrom("outbox").select("seq").executeTakeFirstOrThrow()).seq), firstSeq, "the outbox's identity starts again");
  t.same((await migrate(second.db, testModules)).applied, [], "the migrations ledger is intact");
});

t.test("a Postgres test database whose schema a test changed is not used again", async (t) => {
  const first = await openUntilDone("postgres");
  const name = await currentDatabase(first.db);
  await sql`ALTER TABLE outbox ADD COLUMN left_behind integer`.execute(first.db.db);
  await first.done();

  const second = await openUntilDone("postgres");
  t.teardown(second.done);
  t.not(await currentDatabase(second.db), name, "the next test got another database");
  const columns = await sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'outbox' AND column_name = 'left_behind'`.execute(second.db.db);
  t.equal(columns.rows[0]!.n, 0, "without the changed column");
});
