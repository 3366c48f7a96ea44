/**
 * `timestamptz` text read by adapters/postgres/TimestampParser.ts: the same Date as pg's own
 * parser (postgres-date) for every form Postgres writes, and the parser the database's pool
 * actually uses, in a UTC session and in sessions with whole-hour and half-hour offsets.
 */
import { sql } from "kysely";
import pg from "pg";
import t from "tap";
import { openPostgres } from "../../adapters/postgres/openPostgres.js";
import { parseTimestamptz } from "../../adapters/postgres/TimestampParser.js";
import { createTestPostgresDatabase } from "../support/databases.js";

const byPostgresDate = pg.types.getTypeParser(1184, "text") as (text: string) => Date | number | null;

/** A value as a comparable: the time of a Date (NaN as text), or the value itself. */
const comparable = (value: unknown): unknown => (value instanceof Date ? String(value.getTime()) : value);

/** A small deterministic generator (no test depends on Math.random). */
const numbers = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
  return seed / 2_147_483_648;
};

const pad = (n: number, width: number): string => String(n).padStart(width, "0");

t.test("every timestamptz text gets the Date pg's own parser gives it", async (t) => {
  const next = numbers(42);
  const pick = (n: number) => Math.floor(next() * n);
  const texts: string[] = [
    "2026-11-27 09:35:45+00",
    "2026-11-27 09:35:45.1+00",
    "2026-11-27 09:35:45.009+00",
    "2026-11-27 09:35:45.999999+00",
    "2026-11-27 09:35:45.123456-00",
    "2026-11-27 00:00:00+14",
    "2026-11-27 00:00:00-12",
    "2026-02-30 10:00:00+00",
    "1000-01-01 00:00:00+00",
    "9999-12-31 23:59:59.999999+00",
    // The forms left to postgres-date.
    "2026-11-27 09:35:45+05:30",
    "2026-11-27 09:35:45.5-03:30:15",
    "0099-01-01 00:00:00+00",
    "0001-01-01 00:00:00+00 BC",
    "12026-01-01 00:00:00+00",
    "infinity",
    "-infinity",
    "2026-11-27 09:35:45.+00",
    "2026-11-27T09:35:45Z",
    "2026-11-27",
    "garbage",
  ];
  for (let i = 0; i < 5_000; i++) {
    const fraction = pick(7) === 0 ? "" : `.${pad(pick(1_000_000), 6).slice(0, 1 + pick(6))}`;
    const offset = pick(27) - 12;
    texts.push(
      `${pad(1000 + pick(9000), 4)}-${pad(1 + pick(12), 2)}-${pad(1 + pick(31), 2)} ${pad(pick(24), 2)}:${pad(pick(60), 2)}:${pad(pick(60), 2)}${fraction}${offset < 0 ? "-" : "+"}${pad(Math.abs(offset), 2)}`,
    );
  }
  const disagreements = texts.filter((text) => comparable(parseTimestamptz(text)) !== comparable(byPostgresDate(text)));
  t.same(disagreements, [], `${texts.length} texts`);
});

t.test("the pool reads timestamptz with this parser, in any session time zone", async (t) => {
  const db = await openPostgres({ connectionString: await createTestPostgresDatabase(t), max: 1 });
  t.teardown(db.close);
  const instants = ["2026-11-27T09:35:45.123Z", "2026-01-01T00:00:00.000Z", "1999-12-31T23:59:59.999Z"];
  for (const zone of ["UTC", "America/New_York", "Asia/Kolkata"]) {
    await sql`select set_config('timezone', ${zone}, false)`.execute(db.db);
    const { rows } = await sql<{ at: Date; text: string }>`
      select v::timestamptz as at, v::timestamptz::text as text from unnest(${instants}::text[]) as v`.execute(db.db);
    t.same(
      rows.map((row) => row.at.toISOString()),
      instants,
      `${zone}: the instants come back (${rows.map((row) => row.text).join(", ")})`,
    );
    for (const row of rows) t.equal(comparable(parseTimestamptz(row.text)), comparable(byPostgresDate(row.text)), `${zone}: ${row.text}`);
  }
  const calls: string[] = [];
  const { types } = pg;
  // The pool's parser is this file's: a value it alone would read differently tells.
  const original = types.getTypeParser(1184, "text");
  t.teardown(() => types.setTypeParser(1184, "text", original));
  types.setTypeParser(1184, "text", (text: string) => (calls.push(text), original(text)));
  await sql`select now() as at`.execute(db.db);
  t.same(calls, [], "pg's global timestamptz parser is not called by the pool");
});
