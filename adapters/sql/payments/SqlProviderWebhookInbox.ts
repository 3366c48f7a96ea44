/**
 * The ProviderEventsInbox port over `payment_provider_events` (write-once rows, UNIQUE provider
 * event id). A row is inserted marked minimized (`payload_minimized_at`, payments migration 32);
 * an older row's payload may be rewritten once, with its marker.
 */
import { Effect } from "effect";
import { PaymentAttempt } from "../../../core/payments/model/PaymentAttempt.js";
import { StoredProviderEvent } from "../../../core/payments/model/ProviderEvent.js";
import { Refund } from "../../../core/payments/model/Refund.js";
import type { ProviderEventsInbox } from "../../../ports/payments/ProviderEvents.js";
import { featuresFor } from "../featuresFor.js";
import { compiledOnce, runQuery, runStatement, slotsOf, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { rowCodec } from "../RowCodec.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the provider event inbox over `db`. */
export const makeSqlProviderWebhookInbox = (db: SqlDatabase): ProviderEventsInbox => {
  const f = featuresFor(db);
  const events = rowCodec(StoredProviderEvent, f);
  const attempts = rowCodec(PaymentAttempt, f);
  const refunds = rowCodec(Refund, f);
  // Every provider event runs these (its dedupe read and insert, its attempt or refund by reference): compiled once.
  const selectEvent = compiledOnce<{ providerEventId: string }>((ex, p) =>
    ex.selectFrom("payment_provider_events").selectAll().where("provider_event_id", "=", p("providerEventId")),
  );
  const insertEventIfNew = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("payment_provider_events")
      .values(slotsOf([...events.columns, "processed_at", "payload_minimized_at"], p))
      .onConflict((oc) => oc.column("provider_event_id").doNothing())
      .returning("id"),
  );
  const selectAttemptByReference = compiledOnce<{ reference: string }>((ex, p) =>
    ex.selectFrom("payment_attempts").selectAll().where("reference", "=", p("reference")),
  );
  const selectRefundByReference = compiledOnce<{ reference: string }>((ex, p) =>
    ex.selectFrom("payment_refunds").selectAll().where("reference", "=", p("reference")),
  );
  const selectUnminimized = (after: string | null, limit: number) =>
    runQuery(db, (ex) =>
      ex
        .selectFrom("payment_provider_events")
        .select(["id", "payload"])
        .where("payload_minimized_at", "is", null)
        .$if(after !== null, (q) => q.where("id", ">", after))
        .orderBy("id")
        .limit(limit)
        .execute(),
    );
  return {
    listUnminimized: ({ after, limit }) =>
      selectUnminimized(after, limit).pipe(
        Effect.map((rows) => rows.map((r) => ({ id: String(r.id), payload: f.jsonFromDb(r.payload) }))),
        withSpan("ProviderEventsInbox.listUnminimized"),
      ),
    countUnminimized: (after) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("payment_provider_events")
          .select((eb) => eb.fn.countAll().as("n"))
          .where("payload_minimized_at", "is", null)
          .$if(after !== null, (q) => q.where("id", ">", after))
          .executeTakeFirstOrThrow(),
      ).pipe(Effect.map((r) => toNumber(r.n))),
    minimizePayload: ({ id, payload, at }) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("payment_provider_events")
          .set({ payload: f.jsonToDb(payload), payload_minimized_at: f.timeToDb(at) })
          .where("id", "=", id)
          .where("payload_minimized_at", "is", null)
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => Number(r.numUpdatedRows) === 1),
        withSpan("ProviderEventsInbox.minimizePayload"),
      ),
    find: (providerEventId) =>
      runStatement(db, selectEvent, { providerEventId }).pipe(
        // Rows written before occurred_at and outcome existed read as received then, with no outcome text.
        Effect.map(({ rows: [r] }) =>
          r === undefined ? null : events.fromRow({ ...r, occurred_at: r.occurred_at ?? r.received_at, outcome: r.outcome ?? "" }),
        ),
        withSpan("ProviderEventsInbox.find"),
      ),
    insert: (e) =>
      // DO NOTHING: a concurrent duplicate waits for the winner on the UNIQUE index, then inserts nothing.
      // Stored minimized (what the core read, ProviderEventRecord.ts): marked as such on insert.
      runStatement(db, insertEventIfNew, { ...events.toRow(e), processed_at: f.timeToDb(e.receivedAt), payload_minimized_at: f.timeToDb(e.receivedAt) }).pipe(
        Effect.map(({ rows }) => rows.length > 0),
        withSpan("ProviderEventsInbox.insert"),
      ),
    findAttemptByReference: (reference) =>
      runStatement(db, selectAttemptByReference, { reference }).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : attempts.fromRow(r))),
      ),
    findRefundByReference: (reference) =>
      runStatement(db, selectRefundByReference, { reference }).pipe(
        Effect.map(({ rows: [r] }) => (r === undefined ? null : refunds.fromRow(r))),
      ),
  };
};
