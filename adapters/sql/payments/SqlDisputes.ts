/**
 * The disputes projection over `payment_disputes`. `apply` is one conditional upsert: a new
 * dispute is inserted; an existing one is overwritten only by a strictly newer event (provider
 * time) while it is not closed (won, lost). RETURNING tells whether the row was written, the
 * same way on SQLite and Postgres.
 */
import { Effect } from "effect";
import type { Dispute, DisputeStatus } from "../../../core/payments/DisputeRecords.js";
import type { Disputes } from "../../../ports/payments/Disputes.js";
import type { DialectFeatures } from "../DialectFeatures.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

type Row = Record<string, unknown>;

const fromRow = (f: DialectFeatures, r: Row): Dispute => ({
  id: String(r.id),
  providerDisputeId: String(r.provider_dispute_id),
  merchantId: String(r.merchant_id),
  paymentIntentId: String(r.payment_intent_id),
  amountMinor: toNumber(r.amount_minor),
  currency: String(r.currency),
  reason: String(r.reason),
  status: String(r.status) as DisputeStatus,
  lastEventMs: toNumber(r.last_event_ms),
  lastEventId: String(r.last_event_id),
  createdAt: f.timeFromDb(r.created_at),
  updatedAt: f.timeFromDb(r.updated_at),
});

/** Builds the Disputes port over `db`. */
export const makeSqlDisputes = (db: SqlDatabase): Disputes => {
  const f = featuresFor(db);
  return {
    intentOfProviderPayment: (providerPaymentId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("payment_intents").select(["id", "merchant_id"]).where("provider_payment_id", "=", providerPaymentId).executeTakeFirst(),
      ).pipe(Effect.map((r) => (r === undefined ? null : { merchantId: String(r.merchant_id), intentId: String(r.id) }))),
    apply: (d) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("payment_disputes")
          .values({
            id: d.id,
            provider_dispute_id: d.providerDisputeId,
            merchant_id: d.merchantId,
            payment_intent_id: d.paymentIntentId,
            amount_minor: d.amountMinor,
            currency: d.currency,
            reason: d.reason,
            status: d.status,
            last_event_ms: d.lastEventMs,
            last_event_id: d.lastEventId,
            created_at: f.timeToDb(d.createdAt),
            updated_at: f.timeToDb(d.updatedAt),
          })
          .onConflict((oc) =>
            oc
              .column("provider_dispute_id")
              .doUpdateSet((eb) => ({
                amount_minor: eb.ref("excluded.amount_minor"),
                currency: eb.ref("excluded.currency"),
                reason: eb.ref("excluded.reason"),
                status: eb.ref("excluded.status"),
                last_event_ms: eb.ref("excluded.last_event_ms"),
                last_event_id: eb.ref("excluded.last_event_id"),
                updated_at: eb.ref("excluded.updated_at"),
              }))
              .where((eb) =>
                eb.and([
                  eb("payment_disputes.last_event_ms", "<", eb.ref("excluded.last_event_ms")),
                  eb("payment_disputes.status", "not in", ["won", "lost"]),
                ]),
              ),
          )
          .returning("id")
          .execute(),
      ).pipe(
        Effect.map((rows) => rows.length === 1),
        Effect.withSpan("Disputes.apply"),
      ),
    findByProviderId: (providerDisputeId) =>
      runQuery(db, (ex) => ex.selectFrom("payment_disputes").selectAll().where("provider_dispute_id", "=", providerDisputeId).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : fromRow(f, r))),
      ),
    list: ({ merchantId, before, limit }) =>
      runQuery(db, (ex) => {
        let q = ex.selectFrom("payment_disputes").selectAll().where("merchant_id", "=", merchantId);
        if (before !== undefined) q = q.where("id", "<", before);
        return q.orderBy("id", "desc").limit(limit).execute();
      }).pipe(
        Effect.map((rows) => rows.map((r) => fromRow(f, r))),
        Effect.withSpan("Disputes.list"),
      ),
  };
};
