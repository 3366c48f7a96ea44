/** The ProviderEventsInbox port over `payment_provider_events` (write-once rows, UNIQUE provider event id). */
import { Effect } from "effect";
import { PaymentAttempt } from "../../../core/payments/model/PaymentAttempt.js";
import { StoredProviderEvent } from "../../../core/payments/model/ProviderEvent.js";
import { Refund } from "../../../core/payments/model/Refund.js";
import type { ProviderEventsInbox } from "../../../ports/payments/ProviderEvents.js";
import { featuresFor } from "../featuresFor.js";
import { compiledOnce, runStatement, slotsOf } from "../runQuery.js";
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
      .values(slotsOf([...events.columns, "processed_at"], p))
      .onConflict((oc) => oc.column("provider_event_id").doNothing())
      .returning("id"),
  );
  const selectAttemptByReference = compiledOnce<{ reference: string }>((ex, p) =>
    ex.selectFrom("payment_attempts").selectAll().where("reference", "=", p("reference")),
  );
  const selectRefundByReference = compiledOnce<{ reference: string }>((ex, p) =>
    ex.selectFrom("payment_refunds").selectAll().where("reference", "=", p("reference")),
  );
  return {
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
      runStatement(db, insertEventIfNew, { ...events.toRow(e), processed_at: f.timeToDb(e.receivedAt) }).pipe(
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
