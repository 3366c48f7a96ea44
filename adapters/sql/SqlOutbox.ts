/**
 * Outbox and OutboxRelayStore over the `outbox` table. Rows keep their event order in `seq`;
 * a claim leases rows to one relay (locked_by / locked_until) and counts the attempt.
 */
import { Clock, Effect } from "effect";
import { sql, type Kysely, type RawBuilder } from "kysely";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import type { EventDataScrub, Outbox, OutboxMessage, OutboxRelayStore } from "../../ports/Outbox.js";
import type { WorkSignals } from "../../ports/WorkSignals.js";
import type { DialectFeatures } from "./DialectFeatures.js";
import { compiledOnce, compiledPerRowCount, runQuery, sendStatement, span, toNumber, type CompiledStatement } from "./runQuery.js";
import type { SqlDatabase } from "./SqlDatabase.js";

/** An outbox row as the port's message. */
export const toMessage = (f: DialectFeatures, row: any): OutboxMessage => ({
  id: row.id,
  event: f.jsonFromDb(row.event) as EventEnvelope,
  attempts: toNumber(row.attempts),
  status: row.status,
  lastError: row.last_error ?? null,
  nextAttemptAt: f.timeFromDb(row.next_attempt_at),
});

/** The statement pieces of an event data scrub over a JSON event column (outbox and channel log). */
export interface EventDataScrubSql {
  /** The event is of the scrub's type (read from the JSON). */
  readonly ofType: RawBuilder<boolean>;
  /** The event is of the scrub's schema version (true when it names none) and still holds one of its fields. */
  readonly holdsFields: RawBuilder<boolean>;
  /** The event without the fields. */
  readonly scrubbed: RawBuilder<unknown>;
}

const scrubbableField = /^[A-Za-z0-9_]+$/;

/** The pieces of `scrub` over `column`; a field name other than letters, digits and `_` is a defect. */
export const eventDataScrubSql = (f: DialectFeatures, column: string, scrub: EventDataScrub): EventDataScrubSql => {
  const bad = scrub.fields.find((field) => !scrubbableField.test(field));
  if (bad !== undefined || scrub.fields.length === 0) throw new Error(`event data scrub of ${scrub.eventType}: bad field list ${JSON.stringify(scrub.fields)}`);
  const event = sql.ref(column);
  if (f.dialect === "sqlite") {
    const paths = scrub.fields.map((field) => `$.data."${field}"`);
    const holds = sql.join(paths.map((path) => sql`json_type(${event}, ${path}) IS NOT NULL`), sql` OR `);
    const version = scrub.schemaVersion === undefined ? sql`1 = 1` : sql`json_extract(${event}, '$.schema_version') = ${scrub.schemaVersion}`;
    return {
      ofType: sql<boolean>`json_extract(${event}, '$.type') = ${scrub.eventType}`,
      holdsFields: sql<boolean>`(${version} AND (${holds}))`,
      scrubbed: sql`json_remove(${event}, ${sql.join(paths)})`,
    };
  }
  const holds = sql.join(scrub.fields.map((field) => sql`${event} #> ARRAY['data', ${field}]::text[] IS NOT NULL`), sql` OR `);
  const version = scrub.schemaVersion === undefined ? sql`true` : sql`${event}->>'schema_version' = ${String(scrub.schemaVersion)}`;
  return {
    ofType: sql<boolean>`${event}->>'type' = ${scrub.eventType}`,
    holdsFields: sql<boolean>`(${version} AND (${holds}))`,
    scrubbed: scrub.fields.reduce<RawBuilder<unknown>>((acc, field) => sql`${acc} #- ARRAY['data', ${field}]::text[]`, sql`${event}`),
  };
};

/** Wakes the relay (once the caller's transaction commits) when there are signals to send. */
const signalOutbox = (signals: WorkSignals | undefined): Effect.Effect<void> =>
  signals === undefined ? Effect.void : signals.notify("outbox");

/** The outbox columns an append writes, in order. */
const appendColumns = ["id", "tenant_id", "type", "event", "status", "attempts", "next_attempt_at", "created_at"] as const;

/** `insert into outbox` of `n` rows, their values `<column><i>`; one per n, compiled on first use (per database handle). */
const appendRowsStatement = () =>
  compiledPerRowCount((n) =>
    compiledOnce<Record<string, unknown>>((ex, p) =>
      ex.insertInto("outbox").values(Array.from({ length: n }, (_, i) => Object.fromEntries(appendColumns.map((column) => [column, p(`${column}${i}`)])))),
    ),
  );

/** The largest rows-per-statement of an append (a power of two). */
const maxAppendRows = 512;

/**
 * `rows` as statements of 512, 256, ..., 2 and 1 rows (largest first, in order), each shape built
 * once (`compiledPerRowCount`): ten statements at most for any number of rows.
 */
const rowsOfPowersOfTwo = (statementOf: (n: number) => CompiledStatement<Record<string, unknown>>) => {
  // The parameter names of row i (`id0`, `tenant_id0`, ...), made once per i.
  const namesOfRow: string[][] = [];
  const namesOf = (i: number) => (namesOfRow[i] ??= appendColumns.map((column) => `${column}${i}`));
  return (rows: ReadonlyArray<Record<string, unknown>>): ReadonlyArray<{ readonly statement: CompiledStatement<Record<string, unknown>>; readonly params: Record<string, unknown> }> => {
    const statements = [];
    for (let at = 0; at < rows.length; ) {
      const n = Math.min(maxAppendRows, 2 ** Math.floor(Math.log2(rows.length - at)));
      const params: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const row = rows[at + i]!;
        const names = namesOf(i);
        appendColumns.forEach((column, c) => (params[names[c]!] = row[column]));
      }
      statements.push({ statement: statementOf(n), params });
      at += n;
    }
    return statements;
  };
};

/** The Outbox port: appends in the caller's transaction, due at once; `signals` wakes the relay on commit. */
export const makeSqlOutbox = (db: SqlDatabase, f: DialectFeatures, signals?: WorkSignals): Outbox => {
  const row = (event: EventEnvelope, now: unknown) => ({
    id: event.id,
    tenant_id: event.tenant_id,
    type: event.type,
    event: f.jsonToDb(event),
    status: "pending",
    attempts: 0,
    next_attempt_at: now,
    created_at: now,
  });
  // Every command appends its events here: rows of 1, 2, 4, ... 512 events, each statement
  // compiled once (ten shapes at most), so a command's N events take about log2(N) statements and
  // a demotion's 66,000 about 130 (8 parameters a row: 4,096 per statement at most).
  const appendRows = rowsOfPowersOfTwo(appendRowsStatement());
  return {
    append: (events) =>
      events.length === 0
        ? Effect.void
        : Effect.flatMap(Clock.currentTimeMillis, (millis) => {
            const now = f.timeToDb(new Date(millis));
            // In order (seq follows the rows of a statement and the statements); nobody reads the
            // answers, so in a Postgres transaction they go out without waiting (sendStatement).
            const rows = events.map((event) => row(event, now));
            return Effect.zipRight(
              Effect.forEach(appendRows(rows), ({ statement, params }) => sendStatement(db, statement, params), { discard: true }),
              signalOutbox(signals),
            );
          }).pipe(Effect.asVoid, span("Outbox.append")),
  };
};

/** The relay's side of the outbox. */
export const makeSqlOutboxRelayStore = (
  db: SqlDatabase,
  f: DialectFeatures,
  signals?: WorkSignals,
): OutboxRelayStore => {
  /**
   * The seq of rows of `status` written before `before`, oldest first along seq (SQLite:
   * outbox_pending_seq (status, seq); Postgres: the seq key, where the oldest rows are the
   * delivered ones, or outbox_dead), at most `limit`: what a purge or a scrub of the history
   * works through.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const settledBefore = (ex: Kysely<any>, status: "delivered" | "dead", before: Date, limit: number) =>
    ex
      .selectFrom("outbox")
      .select("seq")
      // A literal, so a cached generic plan on Postgres can use the partial index outbox_dead.
      .where("status", "=", sql.lit(status))
      .where("created_at", "<", f.timeToDb(before))
      .orderBy("seq")
      .limit(limit);
  /** Removes the scrub's fields from up to `limit` rows of `status` it reaches, written before `before`; answers how many. */
  const scrubSettled = (status: "delivered" | "dead", scrub: EventDataScrub, before: Date, limit: number) =>
    Effect.suspend(() => {
      const pieces = eventDataScrubSql(f, "event", scrub);
      return runQuery(db, (ex) =>
        ex
          .updateTable("outbox")
          .set({ event: pieces.scrubbed })
          .where(
            // The type column narrows before the JSON is read.
            f.keyInBatch("seq", settledBefore(ex, status, before, limit).where("type", "=", scrub.eventType).where(pieces.holdsFields)),
          )
          .executeTakeFirst(),
      );
    }).pipe(Effect.map((result) => toNumber(result.numUpdatedRows)));
  const claim = compiledOnce<{ workerId: string; at: unknown; lockedUntil: unknown; limit: number }>((ex, p) => {
    const due = f.skipLocked(
      ex
        .selectFrom("outbox")
        .select("seq")
        // A literal, so a cached generic plan on Postgres can still use the partial index.
        .where("status", "=", sql.lit("pending"))
        // On SQLite a unary plus keeps the planner off outbox_due (status, next_attempt_at), which
        // reads every due pending row and sorts them: it walks outbox_pending_seq (status, seq) in
        // order instead and stops at the limit (7 ms -> 1.4 ms a claim with 20,000 rows pending).
        .where(f.dialect === "sqlite" ? sql<string>`+${sql.ref("next_attempt_at")}` : sql.ref("next_attempt_at"), "<=", p("at"))
        .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<=", p("at"))]))
        .orderBy("seq")
        .limit(p("limit")),
    );
    return ex
      .updateTable("outbox")
      .set((eb) => ({ locked_by: p("workerId"), locked_until: p("lockedUntil"), attempts: eb("attempts", "+", 1) }))
      .where("seq", "in", due)
      .returningAll();
  });
  return {
    // One statement, atomic on its own (on Postgres the subquery locks the rows it picks and skips
    // those another relay holds), so it needs no transaction around it: BEGIN and COMMIT would be
    // two more round trips per pass.
    claimBatch: ({ workerId, now, limit, leaseMs }) =>
      runQuery(db, async (ex) => {
        const { rows } = await claim(ex, {
          workerId,
          at: f.timeToDb(now),
          lockedUntil: f.timeToDb(new Date(now.getTime() + leaseMs)),
          limit,
        });
        // RETURNING order is unspecified; the relay wants event order.
        return rows.sort((a, b) => toNumber(a.seq) - toNumber(b.seq)).map((row) => toMessage(f, row));
      }).pipe(span("OutboxRelayStore.claimBatch")),
    markDelivered: (id) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("outbox")
          .set({ status: "delivered", locked_by: null, locked_until: null })
          .where("id", "=", id)
          .execute(),
      ).pipe(Effect.asVoid, span("OutboxRelayStore.markDelivered")),
    markDeliveredMany: (ids) =>
      ids.length === 0
        ? Effect.void
        : runQuery(db, (ex) =>
            ex
              .updateTable("outbox")
              .set({ status: "delivered", locked_by: null, locked_until: null })
              .where("id", "in", ids)
              .execute(),
          ).pipe(Effect.asVoid, span("OutboxRelayStore.markDeliveredMany")),
    markFailed: (id, { error, retryAt }) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("outbox")
          .set(
            retryAt === null
              ? { status: "dead", last_error: error, locked_by: null, locked_until: null }
              : { status: "pending", last_error: error, next_attempt_at: f.timeToDb(retryAt), locked_by: null, locked_until: null },
          )
          .where("id", "=", id)
          .where("status", "=", "pending")
          .execute(),
      ).pipe(Effect.asVoid, span("OutboxRelayStore.markFailed")),
    listDead: (limit) =>
      runQuery(db, (ex) =>
        // A literal, so a cached generic plan on Postgres can use the partial index outbox_dead.
        ex.selectFrom("outbox").selectAll().where("status", "=", sql.lit("dead")).orderBy("seq").limit(limit).execute(),
      ).pipe(
        Effect.map((rows) => rows.map((row) => toMessage(f, row))),
        span("OutboxRelayStore.listDead"),
      ),
    purgeDelivered: (before, limit) =>
      runQuery(db, (ex) =>
        ex
          .deleteFrom("outbox")
          .where(
            f.keyInBatch("seq", settledBefore(ex, "delivered", before, limit)),
          )
          .executeTakeFirst(),
      ).pipe(
        Effect.map((result) => toNumber(result.numDeletedRows)),
        span("OutboxRelayStore.purgeDelivered"),
      ),
    scrubDelivered: (scrub, before, limit) => scrubSettled("delivered", scrub, before, limit).pipe(span("OutboxRelayStore.scrubDelivered")),
    scrubDead: (scrub, before, limit) => scrubSettled("dead", scrub, before, limit).pipe(span("OutboxRelayStore.scrubDead")),
    replay: (id, now) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("outbox")
          .set({ status: "pending", attempts: 0, next_attempt_at: f.timeToDb(now), locked_by: null, locked_until: null })
          .where("id", "=", id)
          .where("status", "=", "dead")
          .executeTakeFirst(),
      ).pipe(
        Effect.map((result) => toNumber(result.numUpdatedRows) > 0),
        Effect.tap((replayed) => (replayed ? signalOutbox(signals) : Effect.void)),
        span("OutboxRelayStore.replay"),
      ),
  };
};
