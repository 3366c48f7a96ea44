/**
 * `lockRow` (adapters/sql/lockRow.ts), the one way adapters lock a row they read in a transaction:
 * on Postgres FOR UPDATE by default, FOR NO KEY UPDATE for a parent row others reference (inserts
 * of referencing rows do not wait for it), FOR SHARE for a row that must stay as read; nothing
 * without `lock`, and nothing on SQLite (its writers run one at a time).
 */
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from "kysely";
import t from "tap";
import { lockRow, type RowLockStrength } from "../../adapters/sql/lockRow.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";

const compilerOf = (dialect: "postgres" | "sqlite") =>
  new Kysely<any>({
    dialect: {
      createAdapter: () => (dialect === "postgres" ? new PostgresAdapter() : new SqliteAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => (dialect === "postgres" ? new PostgresIntrospector(db) : new SqliteIntrospector(db)),
      createQueryCompiler: () => (dialect === "postgres" ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
    },
  });

const sqlOf = (dialect: "postgres" | "sqlite", lock: boolean | undefined, strength?: RowLockStrength): string => {
  const db = { dialect } as SqlDatabase;
  const query = compilerOf(dialect).selectFrom("rows").selectAll().where("id", "=", "x");
  return (strength === undefined ? lockRow(db, query, lock) : lockRow(db, query, lock, strength)).compile().sql;
};

t.test("Postgres takes the lock asked for: FOR UPDATE by default, FOR NO KEY UPDATE, FOR SHARE", async (t) => {
  t.match(sqlOf("postgres", true), / for update$/);
  t.match(sqlOf("postgres", true, "no key update"), / for no key update$/);
  t.match(sqlOf("postgres", true, "share"), / for share$/);
});

t.test("no lock without `lock`, and none on SQLite", async (t) => {
  for (const strength of ["update", "no key update", "share"] as const) {
    t.notMatch(sqlOf("postgres", false, strength), / for /, `postgres, no lock: ${strength}`);
    t.notMatch(sqlOf("postgres", undefined, strength), / for /, `postgres, lock undefined: ${strength}`);
    t.notMatch(sqlOf("sqlite", true, strength), / for /, `sqlite: ${strength}`);
  }
});
