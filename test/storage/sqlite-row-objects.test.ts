/**
 * SQLite rows made into objects in JavaScript (adapters/sqlite/RowObjects.ts): every row is the
 * object better-sqlite3 itself would make, and a cached statement follows a schema change, made
 * in this process or by another one on the same file.
 */
import Database from "better-sqlite3";
import { sql } from "kysely";
import t from "tap";
import { openSqlite } from "../../adapters/sqlite/openSqlite.js";
import { createTestSqliteFile, type TapTest } from "../support/databases.js";

/** What better-sqlite3 answers for `query` on its own (object rows), on a separate handle. */
const driverRows = (file: string, query: string, ...parameters: unknown[]): unknown[] => {
  const handle = new Database(file, { readonly: true });
  try {
    return handle.prepare(query).all(...parameters);
  } finally {
    handle.close();
  }
};

const setUp = async (t: TapTest) => {
  const file = createTestSqliteFile(t);
  const db = await openSqlite({ filename: file });
  t.teardown(db.close);
  await sql`create table things (id integer primary key, name text, data blob, score real, note text)`.execute(db.db);
  await sql`create table tags (thing_id integer, name text)`.execute(db.db);
  await sql`insert into things values (1, 'one', x'0102', 1.5, null), (2, 'two', null, -3, 'n')`.execute(db.db);
  await sql`insert into tags values (1, 'red'), (2, 'blue')`.execute(db.db);
  return { file, db };
};

t.test("a SQLite row is the object better-sqlite3 makes: same keys, same order, same values", async (t) => {
  const { file, db } = await setUp(t);
  const queries = [
    "select * from things order by id",
    // Duplicate names: the last one wins, as in the driver's objects.
    "select things.*, tags.* from things join tags on tags.thing_id = things.id order by things.id",
    'select id as "hasOwnProperty", name as "constructor", 1 as "a b", 2 as "" from things order by id',
    "select count(*) as n from things where id > 5",
    "select * from things where id > 5",
  ];
  for (const query of queries) {
    const { rows } = await sql.raw(query).execute(db.db);
    const expected = driverRows(file, query);
    t.same(rows, expected, query);
    t.same(rows.map((row) => Object.keys(row as object)), expected.map((row) => Object.keys(row as object)), `${query}: key order`);
    for (const row of rows) t.equal(Object.getPrototypeOf(row), Object.prototype, `${query}: a plain object`);
  }
  const [proto] = (await sql.raw('select id as "__proto__" from things where id = 1').execute(db.db)).rows as Array<Record<string, unknown>>;
  // The driver's own object loses it (setting __proto__ to a number does nothing); it is kept here.
  t.ok(Object.hasOwn(proto!, "__proto__"), "a column named __proto__ is an own property, not the prototype");
  t.equal(Object.getPrototypeOf(proto), Object.prototype);
  t.equal(proto!["__proto__"], 1);
});

t.test("a SQLite statement cached before this process alters its table reads the new columns", async (t) => {
  const { db } = await setUp(t);
  const read = () => db.db.selectFrom("things" as never).selectAll().where("id" as never, "=", 1 as never).execute();
  t.same(Object.keys((await read())[0] as object), ["id", "name", "data", "score", "note"]);
  await sql`alter table things rename column name to title`.execute(db.db);
  t.same(await read(), [{ id: 1, title: "one", data: Buffer.from([1, 2]), score: 1.5, note: null }], "a renamed column (same count) under its new name");
  await sql`alter table things add column extra text default 'x'`.execute(db.db);
  t.same(Object.keys((await read())[0] as object), ["id", "title", "data", "score", "note", "extra"], "an added column");
});

t.test("a SQLite statement cached before another process adds or drops a column reads the table as it is", async (t) => {
  const { file, db } = await setUp(t);
  const read = () => db.db.selectFrom("things" as never).selectAll().orderBy("id" as never).execute();
  t.equal((await read()).length, 2);
  const other = new Database(file);
  t.teardown(() => other.close());
  other.exec("alter table things add column added integer default 7");
  t.same(await read(), driverRows(file, "select * from things order by id"), "the added column, with its value");
  other.exec("alter table things drop column note");
  t.same(await read(), driverRows(file, "select * from things order by id"), "the dropped column is gone");
});

t.test("a streamed SQLite query yields the same objects", async (t) => {
  const { file, db } = await setUp(t);
  const streamed: unknown[] = [];
  for await (const row of db.db.selectFrom("things" as never).selectAll().orderBy("id" as never).stream()) streamed.push(row);
  t.same(streamed, driverRows(file, "select * from things order by id"));
});
