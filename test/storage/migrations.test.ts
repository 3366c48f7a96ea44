/** Migrations: recorded, idempotent, extensible by modules, and append-only triggers hold. */
import { sql } from "kysely";
import t from "tap";
import { appendOnlyTriggersSql } from "../../adapters/sql/appendOnlyTriggers.js";
import { migrate, migrationPlan } from "../../adapters/sql/Migrations.js";
import { kernelMigrations } from "../../adapters/sql/kernelMigrations.js";
import { forEachDialect, testModules } from "../support/databases.js";

const rejects = async (promise: Promise<unknown>): Promise<boolean> =>
  promise.then(
    () => false,
    () => true,
  );

t.test("migrate", async (t) => {
  await forEachDialect(t, "running migrations again applies nothing", async (t, db) => {
    t.same(await migrate(db, testModules), { applied: [] });
    t.same(await migrate(db), { applied: [] }, "the kernel alone: nothing either");
    const rows = await db.db.selectFrom("domainkit_migrations").selectAll().where("module", "=", "kernel").execute();
    t.same(
      rows.map((r) => Number(r.version)).sort((a, b) => a - b),
      kernelMigrations.map((m) => m.version),
      "every kernel migration recorded once",
    );
  });

  await forEachDialect(t, "a module's migrations apply once, in version order", async (t, db) => {
    const module = `scratch_${Math.random().toString(36).slice(2, 8)}`;
    const scratch = {
      name: module,
      migrations: [
        { version: 2, name: "add_column", sqlite: [`ALTER TABLE ${module} ADD COLUMN note TEXT`], postgres: [`ALTER TABLE ${module} ADD COLUMN note text`] },
        { version: 1, name: "create", sqlite: [`CREATE TABLE ${module} (id TEXT PRIMARY KEY)`], postgres: [`CREATE TABLE ${module} (id text PRIMARY KEY)`] },
      ],
    };
    const first = await migrate(db, [scratch]);
    t.same(first.applied, [`${module}/0001_create`, `${module}/0002_add_column`]);
    t.same(await migrate(db, [scratch]), { applied: [] });
    await db.db.insertInto(module).values({ id: "a", note: "n" }).execute();
    t.equal((await db.db.selectFrom(module).selectAll().execute()).length, 1);
  });

  await forEachDialect(t, "a failing migration rolls back and is not recorded", async (t, db) => {
    const module = `broken_${Math.random().toString(36).slice(2, 8)}`;
    const broken = {
      name: module,
      migrations: [
        {
          version: 1,
          name: "half",
          sqlite: [`CREATE TABLE ${module} (id TEXT)`, "THIS IS NOT SQL"],
          postgres: [`CREATE TABLE ${module} (id text)`, "THIS IS NOT SQL"],
        },
      ],
    };
    t.ok(await rejects(migrate(db, [broken])), "migrate fails");
    const recorded = await db.db.selectFrom("domainkit_migrations").selectAll().where("module", "=", module).execute();
    t.equal(recorded.length, 0);
    t.ok(await rejects(db.db.selectFrom(module).selectAll().execute()), "the half-made table was rolled back");
  });

  await forEachDialect(t, "kernel tables refuse rows that break their CHECK constraints", async (t, db) => {
    const now = db.dialect === "sqlite" ? new Date().toISOString() : new Date();
    const job = { id: "j1", kind: "k", payload: "null", attempts: 0, max_attempts: 1, run_at: now, created_at: now, updated_at: now };
    t.ok(await rejects(db.db.insertInto("jobs").values({ ...job, status: "exploded" }).execute()), "unknown job status");
    t.ok(await rejects(db.db.insertInto("jobs").values({ ...job, status: "pending", attempts: -1 }).execute()), "negative attempts");
    t.ok(await rejects(db.db.insertInto("user_epochs").values({ user_id: "u", epoch: -1 }).execute()), "negative epoch");
    t.notOk(await rejects(db.db.insertInto("jobs").values({ ...job, status: "pending" }).execute()), "a valid row is accepted");
  });

  await forEachDialect(t, "append-only triggers refuse UPDATE and DELETE but allow INSERT", async (t, db) => {
    await sql.raw("CREATE TABLE scratch_events (id integer PRIMARY KEY, body text NOT NULL)").execute(db.db);
    for (const statement of appendOnlyTriggersSql(db.dialect, "scratch_events")) await sql.raw(statement).execute(db.db);
    await db.db.insertInto("scratch_events").values({ id: 1, body: "first" }).execute();
    await db.db.insertInto("scratch_events").values({ id: 2, body: "second" }).execute();
    t.ok(await rejects(db.db.updateTable("scratch_events").set({ body: "rewritten" }).where("id", "=", 1).execute()), "update refused");
    t.ok(await rejects(db.db.deleteFrom("scratch_events").where("id", "=", 1).execute()), "delete refused");
    const rows = await db.db.selectFrom("scratch_events").select(["id", "body"]).orderBy("id").execute();
    t.same(rows.map((r) => [Number(r.id), r.body]), [[1, "first"], [2, "second"]], "history unchanged");
  });

  t.throws(() => appendOnlyTriggersSql("sqlite", "x; DROP TABLE y"), "only plain identifiers are accepted");

  t.test("the plan: kernel first, modules in the given order, each checked", async (t) => {
    const one = (version: number) => ({ version, name: `v${version}`, sqlite: [], postgres: [] });
    t.same(
      migrationPlan([{ name: "b", migrations: [one(2), one(1)] }, { name: "a" }]).map((p) => [p.module, p.migrations.map((m) => m.version)]),
      [["kernel", kernelMigrations.map((m) => m.version)], ["b", [1, 2]], ["a", []]],
    );
    t.throws(() => migrationPlan([{ name: "kernel" }]), /may not be named "kernel"/);
    t.throws(() => migrationPlan([{ name: "a" }, { name: "a" }]), /migrated twice/);
    t.throws(() => migrationPlan([{ name: "a", migrations: [one(1), one(1)] }]), /duplicate migration version 1/);
    t.throws(() => migrationPlan([{ name: "a", migrations: [one(0)] }]), /bad migration version 0/);
  });
});
