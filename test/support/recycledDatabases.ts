/**
 * Postgres test databases used again within one test process. CREATE DATABASE copies a whole
 * catalog and cost 0.1–0.5 s of server CPU per test, most of what a short storage test took.
 * A database a test is done with is emptied instead (TRUNCATE of the tables it wrote), and kept
 * for the next test of the same migration plan, but only when it is provably as fresh as a new
 * copy of the template:
 *
 * - its schema and statistics are those of the template (a fingerprint of the user objects in
 *   the catalogs, taken from a fresh copy: tables, columns, constraints, indexes, triggers and
 *   their enabled state, functions, types, schemas, sequences' positions, planner statistics);
 * - the rows the migrations wrote (e.g. the migrations ledger) are unchanged;
 * - every other table is empty, its identities restarted and its indexes' size statistics those
 *   of a new copy.
 *
 * Anything else (a test that altered a table, analyzed one, or disabled a trigger; a server
 * where the test user may not skip triggers) and the database is dropped as before. The
 * databases still kept when the process's tests end are dropped (`dropRecycled`).
 */
import pg from "pg";
import { dropDatabase, endSessions } from "./databaseTemplates.js";

/** What a fresh copy of one template looks like, taken once per process from the first copy. */
interface FreshState {
  /** The fingerprint of the catalogs and a checksum of the rows the migrations wrote. */
  readonly expected: string;
  /** One script: empties what a test wrote and answers the state's fingerprint (`stateSql`). */
  readonly resetSql: string;
}

const fresh = new Map<string, Promise<FreshState>>();
const kept = new Map<string, string[]>();
// Set by dropRecycled: a database handed back after that is dropped.
let closing = false;

// User objects only (FirstNormalObjectId); a copy of a database keeps every object's oid, so the
// oids take part: an object dropped and made again is a different one.
const fingerprintSql = `concat_ws('|',
  (SELECT string_agg(concat_ws(':', c.oid, c.relname, c.relkind, c.relnamespace, c.relnatts, c.relchecks, c.relhastriggers,
                               c.relpersistence, c.reloptions, c.relacl, c.relowner, c.relpages, c.reltuples, c.relrowsecurity), ',' ORDER BY c.oid)
     FROM pg_class c WHERE c.oid >= 16384),
  (SELECT string_agg(concat_ws(':', a.attrelid, a.attnum, a.attname, a.atttypid, a.attnotnull, a.atthasdef, a.attisdropped,
                               a.attstattarget, a.attidentity, a.attgenerated, a.attcollation), ',' ORDER BY a.attrelid, a.attnum)
     FROM pg_attribute a WHERE a.attrelid >= 16384 AND a.attnum > 0),
  (SELECT string_agg(concat_ws(':', oid, conname, contype, convalidated, condeferrable, condeferred), ',' ORDER BY oid) FROM pg_constraint WHERE oid >= 16384),
  (SELECT string_agg(concat_ws(':', oid, tgname, tgenabled), ',' ORDER BY oid) FROM pg_trigger WHERE oid >= 16384),
  (SELECT string_agg(concat_ws(':', indexrelid, indisvalid, indisready), ',' ORDER BY indexrelid) FROM pg_index WHERE indexrelid >= 16384),
  (SELECT string_agg(concat_ws(':', oid, md5(prosrc)), ',' ORDER BY oid) FROM pg_proc WHERE oid >= 16384),
  (SELECT string_agg(oid::text, ',' ORDER BY oid) FROM pg_type WHERE oid >= 16384),
  (SELECT string_agg(oid::text, ',' ORDER BY oid) FROM pg_namespace WHERE oid >= 16384),
  (SELECT string_agg(oid::text, ',' ORDER BY oid) FROM pg_attrdef WHERE oid >= 16384),
  (SELECT string_agg(oid::text, ',' ORDER BY oid) FROM pg_rewrite WHERE oid >= 16384),
  (SELECT string_agg(oid::text, ',' ORDER BY oid) FROM pg_policy WHERE oid >= 16384),
  (SELECT string_agg(oid::text, ',' ORDER BY oid) FROM pg_extension WHERE oid >= 16384),
  (SELECT string_agg(oid::text, ',' ORDER BY oid) FROM pg_event_trigger),
  (SELECT count(*) FROM pg_statistic WHERE starelid >= 16384),
  (SELECT count(*) FROM pg_statistic_ext WHERE oid >= 16384),
  (SELECT count(*) FROM pg_db_role_setting WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())),
  (SELECT string_agg(concat_ws(':', schemaname, sequencename, last_value), ',' ORDER BY schemaname, sequencename) FROM pg_sequences))`;

// The ordinary tables of every user schema whose heap is not empty: written to since the copy
// (a rolled-back insert leaves pages too, which change plans), or by the migrations.
const writtenTables = `pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relkind = 'r' AND c.oid >= 16384 AND pg_relation_size(c.oid) > 0`;

const freshStateOf = async (client: pg.Client): Promise<FreshState> => {
  const seeded = (await client.query<{ oid: string; name: string }>(`SELECT c.oid::text AS oid, format('%I.%I', n.nspname, c.relname) AS name FROM ${writtenTables}`)).rows;
  const indexes = (await client.query<{ oid: string; relpages: number; reltuples: number }>("SELECT oid::text AS oid, relpages, reltuples FROM pg_class WHERE relkind = 'i' AND oid >= 16384")).rows;
  const stateSql = `SELECT md5(concat_ws('|', ${[fingerprintSql, ...seeded.map(({ name }) => `(SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM ${name} t)`)].join(", ")})) AS state`;
  const resetSql = [
    "BEGIN",
    // Replica role: the append-only tables' triggers refuse TRUNCATE otherwise. CASCADE takes
    // along the (empty) tables that reference them; RESTART IDENTITY resets their sequences.
    "SET LOCAL session_replication_role = replica",
    `DO $reset$ DECLARE names text; BEGIN
       SELECT string_agg(format('%I.%I', n.nspname, c.relname), ', ') INTO names FROM ${writtenTables}
          AND c.oid <> ALL ('{${seeded.map((t) => t.oid).join(",")}}'::oid[]);
       IF names IS NOT NULL THEN EXECUTE 'TRUNCATE ' || names || ' RESTART IDENTITY CASCADE'; END IF;
     END $reset$`,
    // The rebuilt indexes say "never measured" where a new copy's say "empty": put those back.
    ...(indexes.length === 0
      ? []
      : [
          `UPDATE pg_class c SET relpages = f.relpages, reltuples = f.reltuples
             FROM (VALUES ${indexes.map((i) => `(${Number(i.oid)}::oid, ${Number(i.relpages)}, ${Number(i.reltuples)}::real)`).join(", ")}) AS f(oid, relpages, reltuples)
            WHERE c.oid = f.oid AND (c.relpages, c.reltuples) IS DISTINCT FROM (f.relpages, f.reltuples)`,
        ]),
    "COMMIT",
    stateSql,
  ].join(";\n");
  const expected = (await client.query<{ state: string }>(stateSql)).rows[0]!.state;
  return { expected, resetSql };
};

const connect = async (url: string): Promise<pg.Client> => {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined);
  await client.connect();
  return client;
};

/**
 * Records what a fresh copy of the template `plan` looks like, from `url`, a database just
 * copied from it that no test has used yet (once per plan and process).
 */
export const noteFreshCopy = async (plan: string, url: string): Promise<void> => {
  let state = fresh.get(plan);
  if (state === undefined) {
    state = (async () => {
      const client = await connect(url);
      try {
        return await freshStateOf(client);
      } finally {
        await client.end();
      }
    })();
    fresh.set(plan, state);
    state.catch(() => fresh.delete(plan));
  }
  await state;
};

/** A kept database of `plan`, emptied and as fresh as a new copy, or undefined. */
export const takeRecycled = (plan: string): string | undefined => kept.get(plan)?.pop();

/**
 * Hands back the database `name` (at `url`) a test is done with: emptied and kept for the next
 * test of `plan` when it can be made as fresh as a new copy, dropped otherwise. Its sessions
 * are ended first.
 */
export const recycle = async (admin: pg.Pool, plan: string, name: string, url: string): Promise<void> => {
  await endSessions(admin, name);
  if (!closing && (await emptied(plan, url).catch(() => false))) {
    const list = kept.get(plan) ?? [];
    list.push(name);
    kept.set(plan, list);
    return;
  }
  await dropDatabase(admin, name);
};

const emptied = async (plan: string, url: string): Promise<boolean> => {
  const state = await fresh.get(plan);
  if (state === undefined) return false;
  const client = await connect(url);
  try {
    // One round trip (simple protocol: the script's results, the state last).
    const results = (await client.query(state.resetSql)) as unknown as ReadonlyArray<pg.QueryResult<{ state: string }>>;
    return results[results.length - 1]?.rows[0]?.state === state.expected;
  } finally {
    await client.end();
  }
};

/** Drops every database this process still keeps. */
export const dropRecycled = async (admin: pg.Pool): Promise<void> => {
  closing = true;
  for (const names of kept.values()) {
    for (const name of names.splice(0)) await admin.query(`DROP DATABASE IF EXISTS ${name}`).catch(() => undefined);
  }
};
