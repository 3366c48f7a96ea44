/**
 * The disputes projection over `payment_disputes`. `apply` is one conditional upsert: a new
 * dispute is inserted; an existing one is overwritten only by a strictly newer event (provider
 * time) while it is not closed (won, lost). RETURNING tells whether the row was written, the
 * same way on SQLite and Postgres.
 */
import { Effect } from "effect";
import { Dispute } from "../../../core/payments/model/Dispute.js";
import type { Disputes } from "../../../ports/payments/Disputes.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledOnce, runQuery, runStatement, slotsOf } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { MerchantId, PaymentIntentId } from "../../../core/payments/model/Ids.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the Disputes port over `db`. */
export const makeSqlDisputes = (db: SqlDatabase): Disputes => {
  const disputes = rowCodec(Dispute, featuresFor(db));
  // Each dispute event's statements (its intent by provider payment, the conditional upsert), compiled once.
  const selectIntentOfProviderPayment = compiledOnce<{ providerPaymentId: string }>((ex, p) =>
    ex.selectFrom("payment_intents").select(["id", "merchant_id"]).where("provider_payment_id", "=", p("providerPaymentId")),
  );
  const upsertIfNewer = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("payment_disputes")
      .values(slotsOf(disputes.columns, p))
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
      .returning("id"),
  );
  return {
    intentOfProviderPayment: (providerPaymentId) =>
      runStatement(db, selectIntentOfProviderPayment, { providerPaymentId }).pipe(
        Effect.map(({ rows: [r] }) =>
          r === undefined ? null : { merchantId: MerchantId.make(String(r.merchant_id)), intentId: PaymentIntentId.make(String(r.id)) },
        ),
      ),
    apply: (d) =>
      runStatement(db, upsertIfNewer, disputes.toRow(d)).pipe(
        Effect.map(({ rows }) => rows.length === 1),
        withSpan("Disputes.apply"),
      ),
    findByProviderId: (providerDisputeId) =>
      runQuery(db, (ex) => ex.selectFrom("payment_disputes").selectAll().where("provider_dispute_id", "=", providerDisputeId).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : disputes.fromRow(r))),
      ),
    list: ({ merchantId, before, limit }) =>
      runQuery(db, (ex) => {
        let q = ex.selectFrom("payment_disputes").selectAll().where("merchant_id", "=", merchantId);
        if (before !== undefined) q = q.where("id", "<", before);
        return q.orderBy("id", "desc").limit(limit).execute();
      }).pipe(
        Effect.map((rows) => rows.map((r) => disputes.fromRow(r))),
        withSpan("Disputes.list"),
      ),
  };
};
