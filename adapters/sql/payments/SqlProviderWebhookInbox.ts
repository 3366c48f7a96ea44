/** The ProviderEventsInbox port over `payment_provider_events` (write-once rows, UNIQUE provider event id). */
import { Effect } from "effect";
import type { StoredProviderEvent } from "../../../core/payments/ProviderEvent.js";
import type { ProviderEventsInbox } from "../../../ports/payments/ProviderEvents.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { attemptFromRow, refundFromRow } from "./paymentRows.js";

/** Builds the provider event inbox over `db`. */
export const makeSqlProviderWebhookInbox = (db: SqlDatabase): ProviderEventsInbox => {
  const f = featuresFor(db);
  return {
    find: (providerEventId) =>
      runQuery(db, (ex) => ex.selectFrom("payment_provider_events").selectAll().where("provider_event_id", "=", providerEventId).executeTakeFirst()).pipe(
        Effect.map((r): StoredProviderEvent | null =>
          r === undefined
            ? null
            : {
                id: String(r.id),
                providerEventId: String(r.provider_event_id),
                type: String(r.type),
                payload: f.jsonFromDb(r.payload),
                status: r.status === "processed" ? "processed" : "ignored",
                outcome: String(r.outcome ?? ""),
                merchantId: r.merchant_id === null ? null : String(r.merchant_id),
                providerObject: r.provider_object === null ? null : String(r.provider_object),
                occurredAt: f.timeFromDb(r.occurred_at ?? r.received_at),
                receivedAt: f.timeFromDb(r.received_at),
              },
        ),
        Effect.withSpan("ProviderEventsInbox.find"),
      ),
    insert: (e) =>
      // DO NOTHING: a concurrent duplicate waits for the winner on the UNIQUE index, then inserts nothing.
      runQuery(db, (ex) =>
        ex
          .insertInto("payment_provider_events")
          .values({
            id: e.id,
            provider_event_id: e.providerEventId,
            type: e.type,
            payload: f.jsonToDb(e.payload),
            status: e.status,
            outcome: e.outcome,
            merchant_id: e.merchantId,
            provider_object: e.providerObject,
            occurred_at: f.timeToDb(e.occurredAt),
            received_at: f.timeToDb(e.receivedAt),
            processed_at: f.timeToDb(e.receivedAt),
          })
          .onConflict((oc) => oc.column("provider_event_id").doNothing())
          .returning("id")
          .executeTakeFirst(),
      ).pipe(
        Effect.map((r) => r !== undefined),
        Effect.withSpan("ProviderEventsInbox.insert"),
      ),
    findAttemptByReference: (reference) =>
      runQuery(db, (ex) => ex.selectFrom("payment_attempts").selectAll().where("reference", "=", reference).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : attemptFromRow(f, r))),
      ),
    findRefundByReference: (reference) =>
      runQuery(db, (ex) => ex.selectFrom("payment_refunds").selectAll().where("reference", "=", reference).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : refundFromRow(f, r))),
      ),
  };
};
